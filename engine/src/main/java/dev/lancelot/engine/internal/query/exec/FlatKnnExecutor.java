package dev.lancelot.engine.internal.query.exec;

import dev.lancelot.engine.CloseableIterator;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.ScanTask;
import dev.lancelot.engine.Scanner;
import dev.lancelot.engine.internal.DatasetInternals;
import dev.lancelot.engine.internal.file.VectorPages;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFragment;
import dev.lancelot.engine.internal.index.vector.SearchResult;
import dev.lancelot.engine.internal.index.vector.TopKCollector;
import dev.lancelot.engine.internal.query.plan.FlatUnit;
import dev.lancelot.engine.internal.scan.FragmentReader;
import dev.lancelot.engine.internal.scan.RowAddress;
import dev.lancelot.engine.internal.scan.ScanSpec;
import dev.lancelot.engine.query.UnitStats;
import dev.lancelot.engine.vector.DistanceMetric;
import dev.lancelot.engine.vector.ElementType;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.FutureTask;
import java.util.function.IntPredicate;
import java.util.function.IntToLongFunction;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.roaringbitmap.RoaringBitmap;

/**
 * Exact KNN over a unit's fragments (SPEC Q9–Q11): streams the vector column (plus the filter's
 * columns for a prefilter; deleted rows skipped by the scan), computes exact distances for every
 * query vector and keeps the best {@code limit} per query (ties by row address).
 *
 * <p>Vectors in full-zip and mini-block pages of 2.1 files are scored straight from the pages
 * ({@link VectorPages}, decisions D25 and D40), without Arrow vectors: every row of the range
 * without a filter; with a prefilter, only the rows it admits (found by a scan of the filter's
 * columns, {@link PrefilterMask#admittedOffsets}). Everything else (2.0 files, all-null pages) goes
 * through the Arrow scan. Both feed the same kernel the same elements, so they answer bit for bit
 * alike.
 *
 * <p>Given an {@link Executor} (the local executor's pool), a unit of many rows is cut into row
 * ranges scanned in parallel; the calling thread scans ranges too and takes back any range no other
 * thread has started, so waiting on the pool cannot deadlock. Results do not depend on the split:
 * the best {@code limit} rows are kept by the same total order.
 */
public final class FlatKnnExecutor {
  /** Fewest rows worth a range of their own (smaller units are scanned by one thread). */
  static final long MIN_ROWS_PER_RANGE = 8192;

  private FlatKnnExecutor() {}

  public static UnitResult run(
      Dataset dataset, FlatUnit unit, String column, float[][] queries, Float lower, Float upper) {
    return run(dataset, unit, column, queries, lower, upper, null, 1);
  }

  /**
   * Runs the unit with up to {@code parallelism} row ranges scanned at once on {@code pool} (null:
   * on the calling thread only).
   */
  public static UnitResult run(
      Dataset dataset,
      FlatUnit unit,
      String column,
      float[][] queries,
      Float lower,
      Float upper,
      Executor pool,
      int parallelism) {
    return run(dataset, unit, column, queries, lower, upper, pool, parallelism, true);
  }

  /**
   * As {@link #run(Dataset, FlatUnit, String, float[][], Float, Float, Executor, int)}; {@code
   * directReads} false sends every row through the Arrow scan (tests compare the two paths).
   */
  static UnitResult run(
      Dataset dataset,
      FlatUnit unit,
      String column,
      float[][] queries,
      Float lower,
      Float upper,
      Executor pool,
      int parallelism,
      boolean directReads) {
    long start = System.nanoTime();
    Scanner scanner =
        dataset
            .newScan()
            .columns(column)
            .filter(unit.filter())
            .withRowAddress(true)
            .fragments(unit.fragments());
    List<ScanTask> whole = scanner.planTasks(Long.MAX_VALUE);
    long rows = whole.stream().mapToLong(ScanTask::physicalRows).sum();
    int parts =
        pool == null ? 1 : (int) Math.max(1, Math.min(parallelism, rows / MIN_ROWS_PER_RANGE));
    List<ScanTask> tasks = parts == 1 ? whole : scanner.planTasks((rows + parts - 1) / parts);
    Part total;
    if (tasks.size() <= 1 || parts == 1) {
      total = scan(dataset, scanner, tasks, unit, column, queries, lower, upper, directReads);
    } else {
      List<FutureTask<Part>> work = new ArrayList<>(tasks.size());
      for (ScanTask t : tasks) {
        work.add(
            new FutureTask<>(
                () ->
                    scan(
                        dataset,
                        scanner,
                        List.of(t),
                        unit,
                        column,
                        queries,
                        lower,
                        upper,
                        directReads)));
      }
      // the first range stays here; the others are offered to the pool
      for (int i = 1; i < work.size(); i++) {
        pool.execute(work.get(i));
      }
      total = new Part(unit.limit(), queries.length);
      for (Part p : Futures.collect(work, true, "Flat vector search")) {
        total.add(p);
      }
    }
    List<Candidates> perQuery = new ArrayList<>(queries.length);
    long candidates = 0;
    for (TopKCollector c : total.top) {
      SearchResult r = c.result();
      perQuery.add(Candidates.exact(r.ids(), r.distances()));
      candidates += r.size();
    }
    UnitStats stats =
        new UnitStats(
            unit.id(),
            0,
            total.rows,
            total.distances,
            candidates,
            System.nanoTime() - start,
            null,
            0);
    return new UnitResult(unit.id(), perQuery, stats);
  }

