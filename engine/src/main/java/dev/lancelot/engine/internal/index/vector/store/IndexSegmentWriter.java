package dev.lancelot.engine.internal.index.vector.store;

import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.internal.file.LanceFileWriter;
import dev.lancelot.engine.internal.file.WriteSummary;
import dev.lancelot.engine.internal.file.WriterOptions;
import dev.lancelot.engine.internal.index.vector.hnsw.HnswGraph;
import dev.lancelot.engine.internal.index.vector.ivf.IvfModel;
import dev.lancelot.engine.internal.index.vector.pq.PqCodebook;
import dev.lancelot.engine.internal.index.vector.rq.RabitQuantizer;
import dev.lancelot.engine.internal.index.vector.rq.RqCodes;
import dev.lancelot.engine.internal.index.vector.sq.ScalarQuantizer;
import dev.lancelot.engine.io.FileIO;
import dev.lancelot.engine.schema.LanceSchema;
import dev.lancelot.engine.vector.DistanceMetric;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Writes one vector index segment in Lance 7's layout ({@link IndexFileLayout}): {@code
 * auxiliary.idx} with the row addresses and codes of every partition (partition order, each
 * partition's rows in the order given) and {@code index.idx} with the IVF centroids and the
 * sub-index (an empty FLAT marker, or the HNSW graphs). The files are created new; an existing file
 * is an error, so a segment directory is written exactly once.
 */
public final class IndexSegmentWriter {
  /** PQ prefetch hint Lance records with HNSW params (it ignores the value on read). */
  private static final int HNSW_PREFETCH_DISTANCE = 2;

  private IndexSegmentWriter() {}

  /**
   * One partition's content: row addresses and, by quantizer, raw vectors ({@code vectors},
   * row-major, already normalized for cosine) or codes ({@code codes}: PQ transposed {@code [m,
   * rows]}, SQ row-major {@code [rows, dim]}, RaBitQ carried rows with their factors as {@link
   * RqCodes} describes); {@code graph} for HNSW types.
   */
  public record Partition(long[] rowIds, float[] vectors, byte[] codes, HnswGraph graph)
      implements java.io.Serializable {
    public int size() {
      return rowIds.length;
    }
  }

  /**
   * What a segment holds. {@code codebook} for PQ types, {@code quantizer} for SQ types, {@code
   * rabit} for IVF_RQ.
   */
  public record Content(
      IndexType type,
      DistanceMetric metric,
      IvfModel ivf,
      PqCodebook codebook,
      ScalarQuantizer quantizer,
      RabitQuantizer rabit,
      List<Partition> partitions,
      double loss) {
    public Content {
      Objects.requireNonNull(type, "type");
      if (partitions.size() != ivf.numPartitions()) {
        throw new IllegalArgumentException(
            partitions.size() + " partitions for " + ivf.numPartitions() + " centroids");
      }
      boolean pq = type == IndexType.IVF_PQ || type == IndexType.IVF_HNSW_PQ;
      boolean sq = type == IndexType.IVF_SQ || type == IndexType.IVF_HNSW_SQ;
      boolean rq = type == IndexType.IVF_RQ;
      if (pq != (codebook != null) || sq != (quantizer != null) || rq != (rabit != null)) {
        throw new IllegalArgumentException(
            type
                + " needs "
                + (pq
                    ? "a PQ codebook"
                    : sq ? "SQ bounds" : rq ? "a RaBitQ rotation" : "no quantizer"));
      }
    }
  }

  /** A file written, as the manifest's {@code IndexMetadata.files} records it. */
  public record WrittenFile(String name, long sizeBytes) {}

  /** Writes both files under {@code directory}; returns them in the order Lance lists them. */
  public static List<WrittenFile> write(
      FileIO io, String directory, Content c, BufferAllocator allocator) {
    WrittenFile aux =
        writeAuxiliary(io, directory + "/" + IndexFileLayout.AUXILIARY_FILE, c, allocator);
    WrittenFile index = writeIndex(io, directory + "/" + IndexFileLayout.INDEX_FILE, c, allocator);
    return List.of(aux, index);
  }

  private static WrittenFile writeAuxiliary(
      FileIO io, String location, Content c, BufferAllocator allocator) {
    int dim = c.ivf().dimension();
    Field codes =
        switch (codeColumn(c.type())) {
          case IndexFileLayout.PQ_CODE_COLUMN ->
              fixedSizeList(
                  IndexFileLayout.PQ_CODE_COLUMN,
                  c.codebook().numSubVectors(),
                  new ArrowType.Int(8, false),
                  true);
          case IndexFileLayout.SQ_CODE_COLUMN ->
              fixedSizeList(IndexFileLayout.SQ_CODE_COLUMN, dim, new ArrowType.Int(8, false), true);
          case IndexFileLayout.RQ_CODE_COLUMN ->
              fixedSizeList(
                  IndexFileLayout.RQ_CODE_COLUMN,
                  c.rabit().codeBytes(),
                  new ArrowType.Int(8, false),
                  true);
          default ->
              fixedSizeList(
                  IndexFileLayout.FLAT_COLUMN,
                  dim,
                  new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE),
                  false);
        };
    List<Field> fields = new ArrayList<>();
    fields.add(
        new Field(
            IndexFileLayout.ROW_ID_COLUMN, FieldType.nullable(new ArrowType.Int(64, false)), null));
    fields.add(codes);
    if (c.rabit() != null) {
      for (String factor :
          List.of(IndexFileLayout.RQ_ADD_FACTORS_COLUMN, IndexFileLayout.RQ_SCALE_FACTORS_COLUMN)) {
        fields.add(
            new Field(
                factor,
                FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)),
                null));
      }
    }
    Schema schema = new Schema(fields);
    int[] lengths = new int[c.partitions().size()];
    try (LanceFileWriter w =
        LanceFileWriter.create(
            io.create(location), LanceSchema.fromArrow(schema), WriterOptions.defaults())) {
      for (int p = 0; p < lengths.length; p++) {
        Partition part = c.partitions().get(p);
        lengths[p] = part.size();
        if (part.size() > 0) {
          try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
            fillAuxiliary(root, part, c.rabit());
            w.write(root);
          }
        }
      }
      w.putSchemaMetadata(IndexFileLayout.DISTANCE_TYPE_KEY, c.metric().lanceName());
      int ivfBuffer = w.addGlobalBuffer(IvfProto.encode(lengths, null, dim, null));
      w.putSchemaMetadata(IndexFileLayout.IVF_METADATA_KEY, Integer.toString(ivfBuffer));
      StorageMetadata meta;
      if (c.codebook() != null) {
        PqCodebook cb = c.codebook();
        int position =
            w.addGlobalBuffer(
                IvfProto.tensor(cb.copyCodebook(), List.of(PqCodebook.NUM_CENTROIDS, dim))
                    .toByteArray());
        meta = new StorageMetadata.Pq(position, 8, cb.numSubVectors(), dim, true);
      } else if (c.quantizer() != null) {
        meta = new StorageMetadata.Sq(dim, 8, c.quantizer().start(), c.quantizer().end());
      } else if (c.rabit() != null) {
        RabitQuantizer rq = c.rabit();
        meta =
            new StorageMetadata.Rq(
                "fast", rq.rotation().signs(), rq.codeDim(), rq.numBits(), true, null);
      } else {
        meta = new StorageMetadata.Flat(dim);
      }
      w.putSchemaMetadata(IndexFileLayout.STORAGE_METADATA_KEY, StorageMetadata.encodeArray(meta));
      WriteSummary s = w.finish();
      return new WrittenFile(IndexFileLayout.AUXILIARY_FILE, s.fileSizeBytes());
    }
  }

  private static void fillAuxiliary(VectorSchemaRoot root, Partition part, RabitQuantizer rabit) {
    int n = part.size();
    byte[] codes = part.codes();
    if (rabit != null) {
      RqCodes.Split split = RqCodes.split(codes, n, rabit.codeBytes());
      codes = RqCodes.packed(split.codes(), n, rabit.codeBytes());
      fillFloats((Float4Vector) root.getVector(2), split.add());
      fillFloats((Float4Vector) root.getVector(3), split.scale());
    }
    UInt8Vector ids = (UInt8Vector) root.getVector(0);
    ids.allocateNew(n);
    for (int i = 0; i < n; i++) {
      ids.set(i, part.rowIds()[i]);
    }
    ids.setValueCount(n);
    FixedSizeListVector list = (FixedSizeListVector) root.getVector(1);
    int width = list.getListSize();
    list.allocateNew();
    FieldVector items = list.getDataVector();
    if (items instanceof Float4Vector f) {
      f.allocateNew(n * width);
      for (int i = 0; i < n * width; i++) {
        f.set(i, part.vectors()[i]);
      }
    } else {
      UInt1Vector u = (UInt1Vector) items;
      u.allocateNew(n * width);
      u.getDataBuffer().setBytes(0, codes, 0, (long) n * width);
      u.getValidityBuffer().setOne(0L, (n * width + 7) / 8L);
    }
    items.setValueCount(n * width);
    for (int i = 0; i < n; i++) {
      list.setNotNull(i);
    }
    list.setValueCount(n);
    root.setRowCount(n);
  }

  private static void fillFloats(Float4Vector v, float[] values) {
    v.allocateNew(values.length);
    for (int i = 0; i < values.length; i++) {
      v.set(i, values[i]);
    }
    v.setValueCount(values.length);
  }

  private static WrittenFile writeIndex(
      FileIO io, String location, Content c, BufferAllocator allocator) {
    int dim = c.ivf().dimension();
    boolean hnsw = c.type().isHnsw();
    Schema schema =
        hnsw
            ? graphSchema()
            : new Schema(
                List.of(
                    new Field(
                        IndexFileLayout.FLAT_MARKER_COLUMN,
                        FieldType.notNullable(new ArrowType.Int(64, false)),
                        null)));
    int[] lengths = new int[c.partitions().size()];
    List<HnswPartitionMetadata> graphMeta = new ArrayList<>();
    try (LanceFileWriter w =
        LanceFileWriter.create(
            io.create(location), LanceSchema.fromArrow(schema), WriterOptions.defaults())) {
      if (hnsw) {
        for (int p = 0; p < lengths.length; p++) {
          HnswGraph g = c.partitions().get(p).graph();
          if (g == null || g.numNodes() == 0) {
            graphMeta.add(null);
            continue;
          }
          HnswGraphCodec.Rows rows = HnswGraphCodec.encode(g);
          lengths[p] = rows.size();
          graphMeta.add(HnswGraphCodec.metadata(g, HNSW_PREFETCH_DISTANCE));
          try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
            fillGraph(root, rows);
            w.write(root);
          }
        }
      }
      w.putSchemaMetadata(
          IndexFileLayout.INDEX_METADATA_KEY,
          StorageMetadata.JSON
              .createObjectNode()
              .put("type", c.type().name())
              .put("distance_type", c.metric().lanceName())
              .toString());
      int ivfBuffer =
          w.addGlobalBuffer(IvfProto.encode(lengths, c.ivf().copyCentroids(), dim, c.loss()));
      w.putSchemaMetadata(IndexFileLayout.IVF_METADATA_KEY, Integer.toString(ivfBuffer));
      if (hnsw) {
        w.putSchemaMetadata(
            IndexFileLayout.HNSW_METADATA_KEY, HnswPartitionMetadata.encodeArray(graphMeta));
      } else {
        var flat = StorageMetadata.JSON.createArrayNode();
        for (int p = 0; p < lengths.length; p++) {
          flat.add("");
        }
        w.putSchemaMetadata(IndexFileLayout.FLAT_METADATA_KEY, flat.toString());
      }
      WriteSummary s = w.finish();
      return new WrittenFile(IndexFileLayout.INDEX_FILE, s.fileSizeBytes());
    }
  }

  private static Schema graphSchema() {
    return new Schema(
        List.of(
            new Field(
                IndexFileLayout.VECTOR_ID_COLUMN,
                FieldType.nullable(new ArrowType.Int(32, false)),
                null),
            list(IndexFileLayout.NEIGHBORS_COLUMN, new ArrowType.Int(32, false)),
            list(
                IndexFileLayout.DISTANCE_COLUMN,
                new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE))));
  }

  private static void fillGraph(VectorSchemaRoot root, HnswGraphCodec.Rows rows) {
    int n = rows.size();
    UInt4Vector ids = (UInt4Vector) root.getVector(0);
    ids.allocateNew(n);
    for (int i = 0; i < n; i++) {
      ids.set(i, rows.vectorIds()[i]);
    }
    ids.setValueCount(n);
    int edges = rows.listOffsets()[n];
    ListVector nbrs = (ListVector) root.getVector(1);
    ListVector dists = (ListVector) root.getVector(2);
    for (ListVector l : new ListVector[] {nbrs, dists}) {
      l.allocateNew();
      for (int i = 0; i < n; i++) {
        l.startNewValue(i);
        l.endValue(i, rows.listOffsets()[i + 1] - rows.listOffsets()[i]);
      }
    }
    UInt4Vector nv = (UInt4Vector) nbrs.getDataVector();
    Float4Vector dv = (Float4Vector) dists.getDataVector();
    nv.allocateNew(edges);
    dv.allocateNew(edges);
    for (int e = 0; e < edges; e++) {
      nv.set(e, rows.neighbors()[e]);
      dv.set(e, rows.distances()[e]);
    }
    nv.setValueCount(edges);
    dv.setValueCount(edges);
    nbrs.setValueCount(n);
    dists.setValueCount(n);
    root.setRowCount(n);
  }

  static String codeColumn(IndexType type) {
    return switch (type) {
      case IVF_PQ, IVF_HNSW_PQ -> IndexFileLayout.PQ_CODE_COLUMN;
      case IVF_SQ, IVF_HNSW_SQ -> IndexFileLayout.SQ_CODE_COLUMN;
      case IVF_RQ -> IndexFileLayout.RQ_CODE_COLUMN;
      case IVF_FLAT, IVF_HNSW_FLAT -> IndexFileLayout.FLAT_COLUMN;
      default -> throw new IllegalArgumentException("not a vector index type: " + type);
    };
  }

  private static Field fixedSizeList(String name, int width, ArrowType item, boolean nullable) {
    Field child = new Field("item", FieldType.nullable(item), null);
    FieldType type =
        nullable
            ? FieldType.nullable(new ArrowType.FixedSizeList(width))
            : FieldType.notNullable(new ArrowType.FixedSizeList(width));
    return new Field(name, type, List.of(child));
  }

  private static Field list(String name, ArrowType item) {
    return new Field(
        name,
        FieldType.nullable(ArrowType.List.INSTANCE),
        List.of(new Field("item", FieldType.nullable(item), null)));
  }
}
