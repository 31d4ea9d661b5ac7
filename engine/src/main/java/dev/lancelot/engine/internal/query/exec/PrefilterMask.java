package dev.lancelot.engine.internal.query.exec;

import dev.lancelot.engine.CloseableIterator;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.ScanTask;
import dev.lancelot.engine.Scanner;
import dev.lancelot.engine.expr.BoundPredicate;
import dev.lancelot.engine.internal.DatasetInternals;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFragment;
import dev.lancelot.engine.internal.index.vector.SortedRowFilter;
import dev.lancelot.engine.internal.scan.RowAddress;
import dev.lancelot.engine.internal.scan.ScanSpec;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.roaringbitmap.RoaringBitmap;

/**
 * The rows an ANN unit may return, per fragment: live rows (not deleted, fragment still present)
 * that pass the prefilter, if any (SPEC Q7, Q9). Built by a scan reading only the filter's columns,
 * or from a scalar index answer. Immutable once built; {@link #accepts(long)} is thread-safe.
 */
public final class PrefilterMask implements SortedRowFilter {
  private final Map<Long, RoaringBitmap> allowed;

  /**
   * The same bitmaps indexed by fragment id (ids below {@value #DENSE_LIMIT}), for per-row checks.
   */
  private final RoaringBitmap[] dense;

  private static final long DENSE_LIMIT = 1 << 20;
  private final long cardinality;
  private final String source;

  /** {@link #rowAddresses()}, computed on first use (racy but idempotent: the same array). */
  private volatile long[] ascending;

  private PrefilterMask(Map<Long, RoaringBitmap> allowed, String source) {
    this.allowed = allowed;
    long n = 0;
    for (RoaringBitmap b : allowed.values()) {
      n += b.getLongCardinality();
    }
    this.cardinality = n;
    this.source = source;
    long max = allowed.keySet().stream().mapToLong(Long::longValue).max().orElse(-1);
    if (max < DENSE_LIMIT && allowed.keySet().stream().allMatch(id -> id >= 0)) {
      dense = new RoaringBitmap[(int) max + 1];
      allowed.forEach((id, rows) -> dense[id.intValue()] = rows);
    } else {
      dense = null;
    }
  }

  /** Live rows of the fragments, without a filter. */
  public static PrefilterMask liveRows(Dataset dataset, List<Long> fragments) {
    Map<Long, RoaringBitmap> out = new HashMap<>();
    for (long id : fragments) {
      DataFragment f = DatasetInternals.snapshot(dataset).fragment(id).orElse(null);
      if (f == null) {
        continue;
      }
      RoaringBitmap live = new RoaringBitmap();
      live.add(0L, f.getPhysicalRows());
      live.andNot(DatasetInternals.deletedRows(dataset, f));
      out.put(id, live);
    }
    return new PrefilterMask(out, "deletions");
  }

  /** Live rows matching {@code filter}, found by scanning only the filter's columns. */
  public static PrefilterMask scan(Dataset dataset, BoundPredicate filter, List<Long> fragments) {
    Map<Long, RoaringBitmap> out = new HashMap<>();
    for (long id : fragments) {
      out.put(id, new RoaringBitmap());
    }
    try (CloseableIterator<VectorSchemaRoot> it =
        filterScan(dataset, filter, fragments).batches()) {
      addRows(it, out);
    }
    return new PrefilterMask(out, "scan");
  }

  /**
   * The offsets of the live rows of {@code task}'s row range matching {@code filter}, found by
   * scanning only the filter's columns (a filtered flat unit's rows, scored from page bytes).
   */
  static RoaringBitmap admittedOffsets(Dataset dataset, BoundPredicate filter, ScanTask task) {
    Map<Long, RoaringBitmap> out = new HashMap<>();
    out.put(task.fragmentId(), new RoaringBitmap());
    try (CloseableIterator<VectorSchemaRoot> it =
        filterScan(dataset, filter, List.of(task.fragmentId())).execute(task)) {
      addRows(it, out);
    }
    return out.get(task.fragmentId());
  }

  private static Scanner filterScan(Dataset dataset, BoundPredicate filter, List<Long> fragments) {
    return dataset
        .newScan()
        .columns(List.of())
        .filter(filter)
        .withRowAddress(true)
        .fragments(fragments);
  }

  /**
   * Adds the batches' row addresses to their fragments' bitmaps, a run of consecutive rows at once.
   */
  private static void addRows(
      CloseableIterator<VectorSchemaRoot> batches, Map<Long, RoaringBitmap> out) {
    while (batches.hasNext()) {
      VectorSchemaRoot batch = batches.next();
      UInt8Vector addresses = (UInt8Vector) batch.getVector(ScanSpec.ROW_ADDRESS);
      int n = batch.getRowCount();
      int i = 0;
      while (i < n) {
        long first = addresses.get(i);
        int j = i + 1;
        while (j < n && addresses.get(j) == first + (j - i)) {
          j++;
        }
        // a run never crosses into another fragment: offsets are below 2^32
        long offset = RowAddress.offset(first);
        out.get(RowAddress.fragment(first)).add(offset, offset + (j - i));
        i = j;
      }
    }
  }

  /** A scalar index answer (which may include deleted rows) restricted to live rows. */
  public static PrefilterMask fromIndexAnswer(
      Dataset dataset, Map<Long, RoaringBitmap> answer, List<Long> fragments, String indexName) {
    PrefilterMask live = liveRows(dataset, fragments);
    Map<Long, RoaringBitmap> out = new HashMap<>();
    live.allowed.forEach(
        (id, rows) -> {
          RoaringBitmap hit = answer.get(id);
          out.put(id, hit == null ? new RoaringBitmap() : RoaringBitmap.and(rows, hit));
        });
    return new PrefilterMask(out, "scalar index " + indexName);
  }

  @Override
  public boolean test(long rowAddress) {
    return accepts(rowAddress);
  }

  @Override
  public long[] rowsAscending() {
    long[] rows = ascending;
    if (rows == null) {
      rows = rowAddresses();
      ascending = rows;
    }
    return rows;
  }

  public boolean accepts(long rowAddress) {
    long fragment = RowAddress.fragment(rowAddress);
    if (dense != null) {
      RoaringBitmap rows = fragment < dense.length ? dense[(int) fragment] : null;
      return rows != null && rows.contains(RowAddress.offset(rowAddress));
    }
    RoaringBitmap rows = allowed.get(fragment);
    return rows != null && rows.contains(RowAddress.offset(rowAddress));
  }

  /** Number of rows the mask admits. */
  @Override
  public long cardinality() {
    return cardinality;
  }

  /** Every admitted row address, ascending. */
  public long[] rowAddresses() {
    long[] out = new long[Math.toIntExact(cardinality)];
    int i = 0;
    for (Map.Entry<Long, RoaringBitmap> e : new java.util.TreeMap<>(allowed).entrySet()) {
      for (int offset : e.getValue()) {
        out[i++] = RowAddress.of(e.getKey(), Integer.toUnsignedLong(offset));
      }
    }
    return out;
  }

  public String source() {
    return source;
  }
}
