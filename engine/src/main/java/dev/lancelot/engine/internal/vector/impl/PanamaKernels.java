package dev.lancelot.engine.internal.vector.impl;

import dev.lancelot.engine.vector.Float16;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorSpecies;

/**
 * Kernels on the incubating Vector API ({@code jdk.incubator.vector}). Only ever loaded
 * reflectively by {@code VectorizationProvider} after it checked the module is in the boot layer,
 * so the engine still links without {@code --add-modules jdk.incubator.vector}.
 *
 * <p>Float loops use the preferred species with two accumulators; tails fall back to scalar code.
 * float16 is widened in registers with integer bit arithmetic (normal, subnormal, inf/NaN cases
 * blended by masks); uint8 is widened to int lanes.
 */
public final class PanamaKernels extends ScalarKernels {
  private static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED;
  private static final VectorSpecies<Integer> I = VectorSpecies.of(int.class, F.vectorShape());
  private static final VectorSpecies<Short> S =
      VectorSpecies.of(short.class, VectorShape.forBitSize(F.length() * Short.SIZE));
  private static final VectorSpecies<Byte> B =
      VectorSpecies.of(byte.class, VectorShape.forBitSize(I.length() * Byte.SIZE));
  private static final int LANES = F.length();

  /** Width of the float species in bits, so the provider can refuse too-narrow hardware. */
  public static int vectorBitSize() {
    return F.vectorBitSize();
  }

  @Override
  public String name() {
    return "simd-" + F.vectorBitSize();
  }

  @Override
  public float dotProduct(float[] a, int aOff, float[] b, int bOff, int dim) {
    int i = 0;
    float sum = 0;
    if (dim >= 2 * LANES) {
      FloatVector acc0 = FloatVector.zero(F);
      FloatVector acc1 = FloatVector.zero(F);
      for (int bound = dim - dim % (2 * LANES); i < bound; i += 2 * LANES) {
        acc0 =
            FloatVector.fromArray(F, a, aOff + i).fma(FloatVector.fromArray(F, b, bOff + i), acc0);
        acc1 =
            FloatVector.fromArray(F, a, aOff + i + LANES)
                .fma(FloatVector.fromArray(F, b, bOff + i + LANES), acc1);
      }
      sum = acc0.add(acc1).reduceLanes(VectorOperators.ADD);
    }
    for (int bound = F.loopBound(dim); i < bound; i += LANES) {
      sum +=
          FloatVector.fromArray(F, a, aOff + i)
              .mul(FloatVector.fromArray(F, b, bOff + i))
              .reduceLanes(VectorOperators.ADD);
    }
    for (; i < dim; i++) {
      sum += a[aOff + i] * b[bOff + i];
    }
    return sum;
  }

  @Override
  public float squareDistance(float[] a, int aOff, float[] b, int bOff, int dim) {
    int i = 0;
    float sum = 0;
    if (dim >= 2 * LANES) {
      FloatVector acc0 = FloatVector.zero(F);
      FloatVector acc1 = FloatVector.zero(F);
      for (int bound = dim - dim % (2 * LANES); i < bound; i += 2 * LANES) {
        FloatVector d0 =
            FloatVector.fromArray(F, a, aOff + i).sub(FloatVector.fromArray(F, b, bOff + i));
        FloatVector d1 =
            FloatVector.fromArray(F, a, aOff + i + LANES)
                .sub(FloatVector.fromArray(F, b, bOff + i + LANES));
        acc0 = d0.fma(d0, acc0);
        acc1 = d1.fma(d1, acc1);
      }
      sum = acc0.add(acc1).reduceLanes(VectorOperators.ADD);
    }
    for (int bound = F.loopBound(dim); i < bound; i += LANES) {
      FloatVector d =
          FloatVector.fromArray(F, a, aOff + i).sub(FloatVector.fromArray(F, b, bOff + i));
      sum += d.mul(d).reduceLanes(VectorOperators.ADD);
    }
    for (; i < dim; i++) {
      float d = a[aOff + i] - b[bOff + i];
      sum += d * d;
    }
    return sum;
  }

