package dev.lancelot.engine.internal.index.scalar.btree;

import com.google.protobuf.Any;
import dev.lancelot.engine.CloseableIterator;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.index.IndexSegment;
import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.index.scalar.BTreeBuildParams;
import dev.lancelot.engine.index.scalar.ScalarBuildParams;
import dev.lancelot.engine.internal.DatasetInternals;
import dev.lancelot.engine.internal.expr.eval.ColumnKind;
import dev.lancelot.engine.internal.format.FragmentBitmaps;
import dev.lancelot.engine.internal.format.IndexUuids;
import dev.lancelot.engine.internal.format.proto.TableProtos.BTreeIndexDetails;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFragment;
import dev.lancelot.engine.internal.format.proto.TableProtos.IndexFile;
import dev.lancelot.engine.internal.format.proto.TableProtos.IndexMetadata;
import dev.lancelot.engine.internal.format.proto.TableProtos.UUID;
import dev.lancelot.engine.internal.index.IndexInternals;
import dev.lancelot.engine.internal.scan.ScanSpec;
import dev.lancelot.engine.internal.table.OperationKind;
import dev.lancelot.engine.internal.table.Snapshot;
import dev.lancelot.engine.internal.table.WriteChecks;
import dev.lancelot.engine.io.CommitOutcomeUnknownException;
import dev.lancelot.engine.schema.LanceField;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.roaringbitmap.RoaringBitmap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The steps of a BTree build, shared by the single-process build and the distributed one: check the
 * request, write one segment per group of fragments (gather the column with {@code _rowaddr},
 * deleted rows excluded; sort; write page_data.lance and page_lookup.lance under a new {@code
 * _indices/<uuid>/}), and commit every segment in one version, replacing the index of that name
 * when asked. A multi-segment BTree is what Lance 7's distributed builds write too: each segment
 * covers its own fragments, and a lookup searches every segment.
 */
public final class BTreeBuild {
  private static final Logger LOG = LoggerFactory.getLogger(BTreeBuild.class);
  private static final int LOG_EVERY_ROWS = 1 << 22;

  /** The most rows one segment's build holds in memory. */
  public static final long MAX_SEGMENT_ROWS = Integer.MAX_VALUE - 8;

  private BTreeBuild() {}

  /** Writes the segments of a checked build (not committed); one per group, in any grouping. */
  @FunctionalInterface
  public interface SegmentWriter {
    List<IndexMetadata> write(List<DataFragment> fragments);
  }

  /**
   * Checks the request, writes its segments with {@code writer} and commits them in one version;
   * returns it. Nothing is committed when a segment fails, and written files are deleted.
   */
  public static Dataset build(Dataset dataset, ScalarBuildParams params, SegmentWriter writer) {
    WriteChecks.check(
        DatasetInternals.context(dataset).paths().root(),
        DatasetInternals.snapshot(dataset).manifest(),
        OperationKind.CREATE_INDEX);
    checkColumn(dataset, params);
    List<IndexSegment> existing = dataset.indexes().segments(params.name());
    if (!existing.isEmpty() && !params.replace()) {
      throw new InvalidInputException(
          "Cannot create index \""
              + params.name()
              + "\" on column "
              + params.column()
              + " of "
              + dataset.location()
              + ": an index with that name already exists ("
              + existing.get(0).type()
              + "). Replace it (replace=true, --replace) or choose another name.");
    }
    List<IndexMetadata> segments = writer.write(DatasetInternals.snapshot(dataset).fragments());
    return commit(dataset, params, segments, existing.stream().map(IndexInternals::proto).toList());
  }

  /**
   * Adds segments over {@code fragments} (those no segment of the index covers) to the existing
   * BTree index {@code params.name()}, keeping its segments: one version. Nothing is committed when
   * a segment fails, and written files are deleted.
   */
  public static Dataset extend(
      Dataset dataset,
      ScalarBuildParams params,
      List<DataFragment> fragments,
      SegmentWriter writer) {
    WriteChecks.check(
        DatasetInternals.context(dataset).paths().root(),
        DatasetInternals.snapshot(dataset).manifest(),
        OperationKind.CREATE_INDEX);
    checkColumn(dataset, params);
    return commit(dataset, params, writer.write(fragments), List.of());
  }

