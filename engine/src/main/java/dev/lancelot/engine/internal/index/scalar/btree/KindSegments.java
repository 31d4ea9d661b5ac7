package dev.lancelot.engine.internal.index.scalar.btree;

import com.google.protobuf.Any;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.index.IndexSegment;
import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.index.scalar.ScalarBuildParams;
import dev.lancelot.engine.index.scalar.ScalarIndexException;
import dev.lancelot.engine.internal.DatasetInternals;
import dev.lancelot.engine.internal.expr.eval.ColumnKind;
import dev.lancelot.engine.internal.file.LanceFileReader;
import dev.lancelot.engine.internal.format.FragmentBitmaps;
import dev.lancelot.engine.internal.format.IndexUuids;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFragment;
import dev.lancelot.engine.internal.format.proto.TableProtos.IndexFile;
import dev.lancelot.engine.internal.format.proto.TableProtos.IndexMetadata;
import dev.lancelot.engine.internal.format.proto.TableProtos.UUID;
import dev.lancelot.engine.internal.index.scalar.zone.BloomFilterSegmentReader;
import dev.lancelot.engine.internal.index.scalar.zone.NGramSegmentReader;
import dev.lancelot.engine.internal.index.scalar.zone.NGramWriter;
import dev.lancelot.engine.internal.index.scalar.zone.ZoneIndexWriter;
import dev.lancelot.engine.internal.index.scalar.zone.ZoneMapSegmentReader;
import dev.lancelot.engine.internal.table.Snapshot;
import dev.lancelot.engine.io.InputFile;
import dev.lancelot.engine.schema.LanceField;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.roaringbitmap.RoaringBitmap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The segments of the scalar kinds other than BTree that lancelot builds (bitmap, label list, zone
 * map, bloom filter, n-gram), in lance-core 7's layout: one file each, {@code index_version} 0 (1
 * for a label list, whose file records its NULL lists), empty details of the kind's message, the
 * files listed with their sizes. Called by {@link BTreeBuild}, which checks and commits builds of
 * every kind alike.
 */
final class KindSegments {
  private static final Logger LOG = LoggerFactory.getLogger(KindSegments.class);

  static final String BITMAP_DETAILS = "/lance.table.BitmapIndexDetails";
  static final String ZONEMAP_DETAILS = "/lance.table.ZoneMapIndexDetails";
  static final String BLOOM_DETAILS = "/lance.index.pb.BloomFilterIndexDetails";
  static final String LABEL_LIST_DETAILS = "/lance.table.LabelListIndexDetails";
  static final String NGRAM_DETAILS = "/lance.table.NGramIndexDetails";

  /** The {@code index_version} of label lists whose file records the NULL lists. */
  static final int LABEL_LIST_VERSION = 1;

  private KindSegments() {}

  /** The column to index with {@code params.type()}, or a refusal naming what is wrong. */
  static LanceField checkColumn(Dataset dataset, ScalarBuildParams params) {
    LanceField field =
        dataset
            .lanceSchema()
            .field(params.column())
            .orElseThrow(
                () ->
                    new InvalidInputException(
                        "Cannot create a "
                            + params.type()
                            + " index on column \""
                            + params.column()
                            + "\" of "
                            + dataset.location()
                            + ": the dataset has no such column. Its columns are "
                            + dataset.lanceSchema().names()
                            + "."));
    if (params.type() == IndexType.LABEL_LIST) {
      return checkListColumn(dataset, params, field);
    }
    if (params.type() == IndexType.NGRAM) {
      return checkTextColumn(dataset, params, field);
    }
    ColumnKind kind = ColumnKind.of(field.arrowType());
    boolean ok =
        params.type() == IndexType.BLOOM_FILTER
            ? ZoneIndexWriter.bloomSupports(kind)
            : ValueCodec.supports(kind) && kind != ColumnKind.FIXED_BINARY;
    if (!ok) {
      throw new InvalidInputException(
          "Cannot create a "
              + params.type()
              + " index on column \""
              + params.column()
              + "\" of "
              + dataset.location()
              + ": its type "
              + field.logicalType()
              + " cannot be indexed by it. "
              + (params.type() == IndexType.BLOOM_FILTER
                  ? "lancelot builds bloom filters on int32, int64, uint32, uint64, date, timestamp,"
                      + " string and binary columns."
                  : "Index an integer, float, date, timestamp, bool, string or binary column."));
    }
    return field;
  }