  @Override
  public float cosineDistance(float[] a, int aOff, float aNorm, float[] b, int bOff, int dim) {
    int i = 0;
    float xy = 0;
    float yy = 0;
    if (dim >= LANES) {
      FloatVector accXy = FloatVector.zero(F);
      FloatVector accYy = FloatVector.zero(F);
      for (int bound = F.loopBound(dim); i < bound; i += LANES) {
        FloatVector y = FloatVector.fromArray(F, b, bOff + i);
        accXy = FloatVector.fromArray(F, a, aOff + i).fma(y, accXy);
        accYy = y.fma(y, accYy);
      }
      xy = accXy.reduceLanes(VectorOperators.ADD);
      yy = accYy.reduceLanes(VectorOperators.ADD);
    }
    for (; i < dim; i++) {
      float y = b[bOff + i];
      xy += a[aOff + i] * y;
      yy += y * y;
    }
    return 1f - xy / aNorm / (float) Math.sqrt(yy);
  }

  @Override
  public void squareDistancesToColumns(
      float[] q, int qOff, int dim, float[] columns, int colOff, int count, float[] out) {
    int i = 0;
    for (int bound = F.loopBound(count); i < bound; i += LANES) {
      FloatVector acc = FloatVector.zero(F);
      for (int d = 0; d < dim; d++) {
        FloatVector diff =
            FloatVector.fromArray(F, columns, colOff + d * count + i).sub(q[qOff + d]);
        acc = diff.fma(diff, acc);
      }
      acc.intoArray(out, i);
    }
    for (; i < count; i++) {
      float s = 0;
      for (int d = 0; d < dim; d++) {
        float diff = q[qOff + d] - columns[colOff + d * count + i];
        s += diff * diff;
      }
      out[i] = s;
    }
  }

  @Override
  public void dotProductsToColumns(
      float[] q, int qOff, int dim, float[] columns, int colOff, int count, float[] out) {
    int i = 0;
    for (int bound = F.loopBound(count); i < bound; i += LANES) {
      FloatVector acc = FloatVector.zero(F);
      for (int d = 0; d < dim; d++) {
        acc =
            FloatVector.fromArray(F, columns, colOff + d * count + i)
                .fma(FloatVector.broadcast(F, q[qOff + d]), acc);
      }
      acc.intoArray(out, i);
    }
    for (; i < count; i++) {
      float s = 0;
      for (int d = 0; d < dim; d++) {
        s += q[qOff + d] * columns[colOff + d * count + i];
      }
      out[i] = s;
    }
  }

  /** Widens {@code LANES} half-precision values starting at {@code off} to floats. */
  private static FloatVector halfToFloat(short[] src, int off) {
    IntVector h = ((IntVector) ShortVector.fromArray(S, src, off).castShape(I, 0)).and(0xFFFF);
    IntVector sign = h.and(0x8000).lanewise(VectorOperators.LSHL, 16);
    IntVector magnitude = h.and(0x7FFF);
    IntVector bits = magnitude.lanewise(VectorOperators.LSHL, 13).add(0x38000000);
    VectorMask<Integer> infOrNan = magnitude.compare(VectorOperators.GE, 0x7C00);
    bits = bits.blend(bits.add(0x38000000), infOrNan);
    VectorMask<Integer> subnormal = magnitude.compare(VectorOperators.LT, 0x0400);
    IntVector subnormalBits =
        ((FloatVector) magnitude.castShape(F, 0)).mul(0x1p-24f).reinterpretAsInts();
    bits = bits.blend(subnormalBits, subnormal).or(sign);
    return bits.reinterpretAsFloats();
  }

  @Override
  public float dotProductF16(short[] a, int aOff, short[] b, int bOff, int dim) {
    int i = 0;
    FloatVector acc = FloatVector.zero(F);
    for (int bound = F.loopBound(dim); i < bound; i += LANES) {
      acc = halfToFloat(a, aOff + i).fma(halfToFloat(b, bOff + i), acc);
    }
    float sum = acc.reduceLanes(VectorOperators.ADD);
    for (; i < dim; i++) {
      sum += Float16.toFloat(a[aOff + i]) * Float16.toFloat(b[bOff + i]);
    }
    return sum;
  }

