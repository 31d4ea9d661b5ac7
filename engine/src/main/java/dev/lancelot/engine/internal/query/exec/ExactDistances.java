package dev.lancelot.engine.internal.query.exec;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.internal.DatasetInternals;
import dev.lancelot.engine.internal.file.VectorPages;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFragment;
import dev.lancelot.engine.internal.scan.FragmentReader;
import dev.lancelot.engine.internal.scan.RowAddress;
import dev.lancelot.engine.vector.DistanceMetric;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;

/**
 * Exact distances between a query vector and given rows, from the original vectors: the re-rank of
 * ANN candidates (SPEC Q6, Q9) and the rows of a prefilter admitting at most k (Q7).
 *
 * <p>Rows of a fragment whose vectors can be read straight from the pages are ({@link
 * VectorPages#scanRows}, decision D40); the other rows are taken through Arrow. Both give the
 * kernel the same elements, so the distances are the same bit for bit.
 */
final class ExactDistances {
  private ExactDistances() {}

  /**
   * The exact distance of each of {@code rows} (addresses of live rows, in any order) to {@code q}.
   */
  static float[] of(Dataset dataset, String column, DistanceMetric metric, float[] q, long[] rows) {
    return of(dataset, column, metric, q, rows, true);
  }

  /** As {@link #of}; {@code directReads} false takes every row through Arrow (for tests). */
  static float[] of(
      Dataset dataset,
      String column,
      DistanceMetric metric,
      float[] q,
      long[] rows,
      boolean directReads) {
    if (!directReads || rows.length == 0) {
      return viaArrow(dataset, column, metric, q, rows);
    }
    long[] sorted = Arrays.stream(rows).sorted().distinct().toArray();
    float[] sortedDistances = new float[sorted.length];
    long[] rest = new long[sorted.length];
    int restCount = 0;
    int from = 0;
    while (from < sorted.length) {
      long fragmentId = RowAddress.fragment(sorted[from]);
      int to = from + 1;
      while (to < sorted.length && RowAddress.fragment(sorted[to]) == fragmentId) {
        to++;
      }
      if (!readDirectly(dataset, column, metric, q, sorted, from, to, sortedDistances)) {
        System.arraycopy(sorted, from, rest, restCount, to - from);
        restCount += to - from;
      }
      from = to;
    }
    if (restCount > 0) {
      long[] taken = Arrays.copyOf(rest, restCount);
      float[] d = viaArrow(dataset, column, metric, q, taken);
      for (int i = 0; i < taken.length; i++) {
        sortedDistances[Arrays.binarySearch(sorted, taken[i])] = d[i];
      }
    }
    float[] out = new float[rows.length];
    for (int i = 0; i < rows.length; i++) {
      out[i] = sortedDistances[Arrays.binarySearch(sorted, rows[i])];
    }
    return out;
  }

  /**
   * Distances of {@code sorted[from, to)} (rows of one fragment) into {@code out} at the same
   * positions, read from the pages; false, having read nothing, when they cannot be read so.
   */
  private static boolean readDirectly(
      Dataset dataset,
      String column,
      DistanceMetric metric,
      float[] q,
      long[] sorted,
      int from,
      int to,
      float[] out) {
    DataFragment fragment =
        DatasetInternals.snapshot(dataset).fragment(RowAddress.fragment(sorted[from])).orElse(null);
    if (fragment == null) {
      return false; // the Arrow take reports it
    }
    try (FragmentReader reader = DatasetInternals.openFragment(dataset, fragment)) {
      VectorPages pages = reader.vectorPages(dataset.field(column));
      if (pages == null) {
        return false;
      }
      ChunkQuery query = new ChunkQuery(metric, pages.element(), q);
      long[] offsets = new long[to - from];
      for (int i = 0; i < offsets.length; i++) {
        offsets[i] = RowAddress.offset(sorted[from + i]);
      }
      int chunkRows = FlatKnnExecutor.chunkRows(pages.dimension(), pages.element());
      float[] dist = new float[chunkRows];
      pages.scanRows(
          offsets,
          offsets.length,
          chunkRows,
          (first, n, chunk) -> {
            query.distances(chunk, n, dist);
            System.arraycopy(dist, 0, out, from + first, n);
          });
      return true;
    }
  }

  private static float[] viaArrow(
      Dataset dataset, String column, DistanceMetric metric, float[] q, long[] rows) {
    float[] exact = new float[rows.length];
    try (VectorSchemaRoot vectors = dataset.take(rows, List.of(column))) {
      FixedSizeListVector fsl = (FixedSizeListVector) vectors.getVector(0);
      int dim = fsl.getListSize();
      VectorBlocks blocks = new VectorBlocks();
      int kind = blocks.load(fsl);
      blocks.distances(metric, kind, q, rows.length, dim, exact);
    }
    return exact;
  }
}
