package dev.lancelot.spark.read;

import dev.lancelot.spark.SerializableConfiguration;
import java.io.IOException;
import java.util.List;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.execution.vectorized.ConstantColumnVector;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Reads the pieces of a change feed ({@link LanceChangePartition}) as the batch reader reads its
 * partitions, and adds the change type and commit version to every row.
 */
final class LanceChangeReaderFactory implements PartitionReaderFactory {
  private static final long serialVersionUID = 1L;
  private final Broadcast<SerializableConfiguration> conf;
  private final List<String> output;

  LanceChangeReaderFactory(Broadcast<SerializableConfiguration> conf, List<String> output) {
    this.conf = conf;
    this.output = List.copyOf(output);
  }

  @Override
  public boolean supportColumnarReads(InputPartition partition) {
    return true;
  }

  @Override
  public PartitionReader<InternalRow> createReader(InputPartition partition) {
    throw new IllegalStateException("The lance change feed only produces columnar batches");
  }

  @Override
  public PartitionReader<ColumnarBatch> createColumnarReader(InputPartition partition) {
    LanceChangePartition p = (LanceChangePartition) partition;
    PartitionReader<ColumnarBatch> rows =
        new LanceStreamReaderFactory(conf, output).createColumnarReader(p.rows());
    return new PartitionReader<>() {
      private ColumnarBatch current;
      private ConstantColumnVector type;
      private ConstantColumnVector version;

      @Override
      public boolean next() throws IOException {
        closeConstants();
        if (!rows.next()) {
          return false;
        }
        ColumnarBatch batch = rows.get();
        int n = batch.numRows();
        type = new ConstantColumnVector(n, DataTypes.StringType);
        type.setUtf8String(UTF8String.fromString(p.changeType()));
        version = new ConstantColumnVector(n, DataTypes.LongType);
        version.setLong(p.commitVersion());
        ColumnVector[] cols = new ColumnVector[batch.numCols() + 2];
        for (int i = 0; i < batch.numCols(); i++) {
          cols[i] = batch.column(i);
        }
        cols[cols.length - 2] = type;
        cols[cols.length - 1] = version;
        current = new ColumnarBatch(cols, n);
        return true;
      }

      @Override
      public ColumnarBatch get() {
        return current;
      }

      private void closeConstants() {
        if (type != null) {
          type.close();
          version.close();
          type = null;
          version = null;
        }
      }

      @Override
      public void close() throws IOException {
        closeConstants();
        rows.close();
      }
    };
  }
}
