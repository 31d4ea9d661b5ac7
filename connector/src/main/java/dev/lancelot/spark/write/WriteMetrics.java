package dev.lancelot.spark.write;

import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.metric.CustomSumMetric;
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

  private static CustomTaskMetric value(String name, long value) {
    return new CustomTaskMetric() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public long value() {
        return value;
      }
    };
  }

  /** Rows the write's tasks wrote. */
  public static final class RowsWritten extends CustomSumMetric {
    @Override
    public String name() {
      return ROWS;
    }

    @Override
    public String description() {
      return "rows written";
    }
  }

  /** Data files the write committed. */
  public static final class FilesCommitted extends CustomSumMetric {
    @Override
    public String name() {
      return FILES;
    }

    @Override
    public String description() {
      return "files committed";
    }
  }

  /** Bytes of the data files the write committed. */
  public static final class BytesCommitted extends CustomSumMetric {
    @Override
    public String name() {
      return BYTES;
    }

    @Override
    public String description() {
      return "bytes committed";
    }
  }
}
