package dev.lancelot.engine.vector;

import dev.lancelot.engine.internal.index.vector.pq.PqPartitionScorer;
import java.util.Random;

/**
 * Runnable benchmark (not a test): single-thread throughput of the scalar and SIMD kernels. Run
 * with {@code java --add-modules jdk.incubator.vector -cp <engine classes + test classes + deps>
 * dev.lancelot.engine.vector.KernelThroughput}. Prints distances (or rows) per second for each
 * kernel at dim 128 over a block of 20,000 vectors, and checks that both implementations agree.
 */
public final class KernelThroughput {
  private static final int DIM = 128;
  private static final int ROWS = 20_000;
  private static volatile float sink;

  private KernelThroughput() {}

  public static void main(String[] args) {
    Random r = new Random(1);
    float[] data = new float[ROWS * DIM];
    for (int i = 0; i < data.length; i++) {
      data[i] = (float) r.nextGaussian();
    }
    float[] q = new float[DIM];
    for (int i = 0; i < DIM; i++) {
      q[i] = (float) r.nextGaussian();
    }
    short[] half = Float16.fromFloats(data);
    short[] qHalf = Float16.fromFloats(q);
    byte[] bytes = new byte[ROWS * DIM];
    r.nextBytes(bytes);
    byte[] qBytes = new byte[DIM];
    r.nextBytes(qBytes);
    float[] out = new float[ROWS];
    VectorKernels[] impls = {
      VectorizationProvider.scalar(), VectorizationProvider.simd().orElse(null)
    };
    float check = Float.NaN;
    for (VectorKernels k : impls) {
      if (k == null) {
        System.out.println("simd: not available (run with --add-modules jdk.incubator.vector)");
        continue;
      }
      report(
          k,
          "f32 l2 single",
          () -> {
            float s = 0;
            for (int i = 0; i < ROWS; i++) {
              s += k.squareDistance(q, 0, data, i * DIM, DIM);
            }
            sink = s;
          });
      report(k, "f32 l2 bulk", () -> k.squareDistances(q, 0, data, 0, ROWS, DIM, out, 0));
      report(k, "f32 dot bulk", () -> k.dotProducts(q, 0, data, 0, ROWS, DIM, out, 0));
      float norm = k.norm(q, 0, DIM);
      report(k, "f32 cosine bulk", () -> k.cosineDistances(q, 0, norm, data, 0, ROWS, DIM, out, 0));
      report(
          k,
          "f16 l2 single",
          () -> {
            float s = 0;
            for (int i = 0; i < ROWS; i++) {
              s += k.squareDistanceF16(qHalf, 0, half, i * DIM, DIM);
            }
            sink = s;
          });
      report(
          k,
          "u8 l2 (SQ codes)",
          () -> {
            int s = 0;
            for (int i = 0; i < ROWS; i++) {
              s += k.squareDistanceU8(qBytes, 0, bytes, i * DIM, DIM);
            }
            sink = s;
          });
      report(
          k,
          "hamming 128 B",
          () -> {
            int s = 0;
            for (int i = 0; i < ROWS; i++) {
              s += k.hammingDistance(qBytes, 0, bytes, i * DIM, DIM);
            }
            sink = s;
          });
      float value = k.squareDistance(q, 0, data, 7 * DIM, DIM);
      if (!Float.isNaN(check) && Math.abs(value - check) > 1e-3f * check) {
        throw new AssertionError("implementations disagree: " + value + " vs " + check);
      }
      check = value;
    }
    // PQ ADC over transposed codes: m = 16 sub-vectors, 20,000 rows.
    float[] table = new float[16 * 256];
    for (int i = 0; i < table.length; i++) {
      table[i] = r.nextFloat();
    }
    byte[] codes = new byte[16 * ROWS];
    r.nextBytes(codes);
    report(
        null,
        "PQ ADC m=16 rows",
        () -> PqPartitionScorer.score(table, codes, 0, ROWS, 16, 0f, out));
  }

  private static void report(VectorKernels k, String what, Runnable op) {
    for (int i = 0; i < 200; i++) {
      op.run(); // warm-up so C2 compiles the loop
    }
    int reps = 0;
    long start = System.nanoTime();
    long elapsed;
    do {
      op.run();
      reps++;
      elapsed = System.nanoTime() - start;
    } while (elapsed < 1_000_000_000L);
    double perSecond = (double) reps * ROWS / (elapsed / 1e9);
    System.out.printf(
        "%-8s %-18s dim=%d: %,.0f per second%n", k == null ? "-" : k.name(), what, DIM, perSecond);
  }
}
