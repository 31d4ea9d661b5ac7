package dev.lancelot.engine.internal.maintenance;

import com.google.protobuf.Any;
import dev.lancelot.engine.CloseableIterator;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.LancelotException;
import dev.lancelot.engine.index.IndexSegment;
import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.index.vector.VectorIndexSpec;
import dev.lancelot.engine.internal.DatasetInternals;
import dev.lancelot.engine.internal.expr.eval.ColumnKind;
import dev.lancelot.engine.internal.format.IndexUuids;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFragment;
import dev.lancelot.engine.internal.format.proto.TableProtos.IndexFile;
import dev.lancelot.engine.internal.format.proto.TableProtos.UUID;
import dev.lancelot.engine.internal.format.proto.TransactionProtos.Transaction.Rewrite.RewrittenIndex;
import dev.lancelot.engine.internal.index.IndexInternals;
import dev.lancelot.engine.internal.index.scalar.btree.BTreeFiles;
import dev.lancelot.engine.internal.index.scalar.btree.BTreeWriter;
import dev.lancelot.engine.internal.index.scalar.btree.BitmapSegmentReader;
import dev.lancelot.engine.internal.index.scalar.btree.BitmapWriter;
import dev.lancelot.engine.internal.index.scalar.btree.IndexColumnData;
import dev.lancelot.engine.internal.index.scalar.btree.LabelLists;
import dev.lancelot.engine.internal.index.scalar.zone.NGramSegmentReader;
import dev.lancelot.engine.internal.index.scalar.zone.NGramWriter;
import dev.lancelot.engine.internal.index.vector.build.IndexDetails;
import dev.lancelot.engine.internal.index.vector.build.TrainedModel;
import dev.lancelot.engine.internal.index.vector.build.VectorIndexBuilder;
import dev.lancelot.engine.internal.index.vector.hnsw.HnswBuildParams;
import dev.lancelot.engine.internal.index.vector.store.IndexSegmentReader;
import dev.lancelot.engine.internal.index.vector.store.IndexSegmentWriter;
import dev.lancelot.engine.internal.scan.FragmentScan;
import dev.lancelot.engine.io.FileIO;
import dev.lancelot.engine.schema.LanceField;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Rewrites an index segment for the row addresses a compaction gave its rows, as Lance 7 does when
 * {@code defer_index_remap} is off: a new segment (new uuid, same name, model and parameters) with
 * every row address mapped through the {@link RowAddressMap} and the rows deleted before the
 * compaction left out. The old segment's files stay until cleanup.
 *
 * <ul>
 *   <li>Vector segments keep their IVF centroids, PQ codebook, SQ bounds or RaBitQ rotation and
 *       each row's stored code (with its RaBitQ factors) or vector in its partition; only row
 *       addresses change. HNSW graphs are rebuilt over the remaining nodes of each partition with
 *       the index's parameters, as Lance's HNSW remap rebuilds them.
 *   <li>BTree, bitmap, n-gram and label-list segments are written again from the column's values
 *       over the fragments the segment covered, with mapped addresses; they hold values (or a
 *       value's trigrams, or a list's elements and the NULL lists) and addresses only, so this is
 *       the content Lance's remap produces, minus rows deleted since the build (decisions D69,
 *       D77).
 * </ul>
 *
 * <p>Zone maps and bloom filters are not rewritten ({@link #keptAsIs}): lance-core 7.0.0 keeps them
 * unchanged, and the compacted rows are unindexed. Full-text indexes keep the fragments they cover
 * out of compaction.
 */
final class IndexRemapper {
  private IndexRemapper() {}

  static boolean canRemap(IndexType type) {
    return type.isSupported()
        || type == IndexType.BITMAP
        || type == IndexType.NGRAM
        || type == IndexType.LABEL_LIST;
  }

  /**
   * Kinds a compaction leaves as they are, as lance-core 7.0.0 does (it cannot remap them): the
   * segment keeps its uuid, files and fragment bitmap, which still names the compacted fragments
   * (ids never reused), so their rows, now in new fragments, are unindexed until the index is
   * optimized or rebuilt (decision D77).
   */
  static boolean keptAsIs(IndexType type) {
    return type == IndexType.ZONEMAP || type == IndexType.BLOOM_FILTER;
  }

  /**
   * Writes the remapped copy of {@code segment} and returns the rewrite record of the transaction.
   */
  static RewrittenIndex remap(Dataset dataset, IndexSegment segment, RowAddressMap map) {
    java.util.UUID uuid = java.util.UUID.randomUUID();
    FileIO io = DatasetInternals.context(dataset).io();
    String dir = DatasetInternals.context(dataset).paths().indexDir(uuid.toString());
    List<IndexFile> files;
    try {
      files =
          switch (segment.type()) {
            case BTREE, BITMAP, NGRAM, LABEL_LIST -> remapScalar(dataset, segment, map, dir);
            default -> remapVector(dataset, segment, map, dir);
          };
    } catch (RuntimeException e) {
      io.deleteRecursively(dir);
      throw e;
    }
    RewrittenIndex.Builder b =
        RewrittenIndex.newBuilder()
            .setOldId(IndexInternals.proto(segment).getUuid())
            .setNewId(UUID.newBuilder().setUuid(IndexUuids.uuidBytes(uuid)))
            .setNewIndexVersion(IndexInternals.proto(segment).getIndexVersion())
            .addAllNewIndexFiles(files);
    Any details = IndexInternals.proto(segment).getIndexDetails();
    if (!details.getTypeUrl().isEmpty()) {
      b.setNewIndexDetails(details);
    }
    return b.build();
  }

  private static List<IndexFile> remapVector(
      Dataset dataset, IndexSegment segment, RowAddressMap map, String dir) {
    FileIO io = DatasetInternals.context(dataset).io();
    IndexSegmentReader reader =
        IndexSegmentReader.open(io, DatasetInternals.indexDir(dataset, segment));
    TrainedModel model = TrainedModel.of(reader);
    VectorIndexSpec spec = IndexDetails.specOf(segment);
    int dim = reader.dimension();
    List<IndexSegmentWriter.Partition> partitions = new ArrayList<>();
    for (int p = 0; p < reader.numPartitions(); p++) {
      IndexSegmentWriter.Partition stored =
          reader.readStoredPartition(p, DatasetInternals.context(dataset).allocator());
      IndexSegmentWriter.Partition mapped = remapPartition(stored, map, model, dim);
      if (segment.type().isHnsw()) {
        mapped = VectorIndexBuilder.withGraph(model, mapped, HnswBuildParams.of(spec), p);
      }
      partitions.add(mapped);
    }
    List<IndexSegmentWriter.WrittenFile> written =
        IndexSegmentWriter.write(
            io,
            dir,
            new IndexSegmentWriter.Content(
                reader.type(),
                reader.metric(),
                reader.ivf(),
                reader.codebook(),
                reader.scalarQuantizer(),
                reader.rabitQuantizer(),
                partitions,
                reader.ivf().loss()),
            DatasetInternals.context(dataset).allocator());
    List<IndexFile> files = new ArrayList<>();
    for (IndexSegmentWriter.WrittenFile f : written) {
      files.add(IndexFile.newBuilder().setPath(f.name()).setSizeBytes(f.sizeBytes()).build());
    }
    return files;
  }

  /**
   * One partition with mapped addresses, deleted rows dropped, codes and vectors kept in row order.
   */
  static IndexSegmentWriter.Partition remapPartition(
      IndexSegmentWriter.Partition stored, RowAddressMap map, TrainedModel model, int dim) {
    int rows = stored.size();
    int[] kept = new int[rows];
    long[] ids = new long[rows];
    int n = 0;
    for (int i = 0; i < rows; i++) {
      long mapped = map.map(stored.rowIds()[i]);
      if (mapped != RowAddressMap.DELETED) {
        kept[n] = i;
        ids[n++] = mapped;
      }
    }
    long[] rowIds = java.util.Arrays.copyOf(ids, n);
    if (model.codebook() != null) {
      int m = model.codebook().numSubVectors();
      byte[] codes = new byte[m * n];
      for (int s = 0; s < m; s++) {
        for (int j = 0; j < n; j++) {
          codes[s * n + j] = stored.codes()[s * rows + kept[j]];
        }
      }
      return new IndexSegmentWriter.Partition(rowIds, null, codes, null);
    }
    if (model.quantizer() != null || model.rabit() != null) {
      int width = model.codeWidth(); // SQ: dim codes; RaBitQ: codes and factors
      byte[] codes = new byte[width * n];
      for (int j = 0; j < n; j++) {
        System.arraycopy(stored.codes(), kept[j] * width, codes, j * width, width);
      }
      return new IndexSegmentWriter.Partition(rowIds, null, codes, null);
    }
    float[] vectors = new float[dim * n];
    for (int j = 0; j < n; j++) {
      System.arraycopy(stored.vectors(), kept[j] * dim, vectors, j * dim, dim);
    }
    return new IndexSegmentWriter.Partition(rowIds, vectors, null, null);
  }

  private static List<IndexFile> remapScalar(
      Dataset dataset, IndexSegment segment, RowAddressMap map, String dir) {
    if (segment.fieldIds().size() != 1) {
      throw new LancelotException(
          "Cannot compact "
              + dataset.location()
              + ": "
              + segment.type()
              + " index \""
              + segment.name()
              + "\" is on "
              + segment.fieldIds().size()
              + " columns; only single-column scalar indexes can be rewritten.");
    }
    LanceField field =
        dataset
            .lanceSchema()
            .fieldById(segment.fieldIds().get(0))
            .orElseThrow(
                () ->
                    new LancelotException(
                        "Cannot compact "
                            + dataset.location()
                            + ": "
                            + segment.type()
                            + " index \""
                            + segment.name()
                            + "\" is on field id "
                            + segment.fieldIds().get(0)
                            + ", which the schema does not have."));
    List<Long> covered = new ArrayList<>();
    for (DataFragment f : DatasetInternals.snapshot(dataset).fragments()) {
      if (segment.fragments().contains((int) f.getId())) {
        covered.add(f.getId());
      }
    }
    var context = DatasetInternals.context(dataset);
    if (segment.type() == IndexType.LABEL_LIST) {
      LabelLists.Gathered lists =
          LabelLists.gather(
              dataset,
              field.name(),
              field,
              covered,
              1024,
              old -> {
                long to = map.map(old);
                if (to == RowAddressMap.DELETED) {
                  throw new IllegalStateException("live row " + old + " has no new address");
                }
                return to;
              });
      long size =
          BitmapWriter.write(
              context.io(),
              dir,
              field.children().get(0).arrowType(),
              lists.elements(),
              context.allocator(),
              lists.nullLists());
      return List.of(
          IndexFile.newBuilder()
              .setPath(BitmapSegmentReader.LOOKUP_FILE)
              .setSizeBytes(size)
              .build());
    }
    IndexColumnData data = new IndexColumnData(ColumnKind.of(field.arrowType()), 1024);
    try (CloseableIterator<VectorSchemaRoot> batches =
            dataset
                .newScan()
                .columns(field.name())
                .withRowAddress(true)
                .fragments(covered)
                .batches();
        UInt8Vector mapped =
            new UInt8Vector("_rowaddr", DatasetInternals.context(dataset).allocator())) {
      while (batches.hasNext()) {
        VectorSchemaRoot batch = batches.next();
        int rows = batch.getRowCount();
        FieldVector addresses = batch.getVector(FragmentScan.ROW_ADDRESS_FIELD.getName());
        mapped.allocateNew(rows);
        for (int i = 0; i < rows; i++) {
          long old = addresses.getDataBuffer().getLong((long) i << 3);
          long to = map.map(old);
          if (to == RowAddressMap.DELETED) {
            throw new IllegalStateException("live row " + old + " has no new address");
          }
          mapped.set(i, to);
        }
        mapped.setValueCount(rows);
        data.append(batch.getVector(field.name()), mapped, rows);
      }
    }
    if (segment.type() == IndexType.BITMAP) {
      long size =
          BitmapWriter.write(context.io(), dir, field.arrowType(), data, context.allocator(), null);
      return List.of(
          IndexFile.newBuilder()
              .setPath(BitmapSegmentReader.LOOKUP_FILE)
              .setSizeBytes(size)
              .build());
    }
    if (segment.type() == IndexType.NGRAM) {
      long size = NGramWriter.write(context.io(), dir, data, context.allocator());
      return List.of(
          IndexFile.newBuilder().setPath(NGramSegmentReader.FILE).setSizeBytes(size).build());
    }
    BTreeWriter.Written w =
        BTreeWriter.write(
            DatasetInternals.context(dataset).io(),
            dir,
            field.arrowType(),
            data,
            BTreeFiles.DEFAULT_BATCH_SIZE,
            DatasetInternals.context(dataset).allocator());
    return List.of(
        IndexFile.newBuilder()
            .setPath(BTreeFiles.LOOKUP_FILE)
            .setSizeBytes(w.lookupBytes())
            .build(),
        IndexFile.newBuilder().setPath(BTreeFiles.PAGES_FILE).setSizeBytes(w.pagesBytes()).build());
  }
}
