package dev.lancelot.spark.read;

import dev.lancelot.engine.CloseableIterator;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.Scanner;
import dev.lancelot.engine.distributed.ScanPlan;
import dev.lancelot.engine.io.ReadCounters;
import dev.lancelot.spark.SerializableConfiguration;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/** Reads partitions as columnar batches straight from the engine's Arrow vectors. */
public final class LancePartitionReaderFactory implements PartitionReaderFactory {
  private static final long serialVersionUID = 1L;
  private final Broadcast<SerializableConfiguration> conf;
  private final ScanPlan plan;
  private final List<String> output;
  private final long limit;

  /**
   * Each task runs its {@link ScanTask} of {@code plan} (whose settings name the data columns, the
   * filter bound on the driver, the batch size and whether row addresses are read); {@code output}
   * is the batch's columns in order: the plan's data columns and any metadata columns ({@link
   * MetadataColumns}); each partition returns at most {@code limit} rows (-1: no limit).
   */
  LancePartitionReaderFactory(
      Broadcast<SerializableConfiguration> conf, ScanPlan plan, List<String> output, long limit) {
    this.conf = conf;
    this.plan = plan;
    this.output = List.copyOf(output);
    this.limit = limit;
  }

  @Override
  public boolean supportColumnarReads(InputPartition partition) {
    return true;
  }

  @Override
  public PartitionReader<InternalRow> createReader(InputPartition partition) {
    throw new IllegalStateException("The lance source only produces columnar batches");
  }

  @Override
  public PartitionReader<ColumnarBatch> createColumnarReader(InputPartition partition) {
    LanceInputPartition p = (LanceInputPartition) partition;
    return new ColumnarReader(p);
  }

  private final class ColumnarReader implements PartitionReader<ColumnarBatch> {
    private final BufferAllocator allocator = new RootAllocator();
    private final CloseableIterator<VectorSchemaRoot> batches;
    private final ReadCounters.Reading start = ReadCounters.now();
    private ColumnarBatch current;
    private long rows;

    ColumnarReader(LanceInputPartition p) {
      try {
        // The version from the executor's dataset cache (shared by this JVM's tasks); the batches
        // from this task's own allocator, closed with the task.
        Dataset ds = Dataset.openCached(p.location(), p.version(), conf.value().get());
        batches = plan.execute(ds, p.task(), allocator);
      } catch (RuntimeException e) {
        allocator.close();
        throw e;
      }
    }

    @Override
    public boolean next() {
      if ((limit >= 0 && rows >= limit) || !batches.hasNext()) {
        return false;
      }
      VectorSchemaRoot root = batches.next();
      List<FieldVector> vectors = root.getFieldVectors();
      ColumnVector[] cols = new ColumnVector[output.size()];
      List<String> columns = plan.settings().columns();
      int data = 0;
      for (int i = 0; i < cols.length; i++) {
        String name = output.get(i);
        if (data < columns.size() && columns.get(data).equals(name)) {
          cols[i] = new LanceColumnVector(vectors.get(data++));
        } else {
          UInt8Vector addresses = (UInt8Vector) root.getVector(Scanner.ROW_ADDRESS);
          cols[i] =
              name.equals(MetadataColumns.FRAGMENT_ID)
                  ? RowAddressColumnVector.fragmentId(addresses)
                  : name.equals(MetadataColumns.ROW_ID)
                      ? RowAddressColumnVector.address((UInt8Vector) root.getVector(Scanner.ROW_ID))
                      : RowAddressColumnVector.address(addresses);
        }
      }
      int n = limit < 0 ? root.getRowCount() : (int) Math.min(root.getRowCount(), limit - rows);
      current = new ColumnarBatch(cols, n);
      rows += n;
      return true;
    }

    @Override
    public CustomTaskMetric[] currentMetricsValues() {
      return ScanMetrics.task(rows, start);
    }

    @Override
    public ColumnarBatch get() {
      return current;
    }

    @Override
    public void close() {
      try {
        batches.close();
      } finally {
        allocator.close();
      }
    }
  }
}
