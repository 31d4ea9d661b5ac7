package dev.lancelot.spark.read;

import dev.lancelot.engine.io.ReadCounters;
import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.metric.CustomSumMetric;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;

/**
 * Metrics of the ordinary scan, shown in the Spark UI's SQL tab: rows read, bytes read and files
 * opened, summed over the scan's tasks. Each partition reader reports what its task thread read
 * (engine {@link ReadCounters}).
 */
public final class ScanMetrics {
  static final String ROWS = "rowsRead";
  static final String BYTES = "bytesRead";
  static final String FILES = "filesOpened";

  private ScanMetrics() {}

  static CustomMetric[] supported() {
    return new CustomMetric[] {new RowsRead(), new BytesRead(), new FilesOpened()};
  }

  /** The task's values: {@code rows} read, and what the thread read since {@code start}. */
  static CustomTaskMetric[] task(long rows, ReadCounters.Snapshot start) {
    ReadCounters.Snapshot read = start.since();
    return new CustomTaskMetric[] {value(ROWS, rows), value(BYTES, read.bytesRead()),
        value(FILES, read.filesOpened())};
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

  /** Rows the scan returned to Spark. */
  public static final class RowsRead extends CustomSumMetric {
    @Override
    public String name() {
      return ROWS;
    }

    @Override
    public String description() {
      return "rows read";
    }
  }

  /** Bytes the scan read from storage. */
  public static final class BytesRead extends CustomSumMetric {
    @Override
    public String name() {
      return BYTES;
    }

    @Override
    public String description() {
      return "bytes read";
    }
  }

  /** Files the scan opened. */
  public static final class FilesOpened extends CustomSumMetric {
    @Override
    public String name() {
      return FILES;
    }

    @Override
    public String description() {
      return "files opened";
    }
  }
}
