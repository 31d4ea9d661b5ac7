package dev.lancelot.spark.read;

import static dev.lancelot.spark.SumMetric.value;

import dev.lancelot.engine.io.ReadCounters;
import dev.lancelot.spark.SumMetric;
import org.apache.spark.sql.connector.metric.CustomMetric;
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
  static CustomTaskMetric[] task(long rows, ReadCounters.Reading start) {
    ReadCounters.Reading read = start.since();
    return new CustomTaskMetric[] {
      value(ROWS, rows), value(BYTES, read.bytesRead()), value(FILES, read.filesOpened())
    };
  }

  /** Rows the scan returned to Spark. */
  public static final class RowsRead extends SumMetric {
    public RowsRead() {
      super(ROWS, "rows read");
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
