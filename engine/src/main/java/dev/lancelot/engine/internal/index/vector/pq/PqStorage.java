package dev.lancelot.engine.internal.index.vector.pq;

import dev.lancelot.engine.internal.index.vector.QueryScorer;
import dev.lancelot.engine.internal.index.vector.VectorStorage;
import dev.lancelot.engine.vector.DistanceMetric;

/**
 * One partition's PQ codes, transposed as Lance stores them ({@code __pq_code} in {@code
 * auxiliary.idx}, {@code codes[s * rows + row]}), with their codebook. Queries must be in code
 * space (see {@link PqCodebook#lookupTable(float[], int, float[])}). Node-to-node distances decode
 * both nodes and compare the approximations, as Lance's {@code dist_between}.
 *
 * <p>Takes ownership of the code array; callers must not modify it afterwards.
 */
public final class PqStorage implements VectorStorage {
  private final PqCodebook codebook;
  private final byte[] codes;
  private final int rows;
  private final int m;

  private PqStorage(PqCodebook codebook, byte[] transposedCodes, int rows) {
    this.codebook = codebook;
    this.m = codebook.numSubVectors();
    if ((long) rows * m != transposedCodes.length) {
      throw new IllegalArgumentException(
          "codes length " + transposedCodes.length + " is not " + rows + " × " + m);
    }
    this.codes = transposedCodes;
    this.rows = rows;
  }

  /** Wraps transposed codes ({@link PqCodes#transpose}) of {@code rows} rows. */
  public static PqStorage of(PqCodebook codebook, byte[] transposedCodes, int rows) {
    return new PqStorage(codebook, transposedCodes, rows);
  }

  public PqCodebook codebook() {
    return codebook;
  }

  @Override
  public int size() {
    return rows;
  }

  @Override
  public int dimension() {
    return codebook.dimension();
  }

  @Override
  public DistanceMetric metric() {
    return codebook.tableMetric();
  }

  /** Code of sub-vector {@code s} of {@code row}. */
  public int code(int row, int s) {
    return codes[s * rows + row] & 0xFF;
  }

  @Override
  public QueryScorer scorer(float[] query) {
    return new Scorer(codebook.lookupTable(query));
  }

  @Override
  public QueryScorer nodeScorer(int node) {
    float[] decoded = new float[codebook.dimension()];
    codebook.decode(codes, node, rows, decoded, 0);
    return scorer(decoded);
  }

  @Override
  public float distanceBetween(int a, int b) {
    int dim = codebook.dimension();
    float[] x = new float[dim];
    float[] y = new float[dim];
    codebook.decode(codes, a, rows, x, 0);
    codebook.decode(codes, b, rows, y, 0);
    return codebook.tableMetric().distance(x, 0, y, 0, dim);
  }

  private final class Scorer implements QueryScorer {
    private final float[] table;
    private final float correction = codebook.tableCorrection();

    Scorer(float[] table) {
      this.table = table;
    }

    @Override
    public float score(int node) {
      return PqPartitionScorer.scoreOne(table, codes, 0, rows, m, correction, node);
    }

    @Override
    public void score(int[] nodes, int count, float[] out) {
      for (int i = 0; i < count; i++) {
        out[i] = PqPartitionScorer.scoreOne(table, codes, 0, rows, m, correction, nodes[i]);
      }
    }

    @Override
    public void scoreRange(int from, int count, float[] out) {
      PqPartitionScorer.score(table, codes, 0, rows, m, correction, from, count, out);
    }
  }
}
