package dev.lancelot.engine.internal.index.vector;

import dev.lancelot.engine.vector.VectorException;

/** Validation shared by trainers, with user-facing messages. */
public final class VectorChecks {
  private VectorChecks() {}

  /**
   * Checks a row-major block: {@code data.length == count * dim} and every value finite. Lance
   * drops non-finite vectors silently while training; here the caller hears about them instead.
   */
  public static void checkTrainingBlock(String action, float[] data, int count, int dim) {
    if (data == null) {
      throw new VectorException(
          "Cannot "
              + action
              + ": the training vectors are null. Pass the vectors"
              + " of the column, row-major.");
    }
    if (dim <= 0) {
      throw new VectorException(
          "Cannot "
              + action
              + ": dimension "
              + dim
              + " is not positive. Pass the"
              + " dimension of the vector column.");
    }
    if ((long) count * dim != data.length) {
      throw new IllegalArgumentException(
          "training block has " + data.length + " values, expected " + count + " rows × " + dim);
    }
    for (int i = 0; i < data.length; i++) {
      if (!Float.isFinite(data[i])) {
        throw new VectorException(
            "Cannot "
                + action
                + ": vector at row "
                + (i / dim)
                + " has a "
                + (Float.isNaN(data[i]) ? "NaN" : "infinite")
                + " value at position "
                + (i % dim)
                + ". Remove or fix non-finite vectors (and null rows) before training an index.");
      }
    }
  }
}
