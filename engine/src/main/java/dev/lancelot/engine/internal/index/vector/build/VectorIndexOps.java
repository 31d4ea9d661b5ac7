package dev.lancelot.engine.internal.index.vector.build;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.LancelotException;
import dev.lancelot.engine.index.IndexCatalog;
import dev.lancelot.engine.index.IndexSegment;
import dev.lancelot.engine.index.vector.VectorIndexDescription;
import dev.lancelot.engine.index.vector.VectorIndexSpec;
import dev.lancelot.engine.index.vector.VectorIndexes;
import dev.lancelot.engine.internal.DatasetInternals;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFragment;
import dev.lancelot.engine.internal.format.proto.TableProtos.IndexMetadata;
import dev.lancelot.engine.internal.index.IndexInternals;
import dev.lancelot.engine.internal.index.vector.store.IndexSegmentReader;
import dev.lancelot.engine.internal.table.OperationKind;
import dev.lancelot.engine.internal.table.Snapshot;
import dev.lancelot.engine.internal.table.WriteChecks;
import dev.lancelot.engine.schema.LanceField;
import java.util.ArrayList;
import java.util.List;
import org.roaringbitmap.RoaringBitmap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What {@link VectorIndexes} does, with the index segments written by a {@link
 * VectorIndexBuilder.SegmentWriter} of the caller's choice: locally ({@link
 * VectorIndexBuilder#LOCAL_SEGMENTS}) or one per group of fragments on a cluster (the Spark
 * connector). The model is trained where this is called, once, and the segments are committed there
 * in one version.
 */
public final class VectorIndexOps {
  private static final Logger LOG = LoggerFactory.getLogger(VectorIndexes.class);

  private VectorIndexOps() {}

  /**
   * {@link VectorIndexes#create(Dataset, String, VectorIndexSpec)} with the segments written by
   * {@code writer} (e.g. one per group of fragments, on a cluster): the model is trained here,
   * once, and the segments it returns are committed here in one version.
   */
  public static Dataset create(
      Dataset dataset,
      String column,
      VectorIndexSpec spec,
      VectorIndexBuilder.SegmentWriter writer) {
    String name = spec.nameFor(column);
    // The column is checked first: replacing an index is no remedy for a column that cannot be
    // indexed.
    VectorColumn.resolve(
        dataset,
        column,
        "create "
            + spec.type()
            + " index \""
            + name
            + "\" on column \""
            + column
            + "\" of "
            + dataset.location());
    List<IndexSegment> existing = dataset.indexes().segments(name);
    if (!existing.isEmpty() && !spec.replace()) {
      throw new InvalidInputException(
          "Cannot create index \""
              + name
              + "\" on "
              + dataset.location()
              + ": an index with"
              + " that name already exists ("
              + existing.get(0).type()
              + "). Replace it (replace=true, --replace) or choose"
              + " another name.");
    }
    checkIndexable(dataset);
    List<DataFragment> fragments = DatasetInternals.snapshot(dataset).fragments();
    TrainedModel model = VectorIndexBuilder.train(dataset, column, spec, fragments);
    return commit(dataset, writer.write(dataset, column, spec, model, fragments), protos(existing));
  }

  /** {@link VectorIndexes#optimize} with the segments written by {@code writer}. */
  public static Dataset optimize(
      Dataset dataset, String name, boolean retrain, VectorIndexBuilder.SegmentWriter writer) {
    List<IndexSegment> segments = vectorSegments(dataset, name, "optimize");
    checkIndexable(dataset);
    IndexSegment first = segments.get(0);
    String column = columnOf(dataset, first);
    VectorIndexSpec spec = IndexDetails.specOf(first);
    IndexSegmentReader model =
        IndexSegmentReader.open(
            DatasetInternals.context(dataset).io(), DatasetInternals.indexDir(dataset, first));
    spec = spec.withNumPartitions(model.numPartitions());
    if (retrain) {
      List<DataFragment> fragments = DatasetInternals.snapshot(dataset).fragments();
      TrainedModel trained = VectorIndexBuilder.train(dataset, column, spec, fragments);
      return commit(
          dataset, writer.write(dataset, column, spec, trained, fragments), protos(segments));
    }
    List<DataFragment> unindexed = IndexInternals.unindexedFragments(dataset.indexes(), name);
    if (unindexed.isEmpty()) {
      LOG.info(
          "Index \"{}\" already covers every fragment of version {}; nothing to optimize",
          name,
          dataset.version());
      return dataset;
    }
    return commit(
        dataset, writer.write(dataset, column, spec, TrainedModel.of(model), unindexed), List.of());
  }

