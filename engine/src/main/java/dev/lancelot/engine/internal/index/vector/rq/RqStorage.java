package dev.lancelot.engine.internal.index.vector.rq;

import dev.lancelot.engine.internal.index.vector.QueryScorer;
import dev.lancelot.engine.internal.index.vector.VectorStorage;
import dev.lancelot.engine.internal.index.vector.pq.PqPartitionScorer;
import dev.lancelot.engine.vector.DistanceMetric;

/**
 * One IVF_RQ partition: its RaBitQ codes (transposed, {@code codes[i × rows + row]}, see {@link
 * RqCodes}), the two factors Lance stores per row ({@code __add_factors}, {@code __scale_factors})
 * and the partition's centroid. Distances are Lance's residual-query estimate: with {@code q_r} the
 * rotated residual {@code q − c} (zero-padded to the code dimension {@code D}), {@code B} the sum
 * of {@code q_r} over a row's set bits and {@code S} the sum of all of {@code q_r},
 *
 * <pre>
 *   distance(row) = (2B − S) / √D × scale[row] + add[row] + f(q, c)
 * </pre>
 *
 * where {@code f} is {@code ‖q − c‖²} for l2, {@code ‖q − c‖² − 1} for cosine (on unit vectors) and
 * {@code −q·c} for dot, as Lance adds them (so cosine distances are Lance's too: l2 on unit vectors
 * minus one). {@code (2B − S)/√D} is the inner product of {@code q_r} with the row's unit code
 * vector {@code (2b − 1)/√D}; the stored factors turn it into an estimate of {@code ‖v − q‖²} (l2)
 * or {@code 1 − v·q} (dot). {@code B} is summed byte by byte through a 256-entry table per code
 * byte, as PQ's lookup tables.
 *
 * <p>Queries must already be prepared (normalized for cosine). Node-to-node distances do not exist
 * for RaBitQ codes (Lance builds no graph over them), so {@link #nodeScorer} and {@link
 * #distanceBetween} refuse. Immutable and thread-safe; takes ownership of the arrays.
 */
public final class RqStorage implements VectorStorage {
  private final RabitQuantizer quantizer;
  private final float[] centroid;
  private final byte[] codes;
  private final float[] add;
  private final float[] scale;
  private final int rows;
  private final int codeBytes;

  private RqStorage(
      RabitQuantizer quantizer, float[] centroid, byte[] codes, float[] add, float[] scale) {
    this.quantizer = quantizer;
    this.centroid = centroid;
    this.codes = codes;
    this.add = add;
    this.scale = scale;
    this.rows = add.length;
    this.codeBytes = quantizer.codeBytes();
    if (scale.length != rows || (long) rows * codeBytes != codes.length) {
      throw new IllegalArgumentException(
          rows
              + " add factors, "
              + scale.length
              + " scale factors, "
              + codes.length
              + " code bytes");
    }
    if (centroid.length != quantizer.dimension()) {
      throw new IllegalArgumentException(
          "centroid has " + centroid.length + " values, expected " + quantizer.dimension());
    }
  }

  /** A partition of {@code add.length} rows; {@code codes} transposed ({@link RqCodes}). */
  public static RqStorage of(
      RabitQuantizer quantizer, float[] centroid, byte[] codes, float[] add, float[] scale) {
    return new RqStorage(quantizer, centroid, codes, add, scale);
  }

  public RabitQuantizer quantizer() {
    return quantizer;
  }

  @Override
  public int size() {
    return rows;
  }

  @Override
  public int dimension() {
    return quantizer.dimension();
  }

  /** l2 for l2 and cosine indexes (on unit vectors), dot for dot. */
  @Override
  public DistanceMetric metric() {
    return quantizer.metric() == DistanceMetric.DOT ? DistanceMetric.DOT : DistanceMetric.L2;
  }

  /** Heap held by the codes and factors. */
  public long estimatedBytes() {
    return codes.length + 8L * rows + 4L * centroid.length;
  }

  @Override
  public QueryScorer scorer(float[] query) {
    int dim = quantizer.dimension();
    if (query.length != dim) {
      throw new IllegalArgumentException(
          "query has dimension " + query.length + ", storage has " + dim);
    }
    float[] qr = new float[codeBytes * 8];
    float queryFactor = 0f;
    for (int d = 0; d < dim; d++) {
      float r = query[d] - centroid[d];
      qr[d] = r;
      queryFactor += quantizer.metric() == DistanceMetric.DOT ? -query[d] * centroid[d] : r * r;
    }
    if (quantizer.metric() == DistanceMetric.COSINE) {
      queryFactor -= 1f;
    }
    quantizer.rotation().rotateInPlace(qr);
    float sum = 0f;
    for (int d = 0; d < quantizer.codeDim(); d++) {
      sum += qr[d];
    }
    return new Scorer(nibbleTables(qr), sum, queryFactor);
  }

