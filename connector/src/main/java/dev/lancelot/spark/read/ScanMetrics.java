package dev.lancelot.spark.read;

import static dev.lancelot.spark.SumMetric.value;

import dev.lancelot.engine.ScanIndexUse;
import dev.lancelot.engine.io.ReadCounters;
import dev.lancelot.spark.SumMetric;
import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;

/**
 * Metrics of the ordinary scan, shown in the Spark UI's SQL tab: rows read (returned to Spark),
 * rows scanned (decoded from data files, whether or not the filter kept them), bytes read and files
 * opened, summed over the scan's tasks; and, from the driver, the scalar index lookups made when
 * the scan was planned and the rows they selected. Each partition reader reports what its task
 * thread read (engine {@link ReadCounters}).
 */
public final class ScanMetrics {
  static final String ROWS = "rowsRead";
  static final String BYTES = "bytesRead";
  static final String FILES = "filesOpened";
  static final String ROWS_SCANNED = "rowsScanned";
  static final String INDEX_LOOKUPS = "indexLookups";
  static final String INDEX_ROWS = "indexRowsSelected";

  private ScanMetrics() {}

  static CustomMetric[] supported() {
    return new CustomMetric[] {
      new RowsRead(),
      new RowsScanned(),
      new BytesRead(),
      new FilesOpened(),
      new IndexLookups(),
      new IndexRowsSelected()
    };
  }

  /** The driver's values: how planning used scalar indexes. */
  static CustomTaskMetric[] driver(ScanIndexUse use) {
    return new CustomTaskMetric[] {
      value(INDEX_LOOKUPS, use.indexLookups()), value(INDEX_ROWS, use.rowsSelected())
    };
  }

  /** The task's values: {@code rows} read, and what the thread read since {@code start}. */
  static CustomTaskMetric[] task(long rows, ReadCounters.Reading start) {
    ReadCounters.Reading read = start.since();
    return new CustomTaskMetric[] {
      value(ROWS, rows),
      value(ROWS_SCANNED, read.rowsScanned()),
      value(BYTES, read.bytesRead()),
      value(FILES, read.filesOpened())
    };
  }

  /** Rows the scan returned to Spark. */
  public static final class RowsRead extends SumMetric {
    public RowsRead() {
      super(ROWS, "rows read");
    }
  }

  /** Rows the scan decoded: every row read from data files, kept by the filter or not. */
  public static final class RowsScanned extends SumMetric {
    public RowsScanned() {
      super(ROWS_SCANNED, "rows scanned");
    }
  }

  /** Scalar index segments searched when the scan was planned. */
  public static final class IndexLookups extends SumMetric {
    public IndexLookups() {
      super(INDEX_LOOKUPS, "index lookups");
    }
  }

  /** Rows scalar indexes selected for the scan to read (in the fragments they cover). */
  public static final class IndexRowsSelected extends SumMetric {
    public IndexRowsSelected() {
      super(INDEX_ROWS, "rows selected by index");
    }
  }

  /** Bytes the scan read from storage. */
  public static final class BytesRead extends SumMetric {
    public BytesRead() {
      super(BYTES, "bytes read");
    }
  }

  /** Files the scan opened. */
  public static final class FilesOpened extends SumMetric {
    public FilesOpened() {
      super(FILES, "files opened");
    }
  }
}
