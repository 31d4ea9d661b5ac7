package dev.lancelot.engine.internal.query.exec;

import dev.lancelot.engine.vector.DistanceMetric;
import java.nio.ByteOrder;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.Float2Vector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;

/**
 * Distances between query vectors and a batch of stored vectors (a fixed-size-list column), with
 * the element type's kernel: float32, float16 (as raw half-float bits) or uint8. One scratch copy
 * of the batch into a Java array per batch, then bulk kernels per query.
 */
final class VectorBlocks {
  private float[] floats = new float[0];
  private short[] halves = new short[0];
  private byte[] bytes = new byte[0];

  /** Copies the batch's vectors into scratch; returns the element kind. */
  int load(FixedSizeListVector vectors) {
    int n = vectors.getValueCount() * vectors.getListSize();
    ValueVector data = vectors.getDataVector();
    ArrowBuf buf = data.getDataBuffer();
    if (data instanceof Float4Vector) {
      if (floats.length < n) {
        floats = new float[n];
      }
      buf.nioBuffer(0, n * 4).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(floats, 0, n);
      return 4;
    } else if (data instanceof Float2Vector) {
      if (halves.length < n) {
        halves = new short[n];
      }
      buf.nioBuffer(0, n * 2).order(ByteOrder.LITTLE_ENDIAN).asShortBuffer().get(halves, 0, n);
      return 2;
    } else if (data instanceof UInt1Vector) {
      if (bytes.length < n) {
        bytes = new byte[n];
      }
      buf.nioBuffer(0, n).get(bytes, 0, n);
      return 1;
    }
    throw new IllegalStateException(
        "Unsupported vector element vector " + data.getClass().getSimpleName());
  }

  /** Distances of rows {@code [0, count)} of the last loaded batch to {@code query}. */
  void distances(DistanceMetric metric, int kind, float[] query, int count, int dim, float[] out) {
    switch (kind) {
      case 4 -> metric.distances(query, 0, floats, 0, count, dim, out, 0);
      case 2 -> metric.distances(toHalves(query), 0, halves, 0, count, dim, out, 0);
      default -> metric.distances(toBytes(query), 0, bytes, 0, count, dim, out, 0);
    }
  }

  /** The vector of row {@code row} of the last loaded batch, as floats. */
  float[] vector(int kind, int row, int dim) {
    float[] v = new float[dim];
    for (int d = 0; d < dim; d++) {
      int i = row * dim + d;
      v[d] =
          switch (kind) {
            case 4 -> floats[i];
            case 2 -> dev.lancelot.engine.vector.Float16.toFloat(halves[i]);
            default -> bytes[i] & 0xFF;
          };
    }
    return v;
  }

  private final java.util.IdentityHashMap<float[], short[]> halfQueries =
      new java.util.IdentityHashMap<>();
  private final java.util.IdentityHashMap<float[], byte[]> byteQueries =
      new java.util.IdentityHashMap<>();

  private short[] toHalves(float[] q) {
    return halfQueries.computeIfAbsent(q, VectorBlocks::halves);
  }

  private byte[] toBytes(float[] q) {
    return byteQueries.computeIfAbsent(q, VectorBlocks::bytes);
  }

  /** A float query as the float16 kernels take it: raw half-precision bits. */
  static short[] halves(float[] q) {
    short[] h = new short[q.length];
    for (int i = 0; i < q.length; i++) {
      h[i] = dev.lancelot.engine.vector.Float16.fromFloat(q[i]);
    }
    return h;
  }

  /** A float query as the uint8 kernels take it: rounded and clamped to [0, 255]. */
  static byte[] bytes(float[] q) {
    byte[] b = new byte[q.length];
    for (int i = 0; i < q.length; i++) {
      b[i] = (byte) Math.round(Math.max(0, Math.min(255, q[i])));
    }
    return b;
  }
}
