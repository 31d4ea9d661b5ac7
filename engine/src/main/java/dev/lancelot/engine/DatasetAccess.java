package dev.lancelot.engine;

import dev.lancelot.engine.internal.DatasetInternals;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFragment;
import dev.lancelot.engine.internal.table.DatasetContext;
import dev.lancelot.engine.internal.table.Operation;
import dev.lancelot.engine.internal.table.RowIds;
import dev.lancelot.engine.internal.table.Snapshot;
import dev.lancelot.engine.internal.write.FragmentWriter;
import dev.lancelot.engine.schema.LanceSchema;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.hadoop.conf.Configuration;
import org.roaringbitmap.RoaringBitmap;

/**
 * What the engine's internal packages reach of {@link Dataset} and its package ({@link
 * DatasetInternals}), registered once when {@code Dataset} is loaded.
 */
final class DatasetAccess implements DatasetInternals.Access {
  @Override
  public Snapshot snapshot(Dataset dataset) {
    return dataset.snapshot();
  }

  @Override
  public DatasetContext context(Dataset dataset) {
    return dataset.context();
  }

  @Override
  public Dataset commit(Dataset dataset, Operation operation) {
    return dataset.commitOperation(operation);
  }

  @Override
  public RoaringBitmap deletedRows(Dataset dataset, DataFragment fragment) {
    return dataset.deletedRows(fragment);
  }

  @Override
  public RowIds rowIds(Dataset dataset) {
    return dataset.rowIds();
  }

  @Override
  public FragmentWriter newFragmentWriter(
      String location, Configuration conf, LanceSchema schema, WriteOptions options) {
    return DatasetWrites.newFragmentWriter(location, conf, schema, options);
  }

  @Override
  public FragmentMetadata fragmentMetadata(DataFragment fragment) {
    return new FragmentMetadata(fragment);
  }

  @Override
  public DataFragment fragment(FragmentMetadata metadata) {
    return metadata.toProto();
  }

  @Override
  public List<FragmentMetadata> writeFragments(
      String location,
      Configuration conf,
      LanceSchema schema,
      Iterator<VectorSchemaRoot> batches,
      WriteOptions options) {
    return DatasetWrites.writeFragments(location, conf, schema, batches, options);
  }

  @Override
  public Dataset commitFragments(
      String location,
      Configuration conf,
      LanceSchema schema,
      List<FragmentMetadata> fragments,
      WriteOptions options,
      long readVersion,
      java.util.Map<String, String> properties) {
    return DatasetWrites.commitFragments(
        location, conf, schema, fragments, options, readVersion, properties);
  }

  @Override
  public java.util.Optional<Map<String, String>> newestCommitWith(
      Dataset dataset, String key, String value) {
    return DatasetWrites.newestCommitWith(dataset, key, value);
  }

  @Override
  public void abortFragments(
      String location, Configuration conf, List<FragmentMetadata> fragments) {
    DatasetWrites.abortFragments(location, conf, fragments);
  }

  @Override
  public FragmentMetadata writeAddedColumns(
      String location,
      Configuration conf,
      long version,
      LanceSchema added,
      long fragmentId,
      ColumnBackfill backfill,
      String targetBase) {
    return DatasetWrites.writeAddedColumns(
        location, conf, version, added, fragmentId, backfill, targetBase);
  }
}