  /** The best rows per query of some row ranges, with counters. */
  private static final class Part {
    final TopKCollector[] top;
    long rows;
    long distances;

    Part(int limit, int queries) {
      top = new TopKCollector[queries];
      for (int i = 0; i < queries; i++) {
        top[i] = new TopKCollector(limit);
      }
    }

    void add(Part other) {
      for (int q = 0; q < top.length; q++) {
        SearchResult r = other.top[q].result();
        for (int i = 0; i < r.size(); i++) {
          top[q].collect(r.ids()[i], r.distances()[i]);
        }
      }
      rows += other.rows;
      distances += other.distances;
    }
  }

  /** Rows of vectors scored at a time by the direct path: their elements stay in cache. */
  static int chunkRows(int dim, ElementType element) {
    return Math.max(16, CHUNK_BYTES / (dim * element.byteWidth()));
  }

  private static final int CHUNK_BYTES = 128 * 1024;

  private static Part scan(
      Dataset dataset,
      Scanner scanner,
      List<ScanTask> tasks,
      FlatUnit unit,
      String column,
      float[][] queries,
      Float lower,
      Float upper,
      boolean directReads) {
    Part part = new Part(unit.limit(), queries.length);
    GenericScan generic = null;
    for (ScanTask task : tasks) {
      if (directReads && scanPlain(dataset, task, unit, column, queries, lower, upper, part)) {
        continue;
      }
      if (generic == null) {
        generic = new GenericScan();
      }
      generic.scan(scanner, task, unit.metric(), column, queries, lower, upper, part);
    }
    return part;
  }

  /**
   * Scores a task's rows straight from the pages of its fragment's data file when they can be read
   * so ({@link VectorPages}: one copy from the file's bytes, or from the decoded values, into a
   * cache-sized array, no Arrow vectors); returns false, having read nothing, when they cannot.
   * Deleted and null rows are skipped as the scan skips them, so the result equals the generic
   * path's. With a prefilter only the admitted rows are read.
   */
  private static boolean scanPlain(
      Dataset dataset,
      ScanTask task,
      FlatUnit unit,
      String column,
      float[][] queries,
      Float lower,
      Float upper,
      Part part) {
    DataFragment fragment =
        DatasetInternals.snapshot(dataset).fragment(task.fragmentId()).orElse(null);
    if (fragment == null) {
      return false; // the generic scan reports it
    }
    try (FragmentReader reader = DatasetInternals.openFragment(dataset, fragment)) {
      VectorPages pages = reader.vectorPages(dataset.field(column));
      if (pages == null) {
        return false;
      }
      Scoring scoring =
          new Scoring(
              unit.metric(), queries, lower, upper, part, pages.dimension(), pages.element());
      long fragmentId = task.fragmentId();
      if (unit.filter() != null) {
        RoaringBitmap admitted = PrefilterMask.admittedOffsets(dataset, unit.filter(), task);
        long[] rows = new long[(int) Math.min(ROWS_PER_READ, admitted.getLongCardinality())];
        int[] batch = new int[rows.length];
        var it = admitted.getBatchIterator();
        while (it.hasNext()) {
          int count = it.nextBatch(batch);
          for (int i = 0; i < count; i++) {
            rows[i] = Integer.toUnsignedLong(batch[i]);
          }
          pages.scanRows(
              rows,
              count,
              scoring.chunkRows(),
              (from, n, chunk) -> {
                part.rows += n;
                scoring.score(chunk, n, null, r -> RowAddress.of(fragmentId, rows[from + r]), n);
              });
        }
        return true;
      }
      RoaringBitmap deleted = DatasetInternals.deletedRows(dataset, fragment);
      boolean deletions = !deleted.isEmpty();
      pages.scan(
          task.startRow(),
          task.endRow(),
          scoring.chunkRows(),
          (firstRow, n, chunk) -> {
            long live = n - (deletions ? deleted.rangeCardinality(firstRow, firstRow + n) : 0);
            part.rows += live;
            scoring.score(
                chunk,
                n,
                deletions ? r -> deleted.contains((int) (firstRow + r)) : null,
                r -> RowAddress.of(fragmentId, firstRow + r),
                live);
          });
      return true;
    }
  }

