package dev.lancelot.spark.write;

import dev.lancelot.engine.FragmentMetadata;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.write.DeltaWriter;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.roaringbitmap.RoaringBitmap;

/**
 * One row-level task: deleted rows are collected by address (fragment id to offsets), new rows
 * (inserts, and the new version of each updated row) are written to data files as an append task
 * writes them, opened on the first such row; each new version of an updated row is marked with the
 * address of the row it replaces (so it keeps a stable row id). Nothing is visible until the driver
 * commits.
 */
final class LanceDeltaWriter implements DeltaWriter<InternalRow> {
  private final Supplier<LanceDataWriter> opener;
  private final Map<Long, RoaringBitmap> deletes = new HashMap<>();
  private LanceDataWriter rows;
  private long[] sources = new long[0];
  private int written;
  private boolean replacing;

  LanceDeltaWriter(Supplier<LanceDataWriter> opener) {
    this.opener = opener;
  }

  /** {@code id} is the row id Spark asked for: one column, {@code _rowaddr}. */
  @Override
  public void delete(InternalRow metadata, InternalRow id) {
    long address = id.getLong(0);
    deletes.computeIfAbsent(address >>> 32, f -> new RoaringBitmap()).add((int) address);
  }

  /**
   * The new version of the row at address {@code id}: on a dataset with stable row ids it keeps
   * that row's id (decision D56).
   */
  @Override
  public void update(InternalRow metadata, InternalRow id, InternalRow row) {
    delete(metadata, id);
    write(row, id.getLong(0));
    replacing = true;
  }

  // DeltaWriter.reinsert exists from Spark 4.0 on; the 3.5 line compiles this class too (D53).
  @SuppressWarnings("MissingOverride")
  public void reinsert(InternalRow metadata, InternalRow row) {
    insert(row);
  }

  @Override
  public void insert(InternalRow row) {
    write(row, FragmentMetadata.NEW_ROW);
  }

  /** Writes a new row, recording the address of the row it replaces (or NEW_ROW). */
  private void write(InternalRow row, long source) {
    if (rows == null) {
      rows = opener.get();
    }
    rows.write(row);
    if (written == sources.length) {
      sources = Arrays.copyOf(sources, Math.max(1024, sources.length * 2));
    }
    sources[written++] = source;
  }

  @Override
  public WriterCommitMessage commit() {
    List<FragmentMetadata> fragments =
        rows == null ? List.of() : ((LanceCommitMessage) rows.commit()).fragments();
    if (replacing) {
      // the fragments hold the rows in the order written
      List<FragmentMetadata> marked = new ArrayList<>(fragments.size());
      int from = 0;
      for (FragmentMetadata f : fragments) {
        int to = Math.toIntExact(from + f.physicalRows());
        if (to > written) {
          throw new IllegalStateException(
              "the task's fragments hold more rows than the " + written + " it wrote");
        }
        marked.add(f.withSourceRows(Arrays.copyOfRange(sources, from, to)));
        from = to;
      }
      if (from != written) {
        throw new IllegalStateException(
            "the task wrote " + written + " rows but its fragments hold " + from);
      }
      fragments = marked;
    }
    return new LanceDeltaCommitMessage(fragments, deletes);
  }

  @Override
  public CustomTaskMetric[] currentMetricsValues() {
    return rows == null ? new CustomTaskMetric[0] : rows.currentMetricsValues();
  }

  @Override
  public void abort() {
    if (rows != null) {
      rows.abort();
    }
  }

  @Override
  public void close() {
    if (rows != null) {
      rows.close();
    }
  }
}