  @Override
  public float squareDistanceF16(short[] a, int aOff, short[] b, int bOff, int dim) {
    int i = 0;
    FloatVector acc = FloatVector.zero(F);
    for (int bound = F.loopBound(dim); i < bound; i += LANES) {
      FloatVector d = halfToFloat(a, aOff + i).sub(halfToFloat(b, bOff + i));
      acc = d.fma(d, acc);
    }
    float sum = acc.reduceLanes(VectorOperators.ADD);
    for (; i < dim; i++) {
      float d = Float16.toFloat(a[aOff + i]) - Float16.toFloat(b[bOff + i]);
      sum += d * d;
    }
    return sum;
  }

  @Override
  public float cosineDistanceF16(short[] a, int aOff, float aNorm, short[] b, int bOff, int dim) {
    int i = 0;
    FloatVector accXy = FloatVector.zero(F);
    FloatVector accYy = FloatVector.zero(F);
    for (int bound = F.loopBound(dim); i < bound; i += LANES) {
      FloatVector y = halfToFloat(b, bOff + i);
      accXy = halfToFloat(a, aOff + i).fma(y, accXy);
      accYy = y.fma(y, accYy);
    }
    float xy = accXy.reduceLanes(VectorOperators.ADD);
    float yy = accYy.reduceLanes(VectorOperators.ADD);
    for (; i < dim; i++) {
      float y = Float16.toFloat(b[bOff + i]);
      xy += Float16.toFloat(a[aOff + i]) * y;
      yy += y * y;
    }
    return 1f - xy / aNorm / (float) Math.sqrt(yy);
  }

  private static IntVector unsignedBytes(byte[] src, int off) {
    return ((IntVector) ByteVector.fromArray(B, src, off).castShape(I, 0)).and(0xFF);
  }

  @Override
  public int squareDistanceU8(byte[] a, int aOff, byte[] b, int bOff, int len) {
    int i = 0;
    IntVector acc = IntVector.zero(I);
    for (int bound = I.loopBound(len); i < bound; i += I.length()) {
      IntVector d = unsignedBytes(a, aOff + i).sub(unsignedBytes(b, bOff + i));
      acc = acc.add(d.mul(d));
    }
    int sum = acc.reduceLanes(VectorOperators.ADD);
    for (; i < len; i++) {
      int d = (a[aOff + i] & 0xFF) - (b[bOff + i] & 0xFF);
      sum += d * d;
    }
    return sum;
  }

  /**
   * Four rows at a time, each with its own accumulator, so the loads of four rows (usually four
   * cache misses in a graph search) are in flight together.
   */
  @Override
  public void squareDistancesU8(
      byte[] q, int qOff, byte[] codes, int[] rows, int rowsOff, int count, int dim, float[] out) {
    int bound = I.loopBound(dim);
    int r = 0;
    for (; r + 4 <= count; r += 4) {
      int o0 = rows[rowsOff + r] * dim;
      int o1 = rows[rowsOff + r + 1] * dim;
      int o2 = rows[rowsOff + r + 2] * dim;
      int o3 = rows[rowsOff + r + 3] * dim;
      IntVector a0 = IntVector.zero(I);
      IntVector a1 = IntVector.zero(I);
      IntVector a2 = IntVector.zero(I);
      IntVector a3 = IntVector.zero(I);
      for (int i = 0; i < bound; i += I.length()) {
        IntVector x = unsignedBytes(q, qOff + i);
        IntVector d0 = x.sub(unsignedBytes(codes, o0 + i));
        IntVector d1 = x.sub(unsignedBytes(codes, o1 + i));
        IntVector d2 = x.sub(unsignedBytes(codes, o2 + i));
        IntVector d3 = x.sub(unsignedBytes(codes, o3 + i));
        a0 = a0.add(d0.mul(d0));
        a1 = a1.add(d1.mul(d1));
        a2 = a2.add(d2.mul(d2));
        a3 = a3.add(d3.mul(d3));
      }
      int s0 = a0.reduceLanes(VectorOperators.ADD);
      int s1 = a1.reduceLanes(VectorOperators.ADD);
      int s2 = a2.reduceLanes(VectorOperators.ADD);
      int s3 = a3.reduceLanes(VectorOperators.ADD);
      for (int i = bound; i < dim; i++) {
        int x = q[qOff + i] & 0xFF;
        int d0 = x - (codes[o0 + i] & 0xFF);
        int d1 = x - (codes[o1 + i] & 0xFF);
        int d2 = x - (codes[o2 + i] & 0xFF);
        int d3 = x - (codes[o3 + i] & 0xFF);
        s0 += d0 * d0;
        s1 += d1 * d1;
        s2 += d2 * d2;
        s3 += d3 * d3;
      }
      out[r] = s0;
      out[r + 1] = s1;
      out[r + 2] = s2;
      out[r + 3] = s3;
    }
    for (; r < count; r++) {
      out[r] = squareDistanceU8(q, qOff, codes, rows[rowsOff + r] * dim, dim);
    }
  }

