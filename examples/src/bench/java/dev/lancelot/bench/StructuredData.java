package dev.lancelot.bench;

import static dev.lancelot.bench.VectorBenchData.log;

import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;

/**
 * The {@code structured-<n>} benchmark data: 128-dimensional vectors with the local structure of
 * real embeddings, unlike {@code synthetic-200k}, whose isotropic, well separated clusters put
 * every query's true neighbours in one IVF partition (its IVF_PQ recall is the same at every
 * nprobes).
 *
 * <p>A two-level hierarchy: {@value #TOPICS} topics, each living in its own random {@value
 * #INTRINSIC}-dimensional subspace of R^128 (an orthonormal basis {@code B_t}), with {@value
 * #SUBTOPICS} sub-topic centres inside it. A row is {@code topic centre + B_t (z_s + w) + e}:
 * {@code z_s ~ N(0, 0.7²)} places its sub-topic, {@code w ~ N(0, 1)} its spread around the
 * sub-topic, both in the topic's subspace, and {@code e ~ N(0, 0.15²)} per coordinate is
 * full-dimensional noise. Sub-topics overlap, so a topic is one continuous, locally low-dimensional
 * region that k-means cuts into many partitions, and a query's neighbours straddle partition
 * borders: recall grows with nprobes as on real data. Topic centres are N(0, 1) per coordinate;
 * topics and sub-topics are drawn uniformly.
 *
 * <p>Queries (10,000) come from the same distribution with another seed, so none is a base row.
 * Tenant ids are skewed as in {@code synthetic-200k}. Everything is seeded: a given row count
 * always gives the same rows, and the rows of a smaller set are not a prefix of a larger one's.
 */
final class StructuredData {
  static final int DIM = 128;
  static final int TOPICS = 8;
  static final int SUBTOPICS = 128;
  static final int INTRINSIC = 32;
  static final double SUBTOPIC_SPREAD = 0.7;
  static final double POINT_SPREAD = 1.0;
  static final double NOISE = 0.15;
  static final long MODEL_SEED = 20261203L;
  static final long ROW_SEED = 1L;
  static final long QUERY_SEED = 2L;
  static final int QUERIES = 10_000;

  private final float[][] topicCentres = new float[TOPICS][DIM];
  private final float[][][] bases = new float[TOPICS][INTRINSIC][DIM]; // orthonormal rows
  private final float[][][] subtopics =
      new float[TOPICS][SUBTOPICS][INTRINSIC]; // in subspace coordinates

  StructuredData() {
    Random r = new Random(MODEL_SEED);
    for (int t = 0; t < TOPICS; t++) {
      for (int d = 0; d < DIM; d++) {
        topicCentres[t][d] = (float) r.nextGaussian();
      }
      orthonormalBasis(r, bases[t]);
      for (float[] z : subtopics[t]) {
        for (int i = 0; i < INTRINSIC; i++) {
          z[i] = (float) (r.nextGaussian() * SUBTOPIC_SPREAD);
        }
      }
    }
  }

  /** Gram-Schmidt on Gaussian rows. */
  private static void orthonormalBasis(Random r, float[][] basis) {
    for (int i = 0; i < basis.length; i++) {
      double[] v = new double[DIM];
      for (int d = 0; d < DIM; d++) {
        v[d] = r.nextGaussian();
      }
      for (int j = 0; j < i; j++) {
        double dot = 0;
        for (int d = 0; d < DIM; d++) {
          dot += v[d] * basis[j][d];
        }
        for (int d = 0; d < DIM; d++) {
          v[d] -= dot * basis[j][d];
        }
      }
      double n = 0;
      for (double x : v) {
        n += x * x;
      }
      n = Math.sqrt(n);
      for (int d = 0; d < DIM; d++) {
        basis[i][d] = (float) (v[d] / n);
      }
    }
  }

  /** Draws one vector from {@code r} into {@code out[off .. off + DIM)}. */
  void sample(Random r, float[] out, int off) {
    int t = r.nextInt(TOPICS);
    float[] z = subtopics[t][r.nextInt(SUBTOPICS)];
    float[] c = topicCentres[t];
    for (int d = 0; d < DIM; d++) {
      out[off + d] = c[d] + (float) (r.nextGaussian() * NOISE);
    }
    for (int i = 0; i < INTRINSIC; i++) {
      float coef = z[i] + (float) (r.nextGaussian() * POINT_SPREAD);
      float[] b = bases[t][i];
      for (int d = 0; d < DIM; d++) {
        out[off + d] += coef * b[d];
      }
    }
  }

  /**
   * Generates {@code rows} rows and the queries and caches them under {@code dir} ({@link
   * DataSets}).
   */
  static void generate(Path dir, int rows) throws IOException {
    long t0 = System.nanoTime();
    StructuredData model = new StructuredData();
    float[] vectors = new float[Math.multiplyExact(rows, DIM)];
    int[] tenants = new int[rows];
    Random r = new Random(ROW_SEED);
    Random tr = new Random(ROW_SEED + 1000);
    for (int i = 0; i < rows; i++) {
      model.sample(r, vectors, i * DIM);
      tenants[i] = (int) Math.min(99, Math.floor(Math.pow(tr.nextDouble(), 3) * 100));
    }
    Random qr = new Random(QUERY_SEED);
    float[][] queries = new float[QUERIES][DIM];
    for (float[] q : queries) {
      model.sample(qr, q, 0);
    }
    log(
        String.format(
            "generated structured data: %,d rows and %,d queries in %.1f s",
            rows, QUERIES, (System.nanoTime() - t0) / 1e9));
    Map<String, String> m = new LinkedHashMap<>();
    m.put("name", "structured-" + rows);
    m.put(
        "source",
        "synthetic, StructuredData: "
            + TOPICS
            + " topics x "
            + SUBTOPICS
            + " sub-topics, each topic in a "
            + INTRINSIC
            + "-dim subspace (sub-topic sd "
            + SUBTOPIC_SPREAD
            + ", point sd "
            + POINT_SPREAD
            + "), noise sd "
            + NOISE
            + " per coordinate");
    m.put("rows", Integer.toString(rows));
    m.put("queries", Integer.toString(QUERIES));
    m.put("dim", Integer.toString(DIM));
    m.put("metric", "l2");
    m.put("seeds", "model " + MODEL_SEED + ", rows " + ROW_SEED + ", queries " + QUERY_SEED);
    DataSets.write(dir, DIM, vectors, tenants, queries, m);
  }
}
