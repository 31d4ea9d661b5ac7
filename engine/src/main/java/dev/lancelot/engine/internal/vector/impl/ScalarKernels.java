package dev.lancelot.engine.internal.vector.impl;

import dev.lancelot.engine.vector.Float16;
import dev.lancelot.engine.vector.VectorKernels;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Plain Java kernels: always available, the reference the SIMD kernels are tested against. Float
 * loops keep four independent accumulators so the JIT can pipeline them.
 */
public class ScalarKernels implements VectorKernels {
  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  @Override
  public String name() {
    return "scalar";
  }

  @Override
  public float dotProduct(float[] a, int aOff, float[] b, int bOff, int dim) {
    float s0 = 0;
    float s1 = 0;
    float s2 = 0;
    float s3 = 0;
    int i = 0;
    for (int bound = dim & ~3; i < bound; i += 4) {
      s0 += a[aOff + i] * b[bOff + i];
      s1 += a[aOff + i + 1] * b[bOff + i + 1];
      s2 += a[aOff + i + 2] * b[bOff + i + 2];
      s3 += a[aOff + i + 3] * b[bOff + i + 3];
    }
    for (; i < dim; i++) {
      s0 += a[aOff + i] * b[bOff + i];
    }
    return (s0 + s1) + (s2 + s3);
  }

  @Override
  public float squareDistance(float[] a, int aOff, float[] b, int bOff, int dim) {
    float s0 = 0;
    float s1 = 0;
    float s2 = 0;
    float s3 = 0;
    int i = 0;
    for (int bound = dim & ~3; i < bound; i += 4) {
      float d0 = a[aOff + i] - b[bOff + i];
      float d1 = a[aOff + i + 1] - b[bOff + i + 1];
      float d2 = a[aOff + i + 2] - b[bOff + i + 2];
      float d3 = a[aOff + i + 3] - b[bOff + i + 3];
      s0 += d0 * d0;
      s1 += d1 * d1;
      s2 += d2 * d2;
      s3 += d3 * d3;
    }
    for (; i < dim; i++) {
      float d = a[aOff + i] - b[bOff + i];
      s0 += d * d;
    }
    return (s0 + s1) + (s2 + s3);
  }

  @Override
  public float cosineDistance(float[] a, int aOff, float aNorm, float[] b, int bOff, int dim) {
    float xy0 = 0;
    float xy1 = 0;
    float yy0 = 0;
    float yy1 = 0;
    int i = 0;
    for (int bound = dim & ~1; i < bound; i += 2) {
      float y0 = b[bOff + i];
      float y1 = b[bOff + i + 1];
      xy0 += a[aOff + i] * y0;
      xy1 += a[aOff + i + 1] * y1;
      yy0 += y0 * y0;
      yy1 += y1 * y1;
    }
    for (; i < dim; i++) {
      float y = b[bOff + i];
      xy0 += a[aOff + i] * y;
      yy0 += y * y;
    }
    return 1f - (xy0 + xy1) / aNorm / (float) Math.sqrt(yy0 + yy1);
  }

  @Override
  public void squareDistancesToColumns(
      float[] q, int qOff, int dim, float[] columns, int colOff, int count, float[] out) {
    java.util.Arrays.fill(out, 0, count, 0f);
    for (int d = 0; d < dim; d++) {
      float x = q[qOff + d];
      int base = colOff + d * count;
      for (int i = 0; i < count; i++) {
        float diff = x - columns[base + i];
        out[i] += diff * diff;
      }
    }
  }

  @Override
  public void dotProductsToColumns(
      float[] q, int qOff, int dim, float[] columns, int colOff, int count, float[] out) {
    java.util.Arrays.fill(out, 0, count, 0f);
    for (int d = 0; d < dim; d++) {
      float x = q[qOff + d];
      int base = colOff + d * count;
      for (int i = 0; i < count; i++) {
        out[i] += x * columns[base + i];
      }
    }
  }

  @Override
  public float dotProductF16(short[] a, int aOff, short[] b, int bOff, int dim) {
    float s = 0;
    for (int i = 0; i < dim; i++) {
      s += Float16.toFloat(a[aOff + i]) * Float16.toFloat(b[bOff + i]);
    }
    return s;
  }

  @Override
  public float squareDistanceF16(short[] a, int aOff, short[] b, int bOff, int dim) {
    float s = 0;
    for (int i = 0; i < dim; i++) {
      float d = Float16.toFloat(a[aOff + i]) - Float16.toFloat(b[bOff + i]);
      s += d * d;
    }
    return s;
  }

  @Override
  public float cosineDistanceF16(short[] a, int aOff, float aNorm, short[] b, int bOff, int dim) {
    float xy = 0;
    float yy = 0;
    for (int i = 0; i < dim; i++) {
      float y = Float16.toFloat(b[bOff + i]);
      xy += Float16.toFloat(a[aOff + i]) * y;
      yy += y * y;
    }
    return 1f - xy / aNorm / (float) Math.sqrt(yy);
  }

  @Override
  public int hammingDistance(byte[] a, int aOff, byte[] b, int bOff, int len) {
    int bits = 0;
    int i = 0;
    for (int bound = len & ~7; i < bound; i += 8) {
      bits += Long.bitCount((long) LONGS.get(a, aOff + i) ^ (long) LONGS.get(b, bOff + i));
    }
    for (; i < len; i++) {
      bits += Integer.bitCount((a[aOff + i] ^ b[bOff + i]) & 0xFF);
    }
    return bits;
  }

  @Override
  public int squareDistanceU8(byte[] a, int aOff, byte[] b, int bOff, int len) {
    int s = 0;
    for (int i = 0; i < len; i++) {
      int d = (a[aOff + i] & 0xFF) - (b[bOff + i] & 0xFF);
      s += d * d;
    }
    return s;
  }

  @Override
  public int dotProductU8(byte[] a, int aOff, byte[] b, int bOff, int len) {
    int s = 0;
    for (int i = 0; i < len; i++) {
      s += (a[aOff + i] & 0xFF) * (b[bOff + i] & 0xFF);
    }
    return s;
  }
}