  /**
   * Refuses, before any training or task, a version whose indexes lancelot may not change (feature
   * flags it does not write, a branch); the commit checks it again.
   */
  private static void checkIndexable(Dataset dataset) {
    WriteChecks.check(
        DatasetInternals.context(dataset).paths().root(),
        DatasetInternals.snapshot(dataset).manifest(),
        OperationKind.CREATE_INDEX);
  }

  /** Removes every segment of index {@code name} (the files stay until cleanup, as Lance does). */
  public static Dataset drop(Dataset dataset, String name) {
    List<IndexSegment> segments = dataset.indexes().segments(name);
    if (segments.isEmpty()) {
      throw new InvalidInputException(
          "Cannot drop index \""
              + name
              + "\" of "
              + dataset.location()
              + ": there is no"
              + " index with that name. Indexes: "
              + dataset.indexes().names()
              + ".");
    }
    return commit(dataset, List.of(), protos(segments));
  }

  /** Type, metric, partitions, segments and coverage of index {@code name} in this version. */
  public static VectorIndexDescription describe(Dataset dataset, String name) {
    List<IndexSegment> segments = vectorSegments(dataset, name, "describe");
    IndexCatalog catalog = dataset.indexes();
    List<VectorIndexDescription.Segment> out = new ArrayList<>();
    int dim = 0;
    int partitions = 0;
    for (IndexSegment s : segments) {
      IndexSegmentReader r =
          IndexSegmentReader.open(
              DatasetInternals.context(dataset).io(), DatasetInternals.indexDir(dataset, s));
      dim = r.dimension();
      partitions = r.numPartitions();
      List<Long> frags = new ArrayList<>();
      s.fragments().forEach((int f) -> frags.add(Integer.toUnsignedLong(f)));
      out.add(
          new VectorIndexDescription.Segment(
              s.uuid(), s.datasetVersion(), frags, r.numRows(), r.numPartitions()));
    }
    RoaringBitmap indexed = catalog.indexedFragments(name);
    List<Long> indexedIds = new ArrayList<>();
    List<Long> unindexedIds = new ArrayList<>();
    long indexedRows = 0;
    long unindexedRows = 0;
    for (DataFragment f : DatasetInternals.snapshot(dataset).fragments()) {
      long live = Snapshot.liveRows(f);
      if (indexed.contains(Math.toIntExact(f.getId()))) {
        indexedIds.add(f.getId());
        indexedRows += live;
      } else {
        unindexedIds.add(f.getId());
        unindexedRows += live;
      }
    }
    IndexSegment first = segments.get(0);
    return new VectorIndexDescription(
        name,
        columnOf(dataset, first),
        first.type(),
        first.metric().orElseThrow(),
        dim,
        partitions,
        out,
        indexedIds,
        unindexedIds,
        indexedRows,
        unindexedRows);
  }

  private static List<IndexSegment> vectorSegments(Dataset dataset, String name, String action) {
    List<IndexSegment> segments = dataset.indexes().segments(name);
    if (segments.isEmpty()) {
      throw new InvalidInputException(
          "Cannot "
              + action
              + " index \""
              + name
              + "\" of "
              + dataset.location()
              + ": there"
              + " is no index with that name. Indexes: "
              + dataset.indexes().names()
              + ".");
    }
    if (!segments.get(0).type().isVector()) {
      throw new InvalidInputException(
          "Cannot "
              + action
              + " index \""
              + name
              + "\" as a vector index: it is a "
              + segments.get(0).type()
              + " index.");
    }
    if (!segments.get(0).type().isSupported()) {
      throw new InvalidInputException(
          "Cannot "
              + action
              + " index \""
              + name
              + "\": it is an "
              + segments.get(0).type()
              + " index, which lancelot does not read or build yet.");
    }
    return segments;
  }

  private static String columnOf(Dataset dataset, IndexSegment segment) {
    int fieldId = segment.fieldIds().get(0);
    return dataset
        .lanceSchema()
        .fieldById(fieldId)
        .map(LanceField::name)
        .orElseThrow(
            () ->
                new LancelotException(
                    "Cannot use index \""
                        + segment.name()
                        + "\" of "
                        + dataset.location()
                        + ": its column (field id "
                        + fieldId
                        + ") is no longer in the schema. Drop the index."));
  }

  private static List<IndexMetadata> protos(List<IndexSegment> segments) {
    return segments.stream().map(IndexInternals::proto).toList();
  }

  private static Dataset commit(
      Dataset dataset, List<IndexMetadata> added, List<IndexMetadata> removed) {
    Dataset next = DatasetInternals.commitIndexes(dataset, added, removed);
    LOG.info(
        "Committed version {} of {}: {} index segment(s) added, {} removed",
        next.version(),
        dataset.location(),
        added.size(),
        removed.size());
    return next;
  }
}