  private static LanceField checkTextColumn(
      Dataset dataset, ScalarBuildParams params, LanceField field) {
    ColumnKind kind = ColumnKind.of(field.arrowType());
    if (kind != ColumnKind.UTF8 && kind != ColumnKind.LARGE_UTF8) {
      throw new InvalidInputException(
          "Cannot create an NGRAM index on column \""
              + params.column()
              + "\" of "
              + dataset.location()
              + ": its type "
              + field.logicalType()
              + " is not a string (n-gram indexes hold the trigrams of texts).");
    }
    if (dataset.stableRowIds()) {
      throw new InvalidInputException(
          "Cannot create an NGRAM index on column \""
              + params.column()
              + "\" of "
              + dataset.location()
              + ": the dataset uses stable row ids, and lancelot builds n-gram indexes only on"
              + " datasets without them (build it with Lance).");
    }
    return field;
  }

  private static LanceField checkListColumn(
      Dataset dataset, ScalarBuildParams params, LanceField field) {
    boolean list =
        (field.arrowType() instanceof ArrowType.List
                || field.arrowType() instanceof ArrowType.LargeList)
            && field.children().size() == 1;
    ColumnKind element = list ? ColumnKind.of(field.children().get(0).arrowType()) : null;
    if (element == null || !ValueCodec.supports(element) || element == ColumnKind.FIXED_BINARY) {
      throw new InvalidInputException(
          "Cannot create a LABEL_LIST index on column \""
              + params.column()
              + "\" of "
              + dataset.location()
              + ": its type "
              + field.logicalType()
              + " is not a list of integers, floats, dates, timestamps, bools, strings or"
              + " binaries.");
    }
    return field;
  }

  /**
   * Writes the segment of {@code params.type()} covering {@code fragments} of {@code dataset}'s
   * version and returns its manifest entry, without committing it.
   */
  static IndexMetadata writeSegment(
      Dataset dataset, ScalarBuildParams params, List<DataFragment> fragments) {
    LanceField field = checkColumn(dataset, params);
    long start = System.nanoTime();
    long rows = 0;
    List<Long> ids = new ArrayList<>(fragments.size());
    RoaringBitmap covered = new RoaringBitmap();
    for (DataFragment f : fragments) {
      rows += Snapshot.liveRows(f);
      ids.add(f.getId());
      covered.add((int) f.getId());
    }
    if (rows > BTreeBuild.MAX_SEGMENT_ROWS) {
      throw new InvalidInputException(
          "Cannot create "
              + params.type()
              + " index \""
              + params.name()
              + "\" on column "
              + params.column()
              + ": one segment would hold "
              + rows
              + " rows and a segment's build holds at most "
              + BTreeBuild.MAX_SEGMENT_ROWS
              + " in memory.");
    }
    // A bitmap stores row ids on a dataset with stable row ids (as a BTree does); zones are spans
    // of row addresses; n-grams are built without stable row ids only, on row addresses.
    Boolean addresses =
        (params.type() == IndexType.BITMAP || params.type() == IndexType.LABEL_LIST)
            ? null
            : Boolean.TRUE;
    LabelLists.Gathered lists = null;
    IndexColumnData data;
    if (params.type() == IndexType.LABEL_LIST) {
      lists = LabelLists.gather(dataset, params.column(), field, ids, (int) rows);
      data = lists.elements();
    } else {
      data = BTreeBuild.gather(dataset, params.btree(), field, ids, (int) rows, addresses);
    }
    java.util.UUID uuid = java.util.UUID.randomUUID();
    var context = DatasetInternals.context(dataset);
    String directory = context.paths().indexDir(uuid.toString());
    String file;
    String details;
    long size;
    try {
      switch (params.type()) {
        case BITMAP -> {
          file = BitmapSegmentReader.LOOKUP_FILE;
          details = BITMAP_DETAILS;
          size =
              BitmapWriter.write(
                  context.io(), directory, field.arrowType(), data, context.allocator(), null);
        }
        case LABEL_LIST -> {
          file = BitmapSegmentReader.LOOKUP_FILE;
          details = LABEL_LIST_DETAILS;
          size =
              BitmapWriter.write(
                  context.io(),
                  directory,
                  field.children().get(0).arrowType(),
                  data,
                  context.allocator(),
                  lists.nullLists());
        }
        case ZONEMAP -> {
          file = ZoneMapSegmentReader.FILE;
          details = ZONEMAP_DETAILS;
          size =
              ZoneIndexWriter.writeZoneMap(
                  context.io(),
                  directory,
                  field.arrowType(),
                  data,
                  params.rowsPerZone(),
                  context.allocator());
        }
        case NGRAM -> {
          file = NGramSegmentReader.FILE;
          details = NGRAM_DETAILS;
          size = NGramWriter.write(context.io(), directory, data, context.allocator());
        }
        case BLOOM_FILTER -> {
          file = BloomFilterSegmentReader.FILE;
          details = BLOOM_DETAILS;
          size =
              ZoneIndexWriter.writeBloomFilter(
                  context.io(),
                  directory,
                  data,
                  params.bloomItems(),
                  params.bloomProbability(),
                  context.allocator());
        }
        default -> throw new IllegalStateException("not a built kind: " + params.type());
      }
    } catch (RuntimeException e) {
      context.io().deleteRecursively(directory);
      throw e;
    }
    LOG.info(
        "{} index {} on {}: {} rows of fragments {}, {} bytes, in {} ms",
        params.type(),
        params.name(),
        params.column(),
        rows,
        ids.size() <= 8 ? ids : ids.size() + " fragments",
        size,
        (System.nanoTime() - start) / 1_000_000);
    return IndexMetadata.newBuilder()
        .setUuid(UUID.newBuilder().setUuid(IndexUuids.uuidBytes(uuid)))
        .addFields(field.id())
        .setName(params.name())
        .setDatasetVersion(dataset.version())
        .setFragmentBitmap(FragmentBitmaps.bytes(covered))
        .setIndexDetails(Any.newBuilder().setTypeUrl(details))
        .setIndexVersion(params.type() == IndexType.LABEL_LIST ? LABEL_LIST_VERSION : 0)
        .setCreatedAt(System.currentTimeMillis())
        .addFiles(IndexFile.newBuilder().setPath(file).setSizeBytes(size))
        .build();
  }

