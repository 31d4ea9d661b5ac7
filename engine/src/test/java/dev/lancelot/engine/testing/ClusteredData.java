package dev.lancelot.engine.testing;

import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.lance.Dataset;
import org.lance.WriteParams;

/**
 * The standard table with vectors drawn from Gaussian clusters (seeded), as vector search tests and
 * benchmarks need: row {@code id} belongs to cluster {@code id % clusters}.
 */
public final class ClusteredData {
  private ClusteredData() {}

  public static float[][] centers(int clusters, int dim, long seed) {
    Random r = new Random(seed);
    float[][] c = new float[clusters][dim];
    for (float[] v : c) {
      for (int d = 0; d < dim; d++) {
        v[d] = (float) (r.nextGaussian() * 4);
      }
    }
    return c;
  }

  /** Standard rows whose vectors are cluster center + N(0, 1) noise. */
  public static VectorSchemaRoot generate(
      BufferAllocator allocator, long firstId, int rows, int dim, int clusters, long seed) {
    VectorSchemaRoot root = StandardData.generate(allocator, firstId, rows, dim, seed);
    float[][] centers = centers(clusters, dim, seed);
    Random r = new Random(seed * 31 + firstId);
    Float4Vector values =
        (Float4Vector) ((FixedSizeListVector) root.getVector("vector")).getDataVector();
    for (int i = 0; i < rows; i++) {
      float[] c = centers[(int) ((firstId + i) % clusters)];
      for (int d = 0; d < dim; d++) {
        values.set(i * dim + d, c[d] + (float) r.nextGaussian());
      }
    }
    return root;
  }

  public static void write(
      BufferAllocator allocator,
      Path dir,
      long firstId,
      int rows,
      int dim,
      int clusters,
      long seed,
      WriteParams.WriteMode mode,
      int maxRowsPerFile) {
    try (VectorSchemaRoot batch = generate(allocator, firstId, rows, dim, clusters, seed)) {
      Dataset.write()
          .allocator(allocator)
          .reader(ArrowStreams.readerOf(allocator, List.of(batch)))
          .uri(dir.toString())
          .mode(mode)
          .maxRowsPerFile(maxRowsPerFile)
          .execute()
          .close();
    }
  }

  /** Query vectors from the same distribution. */
  public static float[][] queries(int n, int dim, int clusters, long dataSeed, long querySeed) {
    float[][] centers = centers(clusters, dim, dataSeed);
    Random r = new Random(querySeed);
    float[][] q = new float[n][dim];
    for (int i = 0; i < n; i++) {
      float[] c = centers[r.nextInt(clusters)];
      for (int d = 0; d < dim; d++) {
        q[i][d] = c[d] + (float) r.nextGaussian();
      }
    }
    return q;
  }
}