  /** Admitted rows handed to one {@link VectorPages#scanRows} call. */
  private static final int ROWS_PER_READ = 64 * 1024;

  /** Scores chunks of vectors into a part's collectors, with the element type's kernel. */
  private static final class Scoring {
    private final ChunkQuery[] queries;
    private final Float lower;
    private final Float upper;
    private final Part part;
    private final int dim;
    private final ElementType element;
    private final float[] dist;

    Scoring(
        DistanceMetric metric,
        float[][] queries,
        Float lower,
        Float upper,
        Part part,
        int dim,
        ElementType element) {
      this.queries = new ChunkQuery[queries.length];
      for (int i = 0; i < queries.length; i++) {
        this.queries[i] = new ChunkQuery(metric, element, queries[i]);
      }
      this.lower = lower;
      this.upper = upper;
      this.part = part;
      this.dim = dim;
      this.element = element;
      this.dist = new float[chunkRows()];
    }

    int chunkRows() {
      return FlatKnnExecutor.chunkRows(dim, element);
    }

    /**
     * Scores vectors {@code [0, n)} of a chunk: {@code deleted} (null: none) tells which rows to
     * skip, {@code addresses} gives a row's address; {@code live} rows count as distances computed.
     */
    void score(
        VectorPages.Chunk chunk,
        int n,
        IntPredicate deleted,
        IntToLongFunction addresses,
        long live) {
      boolean[] nulls = chunk.nulls();
      for (int qi = 0; qi < queries.length; qi++) {
        queries[qi].distances(chunk, n, dist);
        part.distances += live;
        TopKCollector c = part.top[qi];
        float worst = c.worstDistance();
        for (int r = 0; r < n; r++) {
          float d = dist[r];
          // as the generic scan: cheap rejection first (NaN fails too)
          if (!(d <= worst)
              || (lower != null && d < lower)
              || (upper != null && d >= upper)
              || (nulls != null && nulls[r])
              || (deleted != null && deleted.test(r))) {
            continue;
          }
          if (c.collect(addresses.applyAsLong(r), d)) {
            worst = c.worstDistance();
          }
        }
      }
    }
  }

  /** The scan through Arrow batches, for any vector element type, filter and encoding. */
  private static final class GenericScan {
    private final VectorBlocks blocks = new VectorBlocks();
    private float[] dist = new float[0];

    void scan(
        Scanner scanner,
        ScanTask task,
        DistanceMetric metric,
        String column,
        float[][] queries,
        Float lower,
        Float upper,
        Part part) {
      int dim = queries[0].length;
      try (CloseableIterator<VectorSchemaRoot> it = scanner.execute(task)) {
        while (it.hasNext()) {
          VectorSchemaRoot batch = it.next();
          int n = batch.getRowCount();
          FixedSizeListVector vectors = (FixedSizeListVector) batch.getVector(column);
          UInt8Vector addresses = (UInt8Vector) batch.getVector(ScanSpec.ROW_ADDRESS);
          int kind = blocks.load(vectors);
          if (dist.length < n) {
            dist = new float[n];
          }
          part.rows += n;
          for (int qi = 0; qi < queries.length; qi++) {
            blocks.distances(metric, kind, queries[qi], n, dim, dist);
            part.distances += n;
            TopKCollector c = part.top[qi];
            float worst = c.worstDistance();
            for (int r = 0; r < n; r++) {
              float d = dist[r];
              // cheap rejection first: most rows of a large scan cannot enter the top k (NaN fails
              // too)
              if (!(d <= worst)
                  || (lower != null && d < lower)
                  || (upper != null && d >= upper)
                  || vectors.isNull(r)) {
                continue;
              }
              if (c.collect(addresses.get(r), d)) {
                worst = c.worstDistance();
              }
            }
          }
        }
      }
    }
  }
}