  /** Four rows at a time, as {@link #squareDistancesU8}. */
  @Override
  public void dotProductsU8(
      byte[] q, int qOff, byte[] codes, int[] rows, int rowsOff, int count, int dim, float[] out) {
    int bound = I.loopBound(dim);
    int r = 0;
    for (; r + 4 <= count; r += 4) {
      int o0 = rows[rowsOff + r] * dim;
      int o1 = rows[rowsOff + r + 1] * dim;
      int o2 = rows[rowsOff + r + 2] * dim;
      int o3 = rows[rowsOff + r + 3] * dim;
      IntVector a0 = IntVector.zero(I);
      IntVector a1 = IntVector.zero(I);
      IntVector a2 = IntVector.zero(I);
      IntVector a3 = IntVector.zero(I);
      for (int i = 0; i < bound; i += I.length()) {
        IntVector x = unsignedBytes(q, qOff + i);
        a0 = a0.add(x.mul(unsignedBytes(codes, o0 + i)));
        a1 = a1.add(x.mul(unsignedBytes(codes, o1 + i)));
        a2 = a2.add(x.mul(unsignedBytes(codes, o2 + i)));
        a3 = a3.add(x.mul(unsignedBytes(codes, o3 + i)));
      }
      int s0 = a0.reduceLanes(VectorOperators.ADD);
      int s1 = a1.reduceLanes(VectorOperators.ADD);
      int s2 = a2.reduceLanes(VectorOperators.ADD);
      int s3 = a3.reduceLanes(VectorOperators.ADD);
      for (int i = bound; i < dim; i++) {
        int x = q[qOff + i] & 0xFF;
        s0 += x * (codes[o0 + i] & 0xFF);
        s1 += x * (codes[o1 + i] & 0xFF);
        s2 += x * (codes[o2 + i] & 0xFF);
        s3 += x * (codes[o3 + i] & 0xFF);
      }
      out[r] = s0;
      out[r + 1] = s1;
      out[r + 2] = s2;
      out[r + 3] = s3;
    }
    for (; r < count; r++) {
      out[r] = dotProductU8(q, qOff, codes, rows[rowsOff + r] * dim, dim);
    }
  }

  @Override
  public int dotProductU8(byte[] a, int aOff, byte[] b, int bOff, int len) {
    int i = 0;
    IntVector acc = IntVector.zero(I);
    for (int bound = I.loopBound(len); i < bound; i += I.length()) {
      acc = acc.add(unsignedBytes(a, aOff + i).mul(unsignedBytes(b, bOff + i)));
    }
    int sum = acc.reduceLanes(VectorOperators.ADD);
    for (; i < len; i++) {
      sum += (a[aOff + i] & 0xFF) * (b[bOff + i] & 0xFF);
    }
    return sum;
  }
}