  /**
   * Lance's distance table: for each 4-coordinate segment {@code s} of the rotated query, {@code
   * t[s × 16 + code]} = the sum of the segment's coordinates whose bit is set in {@code code}.
   */
  private float[] nibbleTables(float[] qr) {
    int segments = codeBytes * 2;
    float[] t = new float[segments * 16];
    for (int s = 0; s < segments; s++) {
      for (int code = 1; code < 16; code++) {
        t[s * 16 + code] =
            t[s * 16 + (code & (code - 1))] + qr[s * 4 + Integer.numberOfTrailingZeros(code)];
      }
    }
    return t;
  }

  /** Per code byte, {@code out[b × 256 + code]} = {@code t[2b][code & 15] + t[2b+1][code >> 4]}. */
  private float[] byteTables(float[] t) {
    float[] out = new float[codeBytes * 256];
    for (int b = 0; b < codeBytes; b++) {
      for (int code = 0; code < 256; code++) {
        out[b * 256 + code] = t[2 * b * 16 + (code & 15)] + t[(2 * b + 1) * 16 + (code >>> 4)];
      }
    }
    return out;
  }

  @Override
  public QueryScorer nodeScorer(int node) {
    throw new UnsupportedOperationException(
        "IVF_RQ codes have no node-to-node distance (no graph is built over RaBitQ codes)");
  }

  @Override
  public float distanceBetween(int a, int b) {
    throw new UnsupportedOperationException(
        "IVF_RQ codes have no node-to-node distance (no graph is built over RaBitQ codes)");
  }

  /**
   * Scores rows as Lance does: rows of the partition's full 32-row batches through the distance
   * table quantized to {@code u8} ({@code round((t − min) × 255 / (max − min))} over the whole
   * table, the sum mapped back as {@code Σq × (max − min)/255 + segments × min}), the rows after
   * the last full batch through the float table.
   */
  private final class Scorer implements QueryScorer {
    private final float[] exact;
    private final float[] quantized;
    private final float range;
    private final float sumMin;
    private final int batched = rows / RqCodes.BATCH * RqCodes.BATCH;
    private final float sum;
    private final float queryFactor;
    private final float invSqrtD = (float) (1.0 / Math.sqrt(quantizer.codeDim()));

    Scorer(float[] nibbles, float sum, float queryFactor) {
      this.exact = byteTables(nibbles);
      float min = Float.POSITIVE_INFINITY;
      float max = Float.NEGATIVE_INFINITY;
      for (float v : nibbles) {
        min = Math.min(min, v);
        max = Math.max(max, v);
      }
      float[] q = new float[nibbles.length];
      float factor = 255f / (max - min);
      if (max > min && Float.isFinite(factor)) {
        for (int i = 0; i < q.length; i++) {
          q[i] = Math.round((nibbles[i] - min) * factor);
        }
      }
      this.quantized = byteTables(q);
      this.range = (max - min) / 255f;
      this.sumMin = (nibbles.length >> 4) * min;
      this.sum = sum;
      this.queryFactor = queryFactor;
    }

    private float estimate(int row, float bitSum) {
      return (2f * bitSum - sum) * invSqrtD * scale[row] + add[row] + queryFactor;
    }

    @Override
    public float score(int node) {
      float bitSum =
          node < batched
              ? PqPartitionScorer.scoreOne(quantized, codes, 0, rows, codeBytes, 0f, node) * range
                  + sumMin
              : PqPartitionScorer.scoreOne(exact, codes, 0, rows, codeBytes, 0f, node);
      return estimate(node, bitSum);
    }

    @Override
    public void score(int[] nodes, int count, float[] out) {
      for (int i = 0; i < count; i++) {
        out[i] = score(nodes[i]);
      }
    }

    @Override
    public void scoreRange(int from, int count, float[] out) {
      int end = from + count;
      int split = Math.max(from, Math.min(end, batched));
      if (split > from) {
        PqPartitionScorer.score(quantized, codes, 0, rows, codeBytes, 0f, from, split - from, out);
        for (int i = 0; i < split - from; i++) {
          out[i] = estimate(from + i, out[i] * range + sumMin);
        }
      }
      if (end > split) {
        float[] tail = new float[end - split];
        PqPartitionScorer.score(exact, codes, 0, rows, codeBytes, 0f, split, end - split, tail);
        for (int i = 0; i < tail.length; i++) {
          out[split - from + i] = estimate(split + i, tail[i]);
        }
      }
    }
  }
}