  /**
   * The build settings of index {@code name}'s first segment {@code segment} (kind, column, and the
   * zone sizes and bloom-filter probability its file records), to build more segments like it.
   */
  static ScalarBuildParams paramsOf(Dataset dataset, String name, IndexSegment segment) {
    IndexType type = segment.type();
    int fieldId = segment.fieldIds().get(0);
    LanceField field =
        dataset
            .lanceSchema()
            .fieldById(fieldId)
            .orElseThrow(
                () ->
                    new ScalarIndexException(
                        "Cannot optimize "
                            + type
                            + " index \""
                            + name
                            + "\": it indexes field id "
                            + fieldId
                            + ", which the dataset's schema no longer has. Drop the index."));
    ScalarBuildParams params = ScalarBuildParams.of(type, field.name()).withName(name);
    if (type == IndexType.BITMAP || type == IndexType.LABEL_LIST || type == IndexType.NGRAM) {
      return params;
    }
    String file =
        type == IndexType.ZONEMAP ? ZoneMapSegmentReader.FILE : BloomFilterSegmentReader.FILE;
    String location = DatasetInternals.indexDir(dataset, segment) + "/" + file;
    Map<String, String> meta;
    try (InputFile in = DatasetInternals.context(dataset).io().newInputFile(location)) {
      meta = LanceFileReader.open(in).schema().metadata();
    } catch (RuntimeException e) {
      throw new ScalarIndexException(
          "Cannot optimize " + type + " index \"" + name + "\": cannot read " + location, e);
    }
    try {
      if (type == IndexType.ZONEMAP) {
        return params.withRowsPerZone(Long.parseLong(meta.get("rows_per_zone")));
      }
      return params.withBloomFilter(
          Long.parseLong(meta.get("bloomfilter_item")),
          Double.parseDouble(meta.get("bloomfilter_probability")));
    } catch (RuntimeException e) {
      throw new ScalarIndexException(
          "Cannot optimize "
              + type
              + " index \""
              + name
              + "\": "
              + location
              + " does not record its settings as Lance 7 does (schema metadata "
              + meta
              + ")",
          e);
    }
  }
}
