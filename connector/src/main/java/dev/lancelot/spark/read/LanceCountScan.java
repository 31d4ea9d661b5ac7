package dev.lancelot.spark.read;

import dev.lancelot.spark.LanceTable;
import java.util.OptionalLong;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.Statistics;
import org.apache.spark.sql.connector.read.SupportsReportStatistics;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * {@code COUNT(*)} of a whole dataset version answered from its manifest (physical rows minus
 * deleted rows per fragment) when the scan builder accepted the aggregate: one partition, one row
 * holding the count once per pushed {@code COUNT(*)}; no data file is opened.
 */
final class LanceCountScan implements Scan, Batch, SupportsReportStatistics {
  private final LanceTable table;
  private final long rows;
  private final int aggregates;

  LanceCountScan(LanceTable table, long rows, int aggregates) {
    this.table = table;
    this.rows = rows;
    this.aggregates = aggregates;
  }

  @Override
  public StructType readSchema() {
    StructType schema = new StructType();
    for (int i = 0; i < aggregates; i++) {
      schema = schema.add("count_" + i, DataTypes.LongType, false);
    }
    return schema;
  }

  @Override
  public String description() {
    return "LanceScan["
        + table.location()
        + ", version="
        + table.datasetVersion()
        + ", aggregate=COUNT(*) from the manifest: "
        + rows
        + " rows]";
  }

  @Override
  public Batch toBatch() {
    return this;
  }

  @Override
  public Statistics estimateStatistics() {
    return new ScanStatistics(OptionalLong.of(8L * aggregates), OptionalLong.of(1));
  }

  @Override
  public InputPartition[] planInputPartitions() {
    return new InputPartition[] {new CountPartition(rows, aggregates)};
  }

  @Override
  public PartitionReaderFactory createReaderFactory() {
    return new CountReaderFactory();
  }

  /** The answer itself: nothing is read on the executor. */
  record CountPartition(long rows, int aggregates) implements InputPartition {}

  private static final class CountReaderFactory implements PartitionReaderFactory {
    private static final long serialVersionUID = 1L;

    @Override
    public PartitionReader<InternalRow> createReader(InputPartition partition) {
      CountPartition p = (CountPartition) partition;
      Object[] values = new Object[p.aggregates()];
      java.util.Arrays.fill(values, p.rows());
      InternalRow row = new GenericInternalRow(values);
      return new PartitionReader<>() {
        private boolean done;

        @Override
        public boolean next() {
          if (done) {
            return false;
          }
          done = true;
          return true;
        }

        @Override
        public InternalRow get() {
          return row;
        }

        @Override
        public void close() {}
      };
    }
  }
}
