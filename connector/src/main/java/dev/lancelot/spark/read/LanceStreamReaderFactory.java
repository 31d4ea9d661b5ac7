package dev.lancelot.spark.read;

import dev.lancelot.spark.SerializableConfiguration;
import java.util.List;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * Reads the partitions of a micro-batch ({@link LanceStreamPartition}) as the batch reader reads
 * its own, each with the scan planned on its version.
 */
final class LanceStreamReaderFactory implements PartitionReaderFactory {
  private static final long serialVersionUID = 1L;
  private final Broadcast<SerializableConfiguration> conf;
  private final List<String> output;

  LanceStreamReaderFactory(Broadcast<SerializableConfiguration> conf, List<String> output) {
    this.conf = conf;
    this.output = List.copyOf(output);
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
    LanceStreamPartition p = (LanceStreamPartition) partition;
    return new LancePartitionReaderFactory(conf, p.plan(), output, -1)
        .createColumnarReader(p.partition());
  }
}
