package dev.lancelot.engine.index.scalar;

import com.google.protobuf.Any;
import dev.lancelot.engine.CloseableIterator;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.index.IndexSegment;
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
import dev.lancelot.engine.internal.index.scalar.btree.BTreeFiles;
import dev.lancelot.engine.internal.index.scalar.btree.BTreeWriter;
import dev.lancelot.engine.internal.index.scalar.btree.IndexColumnData;
import dev.lancelot.engine.internal.index.scalar.btree.ValueCodec;
import dev.lancelot.engine.internal.scan.FragmentScan;
import dev.lancelot.engine.io.CommitOutcomeUnknownException;
import dev.lancelot.engine.schema.LanceField;
import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.roaringbitmap.RoaringBitmap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds a BTree index in Lance 7's layout ({@link BTreeFiles}) and commits it, so Lance and this
 * engine both use it:
 *
 * <pre>{@code
 * Dataset v2 = BTreeIndexBuilder.build(dataset, BTreeBuildParams.of("tenant_id"));   // "tenant_id_idx"
 * }</pre>
 *
 * <p>The build scans the column with {@code _rowaddr} (deleted rows excluded), sorts NULLs first,
 * then values, equal values by row address, writes page_data.lance and page_lookup.lance under a
 * new {@code _indices/<uuid>/}, and commits one segment covering every fragment of the version.
 * Rows appended later are in fragments the segment does not cover. The whole column is held in
 * memory, so a build takes up to about 2^31 rows. Progress is logged at INFO.
 */
public final class BTreeIndexBuilder {
  private static final Logger LOG = LoggerFactory.getLogger(BTreeIndexBuilder.class);
  private static final int LOG_EVERY_ROWS = 1 << 22;

  private BTreeIndexBuilder() {}

  /**
   * Builds and commits the index; returns the new version.
   *
   * @throws InvalidInputException when the column is missing or of a type a BTree cannot hold, or
   *     the name is taken and {@code replace} is not set
   */
  public static Dataset build(Dataset dataset, BTreeBuildParams params) {
    LanceField field = checkColumn(dataset, params.column());
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
    IndexMetadata segment = writeSegment(dataset, params, field);
    String directory =
        DatasetInternals.context(dataset).paths().indexDir(uuidOf(segment).toString());
    try {
      Dataset committed =
          DatasetInternals.commitIndexes(
              dataset, List.of(segment), existing.stream().map(IndexInternals::proto).toList());
      LOG.info(
          "BTree index {} on {}: committed as version {}",
          params.name(),
          params.column(),
          committed.version());
      return committed;
    } catch (RuntimeException e) {
      if (!(e
          instanceof CommitOutcomeUnknownException)) { // else the version may refer to the files
        try {
          DatasetInternals.context(dataset).io().deleteRecursively(directory);
        } catch (RuntimeException cleanup) {
          e.addSuppressed(cleanup);
        }
      }
      throw e;
    }
  }

  /** The column to index, or a clear refusal. */
  static LanceField checkColumn(Dataset dataset, String column) {
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

  /** Writes the segment's files and returns its manifest entry, without committing it. */
  static IndexMetadata writeSegment(Dataset dataset, BTreeBuildParams params, LanceField field) {
    long start = System.nanoTime();
    long rows = dataset.countRows();
    if (rows > Integer.MAX_VALUE - 8) {
      throw new InvalidInputException(
          "Cannot create BTree index \""
              + params.name()
              + "\" on column "
              + params.column()
              + ": the version has "
              + rows
              + " rows and a build holds at most "
              + (Integer.MAX_VALUE - 8)
              + " in memory. Build it with Lance.");
    }
    LOG.info(
        "BTree index {} on {} of {} version {}: scanning {} rows in {} fragments",
        params.name(),
        params.column(),
        dataset.location(),
        dataset.version(),
        rows,
        DatasetInternals.snapshot(dataset).fragments().size());
    ColumnKind kind = ColumnKind.of(field.arrowType());
    IndexColumnData data = new IndexColumnData(kind, (int) rows);
    try (CloseableIterator<VectorSchemaRoot> batches =
        dataset.newScan().columns(params.column()).withRowAddress(true).batches()) {
      long nextLog = LOG_EVERY_ROWS;
      while (batches.hasNext()) {
        VectorSchemaRoot batch = batches.next();
        data.append(
            batch.getVector(params.column()),
            batch.getVector(FragmentScan.ROW_ADDRESS_FIELD.getName()),
            batch.getRowCount());
        if (data.size() >= nextLog) {
          LOG.info("BTree index {}: scanned {} of {} rows", params.name(), data.size(), rows);
          nextLog += LOG_EVERY_ROWS;
        }
      }
    }
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
        "BTree index {} on {}: {} rows ({} null) in {} pages, {} + {} bytes, in {} ms",
        params.name(),
        params.column(),
        written.rows(),
        written.nullCount(),
        written.pages(),
        written.lookupBytes(),
        written.pagesBytes(),
        (System.nanoTime() - start) / 1_000_000);
    RoaringBitmap fragments = new RoaringBitmap();
    for (DataFragment f : DatasetInternals.snapshot(dataset).fragments()) {
      fragments.add((int) f.getId());
    }
    return IndexMetadata.newBuilder()
        .setUuid(UUID.newBuilder().setUuid(IndexUuids.uuidBytes(uuid)))
        .addFields(field.id())
        .setName(params.name())
        .setDatasetVersion(dataset.version())
        .setFragmentBitmap(FragmentBitmaps.bytes(fragments))
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

  private static java.util.UUID uuidOf(IndexMetadata m) {
    return IndexInternals.segment(m).uuid();
  }
}
