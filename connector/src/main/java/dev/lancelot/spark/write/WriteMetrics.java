package dev.lancelot.spark.write;

import static dev.lancelot.spark.SumMetric.value;

import dev.lancelot.spark.SumMetric;
import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;

/**
 * Metrics of a write, shown in the Spark UI's SQL tab: rows its tasks wrote (task metrics), and the
 * data files and bytes of the version it committed (driver metrics, known once committed).
 */
public final class WriteMetrics {
  static final String ROWS = "rowsWritten";
  static final String FILES = "filesCommitted";
  static final String BYTES = "bytesCommitted";

  private WriteMetrics() {}

  static CustomMetric[] supported() {
    return new CustomMetric[] {new RowsWritten(), new FilesCommitted(), new BytesCommitted()};
  }

  static CustomTaskMetric[] task(long rows) {
    return new CustomTaskMetric[] {value(ROWS, rows)};
  }

  static CustomTaskMetric[] driver(long files, long bytes) {
    return new CustomTaskMetric[] {value(FILES, files), value(BYTES, bytes)};
  }

  /** Rows the write's tasks wrote. */
  public static final class RowsWritten extends SumMetric {
    public RowsWritten() {
      super(ROWS, "rows written");
    }
  }

  /** Data files the write committed. */
  public static final class FilesCommitted extends SumMetric {
    public FilesCommitted() {
      super(FILES, "files committed");
    }
  }

  /** Bytes of the data files the write committed. */
  public static final class BytesCommitted extends SumMetric {
    public BytesCommitted() {
      super(BYTES, "bytes committed");
    }
  }
}
