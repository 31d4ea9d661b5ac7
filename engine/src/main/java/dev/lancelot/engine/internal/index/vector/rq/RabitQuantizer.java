package dev.lancelot.engine.internal.index.vector.rq;

import dev.lancelot.engine.vector.DistanceMetric;

/**
 * The RaBitQ quantizer of one IVF_RQ segment, as {@code storage_metadata} of its {@code
 * auxiliary.idx} describes it: vectors of {@code dimension} values are zero-padded to {@code
 * codeDim} ({@code dimension × num_bits}), rotated by {@link FastRotation} and coded one bit per
 * rotated coordinate ({@code ceil(codeDim / 8)} bytes per row). Immutable and thread-safe.
 */
public record RabitQuantizer(
    int dimension, int codeDim, int numBits, FastRotation rotation, DistanceMetric metric) {
  public RabitQuantizer {
    if (rotation.codeDim() != codeDim || codeDim < dimension) {
      throw new IllegalArgumentException(
          "code dimension " + codeDim + " does not fit dimension " + dimension);
    }
  }

  /** Code bytes per row. */
  public int codeBytes() {
    return (codeDim + 7) / 8;
  }
}