  private static Dataset commit(
      Dataset dataset,
      ScalarBuildParams params,
      List<IndexMetadata> segments,
      List<IndexMetadata> removed) {
    try {
      Dataset committed = DatasetInternals.commitIndexes(dataset, segments, removed);
      LOG.info(
          "{} index {} on {}: {} segment(s) committed as version {}",
          params.type(),
          params.name(),
          params.column(),
          segments.size(),
          committed.version());
      return committed;
    } catch (CommitOutcomeUnknownException e) {
      throw e; // the version may refer to the files
    } catch (RuntimeException e) {
      deleteSegments(dataset, segments, e);
      throw e;
    }
  }

  /** Deletes the directories of written segments after a failure, recording cleanup errors. */
  public static void deleteSegments(
      Dataset dataset, List<IndexMetadata> segments, RuntimeException failure) {
    for (IndexMetadata m : segments) {
      String directory =
          DatasetInternals.context(dataset)
              .paths()
              .indexDir(IndexInternals.segment(m).uuid().toString());
      try {
        DatasetInternals.context(dataset).io().deleteRecursively(directory);
      } catch (RuntimeException cleanup) {
        failure.addSuppressed(cleanup);
      }
    }
  }

  /**
   * The settings to build more segments of index {@code name} (not a BTree) like its {@code
   * segment}: kind, column, zone sizes, bloom-filter probability.
   */
  public static ScalarBuildParams paramsOf(Dataset dataset, String name, IndexSegment segment) {
    return KindSegments.paramsOf(dataset, name, segment);
  }

  /** The column to index with {@code params.type()}, or a clear refusal. */
  public static LanceField checkColumn(Dataset dataset, ScalarBuildParams params) {
    if (params.type() == IndexType.BTREE) {
      return checkColumn(dataset, params.column());
    }
    return KindSegments.checkColumn(dataset, params);
  }

  /** The column to index, or a clear refusal. */
  public static LanceField checkColumn(Dataset dataset, String column) {
    LanceField field =
        dataset
            .lanceSchema()
            .field(column)
            .orElseThrow(
                () ->
                    new InvalidInputException(
                        "Cannot create a BTree index on column \""
                            + column
                            + "\" of "
                            + dataset.location()
                            + ": the dataset has no such column. Its columns are "
                            + dataset.lanceSchema().names()
                            + "."));
    ColumnKind kind = ColumnKind.of(field.arrowType());
    if (!ValueCodec.supports(kind)) {
      throw new InvalidInputException(
          "Cannot create a BTree index on column \""
              + column
              + "\" of "
              + dataset.location()
              + ": its type "
              + field.logicalType()
              + " cannot be indexed by a BTree. Index an "
              + "integer, float, date, timestamp, bool, string or binary column (vectors take a vector index).");
    }
    return field;
  }

