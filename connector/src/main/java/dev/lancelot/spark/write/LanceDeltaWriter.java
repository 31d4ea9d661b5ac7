package dev.lancelot.spark.write;

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
 * writes them, opened on the first such row. Nothing is visible until the driver commits.
 */
final class LanceDeltaWriter implements DeltaWriter<InternalRow> {
  private final Supplier<LanceDataWriter> opener;
  private final Map<Long, RoaringBitmap> deletes = new HashMap<>();
  private LanceDataWriter rows;

  LanceDeltaWriter(Supplier<LanceDataWriter> opener) {
    this.opener = opener;
  }

  /** {@code id} is the row id Spark asked for: one column, {@code _rowaddr}. */
  @Override
  public void delete(InternalRow metadata, InternalRow id) {
    long address = id.getLong(0);
    deletes.computeIfAbsent(address >>> 32, f -> new RoaringBitmap()).add((int) address);
  }

  @Override
  public void update(InternalRow metadata, InternalRow id, InternalRow row) {
    delete(metadata, id);
    insert(row);
  }

  // DeltaWriter.reinsert exists from Spark 4.0 on; the 3.5 line compiles this class too (D53).
  @SuppressWarnings("MissingOverride")
  public void reinsert(InternalRow metadata, InternalRow row) {
    insert(row);
  }

  @Override
  public void insert(InternalRow row) {
    if (rows == null) {
      rows = opener.get();
    }
    rows.write(row);
  }

  @Override
  public WriterCommitMessage commit() {
    List<dev.lancelot.engine.FragmentMetadata> fragments =
        rows == null ? List.of() : ((LanceCommitMessage) rows.commit()).fragments();
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
