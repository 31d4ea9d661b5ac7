package dev.lancelot.engine.query.eval;

import dev.lancelot.engine.CloseableIterator;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.LancelotException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;

/**
 * Query vectors for recall evaluation: from an {@code .fvecs} file (little-endian: per vector an
 * int32 dimension, then that many float32) or from a vector column of a dataset.
 */
public final class QuerySets {
  private QuerySets() {}

  /** The first {@code limit} vectors (all when ≤ 0) of an {@code .fvecs} file. */
  public static float[][] readFvecs(Path file, int limit) {
    byte[] bytes;
    try (InputStream in = Files.newInputStream(file)) {
      bytes = in.readAllBytes();
    } catch (IOException e) {
      throw new InvalidInputException(
          "Cannot read query vectors from " + file + ": " + e.getMessage(), e);
    }
    return parseFvecs(bytes, file.toString(), limit);
  }

  /**
   * The first {@code limit} vectors (all when ≤ 0) of the bytes of an {@code .fvecs} file, read
   * from anywhere (a Hadoop file system…); {@code file} names it in errors.
   */
  public static float[][] parseFvecs(byte[] bytes, String file, int limit) {
    ByteBuffer buf = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    List<float[]> out = new ArrayList<>();
    while (buf.remaining() > 0 && (limit <= 0 || out.size() < limit)) {
      if (buf.remaining() < 4) {
        throw new InvalidInputException(
            "Cannot read query vectors from "
                + file
                + ": truncated record header at byte "
                + buf.position()
                + ". An .fvecs file holds, per vector, an int32 dimension then that many float32.");
      }
      int dim = buf.getInt();
      if (dim <= 0 || dim > 65536 || buf.remaining() < dim * 4L) {
        throw new InvalidInputException(
            "Cannot read query vectors from "
                + file
                + ": vector "
                + out.size()
                + " declares dimension "
                + dim
                + " but "
                + buf.remaining() / 4
                + " floats remain. The file is not .fvecs "
                + "or is truncated.");
      }
      float[] v = new float[dim];
      buf.asFloatBuffer().get(v);
      buf.position(buf.position() + dim * 4);
      if (!out.isEmpty() && out.get(0).length != dim) {
        throw new InvalidInputException(
            "Cannot read query vectors from "
                + file
                + ": vector "
                + out.size()
                + " has "
                + "dimension "
                + dim
                + " but vector 0 has "
                + out.get(0).length
                + ".");
      }
      out.add(v);
    }
    if (out.isEmpty()) {
      throw new InvalidInputException(
          "Cannot read query vectors from " + file + ": the file holds no vector.");
    }
    return out.toArray(new float[0][]);
  }

  public static void writeFvecs(Path file, float[][] vectors) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (float[] v : vectors) {
      ByteBuffer b = ByteBuffer.allocate(4 + 4 * v.length).order(ByteOrder.LITTLE_ENDIAN);
      b.putInt(v.length);
      for (float f : v) {
        b.putFloat(f);
      }
      out.writeBytes(b.array());
    }
    try {
      Files.write(file, out.toByteArray());
    } catch (IOException e) {
      throw new LancelotException("Cannot write " + file + ": " + e.getMessage(), e);
    }
  }

  /** The first {@code limit} vectors (all when ≤ 0) of a float32 vector column of a dataset. */
  public static float[][] fromColumn(Dataset dataset, String column, int limit) {
    List<float[]> out = new ArrayList<>();
    try (CloseableIterator<VectorSchemaRoot> it = dataset.newScan().columns(column).batches()) {
      while (it.hasNext() && (limit <= 0 || out.size() < limit)) {
        VectorSchemaRoot batch = it.next();
        if (!(batch.getVector(0) instanceof FixedSizeListVector fsl)
            || !(fsl.getDataVector() instanceof Float4Vector values)) {
          throw new InvalidInputException(
              "Cannot read query vectors from column \""
                  + column
                  + "\" of "
                  + dataset.location()
                  + ": it is not a float32 vector column.");
        }
        int dim = fsl.getListSize();
        for (int r = 0; r < batch.getRowCount() && (limit <= 0 || out.size() < limit); r++) {
          float[] v = new float[dim];
          for (int d = 0; d < dim; d++) {
            v[d] = values.get(r * dim + d);
          }
          out.add(v);
        }
      }
    }
    return out.toArray(new float[0][]);
  }
}