  /**
   * Writes the segment covering {@code fragments} of {@code dataset}'s version (every row of them
   * but the deleted ones) and returns its manifest entry, without committing it.
   */
  public static IndexMetadata writeSegment(
      Dataset dataset, ScalarBuildParams params, List<DataFragment> fragments) {
    if (params.type() != IndexType.BTREE) {
      return KindSegments.writeSegment(dataset, params, fragments);
    }
    LanceField field = checkColumn(dataset, params.column());
    long start = System.nanoTime();
    long rows = 0;
    List<Long> ids = new ArrayList<>(fragments.size());
    RoaringBitmap covered = new RoaringBitmap();
    for (DataFragment f : fragments) {
      rows += Snapshot.liveRows(f);
      ids.add(f.getId());
      covered.add((int) f.getId());
    }
    if (rows > MAX_SEGMENT_ROWS) {
      throw new InvalidInputException(
          "Cannot create BTree index \""
              + params.name()
              + "\" on column "
              + params.column()
              + ": one segment would hold "
              + rows
              + " rows and a segment's build holds at most "
              + MAX_SEGMENT_ROWS
              + " in memory. Build it distributed with fewer rows per segment (Spark: "
              + "spark.lancelot.index.rowsPerSegment), or with Lance.");
    }
    LOG.info(
        "BTree index {} on {} of {} version {}: scanning {} rows in {} fragments",
        params.name(),
        params.column(),
        dataset.location(),
        dataset.version(),
        rows,
        fragments.size());
    IndexColumnData data = gather(dataset, params.btree(), field, ids, (int) rows, null);
    java.util.UUID uuid = java.util.UUID.randomUUID();
    String directory = DatasetInternals.context(dataset).paths().indexDir(uuid.toString());
    BTreeWriter.Written written;
    try {
      written =
          BTreeWriter.write(
              DatasetInternals.context(dataset).io(),
              directory,
              field.arrowType(),
              data,
              params.pageSize(),
              DatasetInternals.context(dataset).allocator());
    } catch (RuntimeException e) {
      DatasetInternals.context(dataset).io().deleteRecursively(directory);
      throw e;
    }
    LOG.info(
        "BTree index {} on {}: {} rows ({} null) of fragments {} in {} pages, {} + {} bytes, in {} ms",
        params.name(),
        params.column(),
        written.rows(),
        written.nullCount(),
        ids.size() <= 8 ? ids : ids.size() + " fragments",
        written.pages(),
        written.lookupBytes(),
        written.pagesBytes(),
        (System.nanoTime() - start) / 1_000_000);
    return IndexMetadata.newBuilder()
        .setUuid(UUID.newBuilder().setUuid(IndexUuids.uuidBytes(uuid)))
        .addFields(field.id())
        .setName(params.name())
        .setDatasetVersion(dataset.version())
        .setFragmentBitmap(FragmentBitmaps.bytes(covered))
        .setIndexDetails(
            Any.newBuilder()
                .setTypeUrl(IndexSegment.BTREE_DETAILS_TYPE)
                .setValue(BTreeIndexDetails.getDefaultInstance().toByteString()))
        .setIndexVersion(0)
        .setCreatedAt(System.currentTimeMillis())
        .addFiles(
            IndexFile.newBuilder()
                .setPath(BTreeFiles.LOOKUP_FILE)
                .setSizeBytes(written.lookupBytes()))
        .addFiles(
            IndexFile.newBuilder()
                .setPath(BTreeFiles.PAGES_FILE)
                .setSizeBytes(written.pagesBytes()))
        .build();
  }

  /**
   * The column's values of {@code fragments} (deleted rows excluded) in scan order, with their row
   * addresses, or their row ids on a dataset with stable row ids unless {@code addresses} says
   * otherwise (null: as a BTree stores them).
   */
  public static IndexColumnData gather(
      Dataset dataset,
      BTreeBuildParams params,
      LanceField field,
      List<Long> fragments,
      int rows,
      Boolean addresses) {
    IndexColumnData data = new IndexColumnData(ColumnKind.of(field.arrowType()), rows);
    if (fragments.isEmpty()) {
      return data;
    }
    // An index of a dataset with stable row ids stores the ids, as Lance's does.
    boolean stable = addresses == null ? dataset.stableRowIds() : !addresses;
    try (CloseableIterator<VectorSchemaRoot> batches =
        dataset
            .newScan()
            .columns(params.column())
            .withRowAddress(!stable)
            .withRowId(stable)
            .fragments(fragments)
            .batches()) {
      long nextLog = LOG_EVERY_ROWS;
      while (batches.hasNext()) {
        VectorSchemaRoot batch = batches.next();
        data.append(
            batch.getVector(params.column()),
            batch.getVector(stable ? ScanSpec.ROW_ID : ScanSpec.ROW_ADDRESS),
            batch.getRowCount());
        if (data.size() >= nextLog) {
          LOG.info("BTree index {}: scanned {} of {} rows", params.name(), data.size(), rows);
          nextLog += LOG_EVERY_ROWS;
        }
      }
    }
    return data;
  }
}
