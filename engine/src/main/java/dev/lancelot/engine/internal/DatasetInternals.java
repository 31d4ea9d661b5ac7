package dev.lancelot.engine.internal;

import dev.lancelot.engine.ColumnBackfill;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.FragmentMetadata;
import dev.lancelot.engine.WriteOptions;
import dev.lancelot.engine.index.IndexSegment;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFragment;
import dev.lancelot.engine.internal.format.proto.TableProtos.IndexMetadata;
import dev.lancelot.engine.internal.index.IndexInternals;
import dev.lancelot.engine.internal.scan.FragmentReader;
import dev.lancelot.engine.internal.table.DatasetContext;
import dev.lancelot.engine.internal.table.Operation;
import dev.lancelot.engine.internal.table.RowIds;
import dev.lancelot.engine.internal.table.Snapshot;
import dev.lancelot.engine.internal.util.AccessorSlot;
import dev.lancelot.engine.internal.write.FragmentWriter;
import dev.lancelot.engine.schema.LanceSchema;
import java.util.Iterator;
import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.hadoop.conf.Configuration;
import org.roaringbitmap.RoaringBitmap;

/**
 * Engine access to {@link Dataset}'s and {@link FragmentMetadata}'s members that are not API: the
 * version's manifest view, the dataset's context, commits of engine operations, fragments' manifest
 * entries (see {@link AccessorSlot}).
 */
public final class DatasetInternals {
  /** Implemented by {@link Dataset} (for both types, which share a package). */
  public interface Access {
    Snapshot snapshot(Dataset dataset);

    DatasetContext context(Dataset dataset);

    Dataset commit(Dataset dataset, Operation operation);

    RoaringBitmap deletedRows(Dataset dataset, DataFragment fragment);

    RowIds rowIds(Dataset dataset);

    FragmentWriter newFragmentWriter(
        String location, Configuration conf, LanceSchema schema, WriteOptions options);

    FragmentMetadata fragmentMetadata(DataFragment fragment);

    DataFragment fragment(FragmentMetadata metadata);

    List<FragmentMetadata> writeFragments(
        String location,
        Configuration conf,
        LanceSchema schema,
        Iterator<VectorSchemaRoot> batches,
        WriteOptions options);

    Dataset commitFragments(
        String location,
        Configuration conf,
        LanceSchema schema,
        List<FragmentMetadata> fragments,
        WriteOptions options,
        long readVersion,
        java.util.Map<String, String> properties);

    void abortFragments(String location, Configuration conf, List<FragmentMetadata> fragments);

    java.util.Optional<java.util.Map<String, String>> newestCommitWith(
        Dataset dataset, String key, String value);

    FragmentMetadata writeAddedColumns(
        String location,
        Configuration conf,
        long version,
        LanceSchema added,
        long fragmentId,
        ColumnBackfill backfill,
        String targetBase);
  }

  private static final AccessorSlot<Access> SLOT = new AccessorSlot<>(Dataset.class);

  private DatasetInternals() {}

  public static void register(Access access) {
    SLOT.set(access);
  }

  /** The version's manifest view. */
  public static Snapshot snapshot(Dataset dataset) {
    return SLOT.get().snapshot(dataset);
  }

  /** Storage, paths, allocator and caches of the dataset. */
  public static DatasetContext context(Dataset dataset) {
    return SLOT.get().context(dataset);
  }

  /** Commits an operation planned against {@code dataset}'s version; returns the new version. */
  public static Dataset commit(Dataset dataset, Operation operation) {
    return SLOT.get().commit(dataset, operation);
  }

  /** Commits index segments written under {@code _indices/<uuid>/}, removing {@code removed}. */
  public static Dataset commitIndexes(
      Dataset dataset, List<IndexMetadata> added, List<IndexMetadata> removed) {
    return commit(dataset, new Operation.CreateIndex(added, removed));
  }

  /** Opens a reader of one fragment of {@code dataset}'s version. */
  /**
   * The fully-qualified directory of an index segment listed by {@code dataset}'s version: under
   * the dataset root's {@code _indices/}, or under the base path its manifest entry names.
   */
  public static String indexDir(Dataset dataset, IndexSegment segment) {
    IndexMetadata m = IndexInternals.proto(segment);
    return snapshot(dataset)
        .bases()
        .indexDir(segment.uuid().toString(), m.hasBaseId() ? m.getBaseId() : null);
  }

  public static FragmentReader openFragment(Dataset dataset, DataFragment fragment) {
    return new FragmentReader(
        context(dataset),
        fragment,
        snapshot(dataset).entry().location(),
        snapshot(dataset).bases());
  }

  /** Deleted row offsets of a fragment of {@code dataset}'s version (cached per dataset). */
  public static RoaringBitmap deletedRows(Dataset dataset, DataFragment fragment) {
    return SLOT.get().deletedRows(dataset, fragment);
  }

  /** Row ids of the version: stable ids and the id-to-address index, or addresses. */
  public static RowIds rowIds(Dataset dataset) {
    return SLOT.get().rowIds(dataset);
  }

  /**
   * A streaming writer of data files for one task of a distributed write: batches go in,
   * uncommitted fragments come out of {@link FragmentWriter#finish()}. The writer owns its memory;
   * close it (after finish or abort).
   */
  public static FragmentWriter newFragmentWriter(
      String location, Configuration conf, LanceSchema schema, WriteOptions options) {
    return SLOT.get().newFragmentWriter(location, conf, schema, options);
  }

  /** A written, uncommitted fragment as the value a distributed writer's task sends back. */
  public static FragmentMetadata fragmentMetadata(DataFragment fragment) {
    return SLOT.get().fragmentMetadata(fragment);
  }

  /** The manifest entry of a written, uncommitted fragment (without an id). */
  public static DataFragment fragment(FragmentMetadata metadata) {
    return SLOT.get().fragment(metadata);
  }

  /**
   * Data files for {@code batches}, not committed (see {@code DistributedWrite.writeFragments}).
   */
  public static List<FragmentMetadata> writeFragments(
      String location,
      Configuration conf,
      LanceSchema schema,
      Iterator<VectorSchemaRoot> batches,
      WriteOptions options) {
    return SLOT.get().writeFragments(location, conf, schema, batches, options);
  }

  /** Commits written fragments as one version (see {@code DistributedWrite.commit}). */
  public static Dataset commitFragments(
      String location,
      Configuration conf,
      LanceSchema schema,
      List<FragmentMetadata> fragments,
      WriteOptions options,
      long readVersion,
      java.util.Map<String, String> properties) {
    return SLOT.get()
        .commitFragments(location, conf, schema, fragments, options, readVersion, properties);
  }

  /** Deletes the files of uncommitted fragments (see {@code DistributedWrite.abort}). */
  /** See {@code DistributedWrite.newestCommitWith}. */
  public static java.util.Optional<java.util.Map<String, String>> newestCommitWith(
      Dataset dataset, String key, String value) {
    return SLOT.get().newestCommitWith(dataset, key, value);
  }

  public static void abortFragments(
      String location, Configuration conf, List<FragmentMetadata> fragments) {
    SLOT.get().abortFragments(location, conf, fragments);
  }

  /** One task of a distributed column backfill (see {@code DistributedWrite.writeAddedColumns}). */
  public static FragmentMetadata writeAddedColumns(
      String location,
      Configuration conf,
      long version,
      LanceSchema added,
      long fragmentId,
      ColumnBackfill backfill,
      String targetBase) {
    return SLOT.get()
        .writeAddedColumns(location, conf, version, added, fragmentId, backfill, targetBase);
  }
}
