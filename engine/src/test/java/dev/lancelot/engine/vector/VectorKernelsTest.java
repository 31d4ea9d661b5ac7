package dev.lancelot.engine.vector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** SIMD kernels against the scalar reference at sizes that exercise every tail path. */
class VectorKernelsTest {
  private static final long SEED = 0x5EED_0001L;
  private static final VectorKernels SCALAR = VectorizationProvider.scalar();

  private static VectorKernels simd() {
    var simd = VectorizationProvider.simd();
    assumeThat(simd)
        .as("SIMD kernels need --add-modules jdk.incubator.vector (surefire passes it)")
        .isPresent();
    return simd.get();
  }

  @Test
  void surefireRunsWithTheVectorModuleSoSimdIsChosen() {
    assertThat(VectorizationProvider.simd()).isPresent();
    assertThat(VectorizationProvider.kernels().name()).startsWith("simd-");
  }

  private static float[] randomFloats(Random r, int n) {
    float[] v = new float[n];
    for (int i = 0; i < n; i++) {
      v[i] = (float) r.nextGaussian();
    }
    return v;
  }

  /** Tolerance for a sum of {@code n} products of magnitude about one, in float32. */
  private static float tol(float expected, int n) {
    return 1e-5f * (Math.abs(expected) + n);
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 3, 7, 15, 17, 31, 33, 127, 129, 1000})
  void float32KernelsAgree(int dim) {
    VectorKernels simd = simd();
    Random r = new Random(SEED + dim);
    // Offsets other than zero catch indexing mistakes in the vector loops.
    float[] a = randomFloats(r, dim + 5);
    float[] b = randomFloats(r, dim + 9);
    float expected = SCALAR.dotProduct(a, 5, b, 9, dim);
    assertThat(simd.dotProduct(a, 5, b, 9, dim))
        .as("dot dim=%d", dim)
        .isCloseTo(expected, org.assertj.core.data.Offset.offset(tol(expected, dim)));
    expected = SCALAR.squareDistance(a, 5, b, 9, dim);
    assertThat(simd.squareDistance(a, 5, b, 9, dim))
        .as("l2 dim=%d", dim)
        .isCloseTo(expected, org.assertj.core.data.Offset.offset(tol(expected, dim)));
    float norm = SCALAR.norm(a, 5, dim);
    expected = SCALAR.cosineDistance(a, 5, norm, b, 9, dim);
    assertThat(simd.cosineDistance(a, 5, norm, b, 9, dim))
        .as("cosine dim=%d", dim)
        .isCloseTo(expected, org.assertj.core.data.Offset.offset(1e-5f));
    assertThat(simd.norm(a, 5, dim))
        .isCloseTo(norm, org.assertj.core.data.Offset.offset(tol(norm, dim)));
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 3, 7, 15, 17, 31, 33, 127, 129, 1000})
  void bulkAndColumnKernelsAgree(int count) {
    VectorKernels simd = simd();
    Random r = new Random(SEED * 3 + count);
    int dim = 1 + count % 13;
    float[] q = randomFloats(r, dim);
    float[] data = randomFloats(r, count * dim + 2);
    float[] columns = new float[count * dim];
    for (int i = 0; i < count; i++) {
      for (int d = 0; d < dim; d++) {
        columns[d * count + i] = data[2 + i * dim + d];
      }
    }
    float[] want = new float[count + 1];
    float[] got = new float[count + 1];
    SCALAR.squareDistances(q, 0, data, 2, count, dim, want, 1);
    simd.squareDistances(q, 0, data, 2, count, dim, got, 1);
    assertClose(want, got, dim);
    float[] cols = new float[count];
    simd.squareDistancesToColumns(q, 0, dim, columns, 0, count, cols);
    assertClose(java.util.Arrays.copyOfRange(want, 1, count + 1), cols, dim);
    SCALAR.squareDistancesToColumns(q, 0, dim, columns, 0, count, cols);
    assertClose(java.util.Arrays.copyOfRange(want, 1, count + 1), cols, dim);

    SCALAR.dotProducts(q, 0, data, 2, count, dim, want, 1);
    simd.dotProductsToColumns(q, 0, dim, columns, 0, count, cols);
    assertClose(java.util.Arrays.copyOfRange(want, 1, count + 1), cols, dim);
    SCALAR.dotProductsToColumns(q, 0, dim, columns, 0, count, cols);
    assertClose(java.util.Arrays.copyOfRange(want, 1, count + 1), cols, dim);

    float qNorm = SCALAR.norm(q, 0, dim);
    want = new float[count];
    got = new float[count];
    SCALAR.cosineDistances(q, 0, qNorm, data, 2, count, dim, want, 0);
    simd.cosineDistances(q, 0, qNorm, data, 2, count, dim, got, 0);
    assertClose(want, got, 1);
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 3, 7, 15, 17, 31, 33, 127, 129, 1000})
  void float16KernelsAgreeWithFloat32OfTheSameValues(int dim) {
    VectorKernels simd = simd();
    Random r = new Random(SEED * 7 + dim);
    short[] a = new short[dim + 1];
    short[] b = new short[dim + 3];
    float[] af = new float[dim];
    float[] bf = new float[dim];
    for (int i = 0; i < dim; i++) {
      // Include subnormals, zeros and large values so every branch of the widening is used.
      a[i + 1] =
          Float16.fromFloat(
              i % 11 == 0 ? 1e-6f * i : (float) r.nextGaussian() * (i % 5 == 0 ? 300 : 1));
      b[i + 3] = Float16.fromFloat(i % 13 == 0 ? -3e-7f : (float) r.nextGaussian());
      af[i] = Float16.toFloat(a[i + 1]);
      bf[i] = Float16.toFloat(b[i + 3]);
    }
    for (VectorKernels k : new VectorKernels[] {SCALAR, simd}) {
      float dot = SCALAR.dotProduct(af, 0, bf, 0, dim);
      assertThat(k.dotProductF16(a, 1, b, 3, dim))
          .as("%s dot", k.name())
          .isCloseTo(dot, org.assertj.core.data.Offset.offset(1e-4f * (Math.abs(dot) + 300 * dim)));
      float l2 = SCALAR.squareDistance(af, 0, bf, 0, dim);
      assertThat(k.squareDistanceF16(a, 1, b, 3, dim))
          .as("%s l2", k.name())
          .isCloseTo(l2, org.assertj.core.data.Offset.offset(1e-5f * (l2 + dim)));
      float norm = SCALAR.norm(af, 0, dim);
      assertThat(k.normF16(a, 1, dim))
          .isCloseTo(norm, org.assertj.core.data.Offset.offset(1e-4f * (norm + 1)));
      float cos = SCALAR.cosineDistance(af, 0, norm, bf, 0, dim);
      assertThat(k.cosineDistanceF16(a, 1, norm, b, 3, dim))
          .as("%s cosine", k.name())
          .isCloseTo(cos, org.assertj.core.data.Offset.offset(1e-4f));
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 3, 7, 15, 17, 31, 33, 127, 129, 1000})
  void byteKernelsAgreeWithDefinitions(int len) {
    VectorKernels simd = simd();
    Random r = new Random(SEED * 11 + len);
    byte[] a = new byte[len + 2];
    byte[] b = new byte[len + 1];
    r.nextBytes(a);
    r.nextBytes(b);
    int hamming = 0;
    int l2 = 0;
    int dot = 0;
    for (int i = 0; i < len; i++) {
      int x = a[i + 2] & 0xFF;
      int y = b[i + 1] & 0xFF;
      hamming += Integer.bitCount(x ^ y);
      l2 += (x - y) * (x - y);
      dot += x * y;
    }
    for (VectorKernels k : new VectorKernels[] {SCALAR, simd}) {
      assertThat(k.hammingDistance(a, 2, b, 1, len)).as(k.name()).isEqualTo(hamming);
      assertThat(k.squareDistanceU8(a, 2, b, 1, len)).as(k.name()).isEqualTo(l2);
      assertThat(k.dotProductU8(a, 2, b, 1, len)).as(k.name()).isEqualTo(dot);
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 15, 16, 17, 128, 129, 384})
  void rowKernelsAgreeWithOneRowAtATime(int dim) {
    VectorKernels simd = simd();
    Random r = new Random(SEED * 13 + dim);
    int rows = 23;
    byte[] codes = new byte[rows * dim];
    byte[] q = new byte[dim + 3];
    r.nextBytes(codes);
    r.nextBytes(q);
    // every count up to 11 from two offsets covers the groups of four, the rest, and reuse of a row
    int[] ids = {22, 0, 5, 5, 17, 3, 9, 21, 1, 14, 8, 2, 19, 11};
    for (VectorKernels k : new VectorKernels[] {SCALAR, simd}) {
      for (int from : new int[] {0, 3}) {
        for (int count = 0; count <= 11; count++) {
          float[] l2 = new float[count + 1];
          float[] dot = new float[count + 1];
          l2[count] = -1f;
          dot[count] = -1f;
          k.squareDistancesU8(q, 3, codes, ids, from, count, dim, l2);
          k.dotProductsU8(q, 3, codes, ids, from, count, dim, dot);
          for (int i = 0; i < count; i++) {
            int row = ids[from + i] * dim;
            assertThat(l2[i])
                .as("%s l2 from %d count %d row %d", k.name(), from, count, i)
                .isEqualTo((float) SCALAR.squareDistanceU8(q, 3, codes, row, dim));
            assertThat(dot[i])
                .as("%s dot from %d count %d row %d", k.name(), from, count, i)
                .isEqualTo((float) SCALAR.dotProductU8(q, 3, codes, row, dim));
          }
          assertThat(l2[count]).as("written past count").isEqualTo(-1f);
          assertThat(dot[count]).as("written past count").isEqualTo(-1f);
        }
      }
    }
  }

  @Test
  void specialFloat16ValuesWidenExactlyInSimd() {
    VectorKernels simd = simd();
    short[] specials = {
      0x0000,
      (short) 0x8000,
      0x0001,
      0x03FF,
      0x0400,
      0x3C00,
      (short) 0xBC00,
      0x7BFF,
      0x7C00,
      (short) 0xFC00,
      0x3555,
      0x0200,
      (short) 0x8001,
      0x1234,
      0x5678,
      0x2E66
    };
    short one = Float16.fromFloat(1f);
    for (int lane = 0; lane < 16; lane++) {
      for (short s : specials) {
        // One special value per call in a different lane each time; every other product is 0 * 1.
        short[] a = new short[16];
        short[] b = new short[16];
        java.util.Arrays.fill(b, one);
        a[lane] = s;
        float widened = simd.dotProductF16(a, 0, b, 0, 16);
        assertThat(widened).as("bits %04x lane %d", s & 0xFFFF, lane).isEqualTo(Float16.toFloat(s));
      }
    }
  }

  private static void assertClose(float[] want, float[] got, int n) {
    for (int i = 0; i < want.length; i++) {
      assertThat(got[i])
          .as("index %d", i)
          .isCloseTo(want[i], org.assertj.core.data.Offset.offset(tol(want[i], n)));
    }
  }
}
