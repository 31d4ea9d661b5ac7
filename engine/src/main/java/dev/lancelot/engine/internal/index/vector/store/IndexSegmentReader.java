package dev.lancelot.engine.internal.index.vector.store;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.internal.file.LanceFileReader;
import dev.lancelot.engine.internal.file.UnsupportedFileFeatureException;
import dev.lancelot.engine.internal.format.CorruptFileException;
import dev.lancelot.engine.internal.index.vector.VectorStorage;
import dev.lancelot.engine.internal.index.vector.flat.FlatStorage;
import dev.lancelot.engine.internal.index.vector.hnsw.HnswGraph;
import dev.lancelot.engine.internal.index.vector.ivf.IvfModel;
import dev.lancelot.engine.internal.index.vector.pq.PqCodebook;
import dev.lancelot.engine.internal.index.vector.pq.PqStorage;
import dev.lancelot.engine.internal.index.vector.rq.FastRotation;
import dev.lancelot.engine.internal.index.vector.rq.RabitQuantizer;
import dev.lancelot.engine.internal.index.vector.rq.RqCodes;
import dev.lancelot.engine.internal.index.vector.rq.RqStorage;
import dev.lancelot.engine.internal.index.vector.sq.ScalarQuantizer;
import dev.lancelot.engine.internal.index.vector.sq.SqStorage;
import dev.lancelot.engine.io.FileIO;
import dev.lancelot.engine.io.InputFile;
import dev.lancelot.engine.vector.DistanceMetric;
import dev.lancelot.engine.vector.VectorException;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;

/**
 * Reads one vector index segment in Lance 7's layout ({@link IndexFileLayout}): {@link #open} reads
 * and validates the metadata of both files (IVF centroids, quantizer, partition ranges); {@link
 * #readPartition} reads one partition's rows (only those rows) on demand.
 *
 * <p>Immutable and thread-safe. It holds no open files: each read opens the files it needs and
 * closes them, so a reader can be cached and dropped freely. Caching partitions is the caller's
 * business ({@code VectorSegmentSearcher} does it).
 */
public final class IndexSegmentReader {
  private final FileIO io;
  private final String indexLocation;
  private final String auxLocation;
  private final IndexType type;
  private final DistanceMetric metric;
  private final IvfModel ivf;
  private final String codeColumn;
  private final PqCodebook codebook;
  private final ScalarQuantizer quantizer;
  private final RabitQuantizer rabit;
  private final boolean rabitPacked;
  private final IvfProto.Decoded storageIvf;
  private final IvfProto.Decoded graphIvf;
  private final List<HnswPartitionMetadata> hnsw;

  private IndexSegmentReader(
      FileIO io,
      String indexLocation,
      String auxLocation,
      IndexType type,
      DistanceMetric metric,
      IvfModel ivf,
      String codeColumn,
      PqCodebook codebook,
      ScalarQuantizer quantizer,
      RabitQuantizer rabit,
      boolean rabitPacked,
      IvfProto.Decoded storageIvf,
      IvfProto.Decoded graphIvf,
      List<HnswPartitionMetadata> hnsw) {
    this.io = io;
    this.indexLocation = indexLocation;
    this.auxLocation = auxLocation;
    this.type = type;
    this.metric = metric;
    this.ivf = ivf;
    this.codeColumn = codeColumn;
    this.codebook = codebook;
    this.quantizer = quantizer;
    this.rabit = rabit;
    this.rabitPacked = rabitPacked;
    this.storageIvf = storageIvf;
    this.graphIvf = graphIvf;
    this.hnsw = hnsw;
  }

  /**
   * Opens the segment in {@code directory} ({@code <dataset>/_indices/<uuid>}, fully qualified).
   */
  public static IndexSegmentReader open(FileIO io, String directory) {
    String indexLocation = directory + "/" + IndexFileLayout.INDEX_FILE;
    String auxLocation = directory + "/" + IndexFileLayout.AUXILIARY_FILE;
    IndexType type;
    DistanceMetric metric;
    IvfProto.Decoded indexIvf;
    List<HnswPartitionMetadata> hnsw = null;
    try (InputFile in = io.newInputFile(indexLocation)) {
      LanceFileReader r = LanceFileReader.open(in);
      Map<String, String> meta = r.schema().metadata();
      JsonNode index =
          json(indexLocation, require(indexLocation, meta, IndexFileLayout.INDEX_METADATA_KEY));
      type = indexType(indexLocation, index.path("type").asText(""));
      metric = metric(indexLocation, index.path("distance_type").asText(""));
      indexIvf =
          IvfProto.decode(indexLocation, r.readGlobalBuffer(bufferIndex(indexLocation, r, meta)));
      if (indexIvf.centroids() == null || indexIvf.numPartitions() == 0) {
        throw new CorruptFileException(indexLocation, "its IVF model has no centroids");
      }
      if (type.isHnsw()) {
        hnsw =
            HnswPartitionMetadata.parseArray(
                indexLocation,
                require(indexLocation, meta, IndexFileLayout.HNSW_METADATA_KEY),
                indexIvf.numPartitions());
        checkRanges(indexLocation, indexIvf, r.numRows());
        requireColumns(
            indexLocation,
            r,
            IndexFileLayout.VECTOR_ID_COLUMN,
            IndexFileLayout.NEIGHBORS_COLUMN,
            IndexFileLayout.DISTANCE_COLUMN);
      } else {
        JsonNode flat =
            json(indexLocation, require(indexLocation, meta, IndexFileLayout.FLAT_METADATA_KEY));
        if (!flat.isArray() || flat.size() != indexIvf.numPartitions()) {
          throw new CorruptFileException(
              indexLocation,
              "its "
                  + IndexFileLayout.FLAT_METADATA_KEY
                  + " is not a JSON array with one entry per partition ("
                  + indexIvf.numPartitions()
                  + ")");
        }
      }
    }
    int dim = indexIvf.dimension();
    IvfModel ivf =
        IvfModel.of(
            indexIvf.centroids(), dim, metric, indexIvf.loss() == null ? 0 : indexIvf.loss());
    String codeColumn =
        switch (type) {
          case IVF_PQ, IVF_HNSW_PQ -> IndexFileLayout.PQ_CODE_COLUMN;
          case IVF_SQ, IVF_HNSW_SQ -> IndexFileLayout.SQ_CODE_COLUMN;
          case IVF_RQ -> IndexFileLayout.RQ_CODE_COLUMN;
          default -> IndexFileLayout.FLAT_COLUMN;
        };
    try (InputFile in = io.newInputFile(auxLocation)) {
      LanceFileReader r = LanceFileReader.open(in);
      Map<String, String> meta = r.schema().metadata();
      DistanceMetric auxMetric =
          metric(auxLocation, require(auxLocation, meta, IndexFileLayout.DISTANCE_TYPE_KEY));
      if (auxMetric != metric) {
        throw new CorruptFileException(
            auxLocation,
            "its distance_type "
                + auxMetric.lanceName()
                + " differs from the index's "
                + metric.lanceName());
      }
      IvfProto.Decoded storageIvf =
          IvfProto.decode(auxLocation, r.readGlobalBuffer(bufferIndex(auxLocation, r, meta)));
      if (storageIvf.numPartitions() != indexIvf.numPartitions()) {
        throw new CorruptFileException(
            auxLocation,
            "it has "
                + storageIvf.numPartitions()
                + " partitions but "
                + IndexFileLayout.INDEX_FILE
                + " has "
                + indexIvf.numPartitions());
      }
      checkRanges(auxLocation, storageIvf, r.numRows());
      requireColumns(auxLocation, r, IndexFileLayout.ROW_ID_COLUMN, codeColumn);
      if (type == IndexType.IVF_RQ) {
        requireColumns(
            auxLocation,
            r,
            IndexFileLayout.RQ_ADD_FACTORS_COLUMN,
            IndexFileLayout.RQ_SCALE_FACTORS_COLUMN);
      }
      StorageMetadata storage =
          StorageMetadata.parse(
              auxLocation,
              require(auxLocation, meta, IndexFileLayout.STORAGE_METADATA_KEY),
              codeColumn);
      if (storage.dimension() != dim) {
        throw new CorruptFileException(
            auxLocation,
            "its storage has dimension "
                + storage.dimension()
                + " but the IVF centroids have "
                + dim);
      }
      PqCodebook codebook = null;
      ScalarQuantizer sq = null;
      RabitQuantizer rq = null;
      boolean packed = false;
      if (storage instanceof StorageMetadata.Rq m) {
        rq = rabit(auxLocation, m, dim, metric);
        packed = m.packed();
      } else if (storage instanceof StorageMetadata.Pq pq) {
        codebook = codebook(auxLocation, r, pq, metric);
      } else if (storage instanceof StorageMetadata.Sq s) {
        if (s.numBits() != 8) {
          throw new UnsupportedFileFeatureException(
              "Cannot read "
                  + auxLocation
                  + ": SQ with "
                  + s.numBits()
                  + " bits is not supported (only 8). Rebuild the index with num_bits=8.");
        }
        sq = ScalarQuantizer.of(dim, s.start(), s.end());
      }
      return new IndexSegmentReader(
          io,
          indexLocation,
          auxLocation,
          type,
          metric,
          ivf,
          codeColumn,
          codebook,
          sq,
          rq,
          packed,
          storageIvf,
          type.isHnsw() ? indexIvf : null,
          hnsw);
    }
  }

  public IndexType type() {
    return type;
  }

  public DistanceMetric metric() {
    return metric;
  }

  public int dimension() {
    return ivf.dimension();
  }

  public int numPartitions() {
    return ivf.numPartitions();
  }

  public IvfModel ivf() {
    return ivf;
  }

  /** The PQ codebook (IVF_PQ, IVF_HNSW_PQ), else {@code null}. */
  public PqCodebook codebook() {
    return codebook;
  }

  /** The RaBitQ quantizer (IVF_RQ), else {@code null}. */
  public RabitQuantizer rabitQuantizer() {
    return rabit;
  }

  /** The SQ bounds (IVF_SQ, IVF_HNSW_SQ), else {@code null}. */
  public ScalarQuantizer scalarQuantizer() {
    return quantizer;
  }

  /**
   * HNSW build parameters recorded for partition {@code p} ({@code null} for non-HNSW or empty
   * partitions).
   */
  public HnswPartitionMetadata hnswMetadata(int p) {
    return hnsw == null ? null : hnsw.get(p);
  }

  public int partitionSize(int p) {
    return storageIvf.lengths()[p];
  }

  /** Rows indexed by this segment (vectors in {@code auxiliary.idx}). */
  public long numRows() {
    long n = 0;
    for (int len : storageIvf.lengths()) {
      n += len;
    }
    return n;
  }

  public String indexLocation() {
    return indexLocation;
  }

  public String auxiliaryLocation() {
    return auxLocation;
  }

  /**
   * Reads partition {@code p}: its rows of {@code auxiliary.idx} (and of {@code index.idx} for
   * HNSW).
   */
  public PartitionData readPartition(int p, BufferAllocator allocator) {
    if (p < 0 || p >= numPartitions()) {
      throw new IllegalArgumentException("partition " + p + " outside 0.." + (numPartitions() - 1));
    }
    long start = storageIvf.offsets()[p];
    int rows = storageIvf.lengths()[p];
    long[] rowIds;
    VectorStorage storage;
    int dim = dimension();
    try (InputFile in = io.newInputFile(auxLocation)) {
      LanceFileReader r = LanceFileReader.open(in);
      rowIds =
          ColumnArrays.uint64(r, IndexFileLayout.ROW_ID_COLUMN, start, start + rows, allocator);
      if (rabit != null) {
        int width = rabit.codeBytes();
        byte[] stored =
            ColumnArrays.uint8List(r, codeColumn, width, start, start + rows, allocator);
        float[] add =
            ColumnArrays.float32(
                r, IndexFileLayout.RQ_ADD_FACTORS_COLUMN, start, start + rows, allocator);
        float[] scale =
            ColumnArrays.float32(
                r, IndexFileLayout.RQ_SCALE_FACTORS_COLUMN, start, start + rows, allocator);
        storage =
            RqStorage.of(
                rabit,
                ivf.centroid(p),
                RqCodes.transposed(stored, rows, width, rabitPacked),
                add,
                scale);
      } else if (codebook != null) {
        int m = codebook.numSubVectors();
        byte[] codes = ColumnArrays.uint8List(r, codeColumn, m, start, start + rows, allocator);
        storage = PqStorage.of(codebook, codes, rows);
      } else if (quantizer != null) {
        byte[] codes = ColumnArrays.uint8List(r, codeColumn, dim, start, start + rows, allocator);
        storage = SqStorage.of(quantizer, codes, rows, metric);
      } else {
        storage =
            FlatStorage.of(
                ColumnArrays.float32List(r, codeColumn, dim, start, start + rows, allocator),
                dim,
                metric);
      }
    }
    HnswGraph graph = null;
    if (type.isHnsw()) {
      graph = readGraph(p, rows, allocator);
    }
    return new PartitionData(rowIds, storage, graph);
  }

  /**
   * Partition {@code p} as stored, for rewriting the segment (compaction's remap): row addresses
   * and the stored vectors ({@code vectors}, row-major) or codes ({@code codes}: PQ transposed
   * {@code [m, rows]}, SQ row-major), without the HNSW graph.
   */
  public IndexSegmentWriter.Partition readStoredPartition(int p, BufferAllocator allocator) {
    if (p < 0 || p >= numPartitions()) {
      throw new IllegalArgumentException("partition " + p + " outside 0.." + (numPartitions() - 1));
    }
    if (rabit != null) {
      throw new UnsupportedFileFeatureException(
          "Cannot rewrite "
              + auxLocation
              + ": lancelot does not rewrite IVF_RQ segments. Rebuild the index with Lance.");
    }
    long start = storageIvf.offsets()[p];
    int rows = storageIvf.lengths()[p];
    int dim = dimension();
    try (InputFile in = io.newInputFile(auxLocation)) {
      LanceFileReader r = LanceFileReader.open(in);
      long[] rowIds =
          ColumnArrays.uint64(r, IndexFileLayout.ROW_ID_COLUMN, start, start + rows, allocator);
      if (codebook != null) {
        byte[] codes =
            ColumnArrays.uint8List(
                r, codeColumn, codebook.numSubVectors(), start, start + rows, allocator);
        return new IndexSegmentWriter.Partition(rowIds, null, codes, null);
      }
      if (quantizer != null) {
        byte[] codes = ColumnArrays.uint8List(r, codeColumn, dim, start, start + rows, allocator);
        return new IndexSegmentWriter.Partition(rowIds, null, codes, null);
      }
      float[] vectors =
          ColumnArrays.float32List(r, codeColumn, dim, start, start + rows, allocator);
      return new IndexSegmentWriter.Partition(rowIds, vectors, null, null);
    }
  }

  private HnswGraph readGraph(int p, int numNodes, BufferAllocator allocator) {
    HnswPartitionMetadata meta = hnsw.get(p);
    long start = graphIvf.offsets()[p];
    int rows = graphIvf.lengths()[p];
    if (meta == null || numNodes == 0) {
      if (numNodes != 0) {
        throw new CorruptFileException(
            indexLocation,
            "HNSW partition " + p + " has " + numNodes + " vectors but no graph metadata");
      }
      return HnswGraph.of(
          0,
          0,
          dev.lancelot.engine.internal.index.vector.hnsw.HnswBuildParams.defaults(0),
          new int[0][],
          new int[0][],
          new int[0][],
          new float[0][]);
    }
    try (InputFile in = io.newInputFile(indexLocation)) {
      LanceFileReader r = LanceFileReader.open(in);
      HnswGraphCodec.Rows graphRows = GraphColumns.read(r, start, start + rows, allocator);
      return HnswGraphCodec.decode(indexLocation, p, numNodes, meta, graphRows);
    }
  }

  // ---------------------------------------------------------------- open helpers

  private static PqCodebook codebook(
      String file, LanceFileReader r, StorageMetadata.Pq pq, DistanceMetric metric) {
    if (pq.numBits() != 8) {
      throw new UnsupportedFileFeatureException(
          "Cannot read "
              + file
              + ": PQ with "
              + pq.numBits()
              + " bits is not supported (only 8). Rebuild the index with num_bits=8.");
    }
    if (pq.dimension() % pq.numSubVectors() != 0) {
      throw new CorruptFileException(
          file,
          "its PQ dimension "
              + pq.dimension()
              + " is not divisible by num_sub_vectors "
              + pq.numSubVectors());
    }
    if (pq.codebookPosition() >= r.numGlobalBuffers()) {
      throw new CorruptFileException(
          file,
          "its PQ codebook_position "
              + pq.codebookPosition()
              + " names no global buffer"
              + " (the file has "
              + r.numGlobalBuffers()
              + ")");
    }
    var tensor =
        IvfProto.parseTensor(file, "PQ codebook", r.readGlobalBuffer(pq.codebookPosition()));
    float[] values = IvfProto.floats(file, "PQ codebook", tensor);
    if (values.length != PqCodebook.NUM_CENTROIDS * pq.dimension()) {
      throw new CorruptFileException(
          file,
          "its PQ codebook has shape "
              + tensor.getShapeList()
              + ", expected [256, "
              + pq.dimension()
              + "]");
    }
    if (!pq.transposed()) {
      throw new UnsupportedFileFeatureException(
          "Cannot read "
              + file
              + ": PQ codes stored untransposed (a legacy"
              + " layout) are not supported. Rebuild the index with Lance 7 or lancelot.");
    }
    return PqCodebook.of(values, pq.dimension(), pq.numSubVectors(), metric);
  }

  private static RabitQuantizer rabit(
      String file, StorageMetadata.Rq m, int dim, DistanceMetric metric) {
    if (!m.rotationType().equals("fast")) {
      throw new UnsupportedFileFeatureException(
          "Cannot read "
              + file
              + ": IVF_RQ with rotation_type \""
              + m.rotationType()
              + "\" is not supported (only \"fast\", which Lance 7 writes). Search without this"
              + " index (use_index=false) or rebuild it with Lance 7.");
    }
    if (!m.queryEstimator().equals("residual_query")) {
      throw new UnsupportedFileFeatureException(
          "Cannot read "
              + file
              + ": IVF_RQ with query_estimator \""
              + m.queryEstimator()
              + "\" is not supported (only the residual-query estimator, which Lance 7 writes)."
              + " Search without this index (use_index=false) or rebuild it with Lance 7.");
    }
    if (m.codeDim() != dim * m.numBits()) {
      throw new CorruptFileException(
          file,
          "its RQ code_dim "
              + m.codeDim()
              + " is not dimension "
              + dim
              + " × num_bits "
              + m.numBits());
    }
    if (m.fastRotationSigns().length != FastRotation.signBytes(m.codeDim())) {
      throw new CorruptFileException(
          file,
          "its RQ fast_rotation_signs has "
              + m.fastRotationSigns().length
              + " bytes; a rotation of "
              + m.codeDim()
              + " coordinates needs "
              + FastRotation.signBytes(m.codeDim()));
    }
    return new RabitQuantizer(
        dim, m.codeDim(), m.numBits(), FastRotation.of(m.codeDim(), m.fastRotationSigns()), metric);
  }

  private static void checkRanges(String file, IvfProto.Decoded ivf, long fileRows) {
    for (int p = 0; p < ivf.numPartitions(); p++) {
      long end = ivf.offsets()[p] + Integer.toUnsignedLong(ivf.lengths()[p]);
      if (ivf.offsets()[p] < 0 || ivf.lengths()[p] < 0 || end > fileRows) {
        throw new CorruptFileException(
            file,
            "IVF partition "
                + p
                + " spans rows ["
                + ivf.offsets()[p]
                + ", "
                + end
                + ") but the file has "
                + fileRows
                + " rows");
      }
    }
  }

  private static void requireColumns(String file, LanceFileReader r, String... names) {
    for (String n : names) {
      if (r.schema().field(n).isEmpty()) {
        throw new CorruptFileException(
            file, "it has no column " + n + " (columns: " + r.schema().names() + ")");
      }
    }
  }

  private static int bufferIndex(String file, LanceFileReader r, Map<String, String> meta) {
    String v = require(file, meta, IndexFileLayout.IVF_METADATA_KEY);
    int i;
    try {
      i = Integer.parseInt(v.trim());
    } catch (NumberFormatException e) {
      throw new CorruptFileException(
          file,
          "its "
              + IndexFileLayout.IVF_METADATA_KEY
              + " is \""
              + v
              + "\", not a global buffer index",
          e);
    }
    if (i < 1 || i >= r.numGlobalBuffers()) {
      throw new CorruptFileException(
          file,
          "its "
              + IndexFileLayout.IVF_METADATA_KEY
              + " names global buffer "
              + i
              + " but the file has "
              + r.numGlobalBuffers());
    }
    return i;
  }

  private static String require(String file, Map<String, String> meta, String key) {
    String v = meta.get(key);
    if (v == null) {
      throw new CorruptFileException(
          file,
          "its schema metadata has no \""
              + key
              + "\" entry (keys: "
              + meta.keySet()
              + "); it is not a Lance vector index file");
    }
    return v;
  }

  private static JsonNode json(String file, String value) {
    try {
      return StorageMetadata.JSON.readTree(value);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new CorruptFileException(file, "its index metadata is not valid JSON: " + value, e);
    }
  }

  private static IndexType indexType(String file, String name) {
    for (IndexType t : IndexType.values()) {
      if (t.isVector() && (t.isSupported() || t == IndexType.IVF_RQ) && t.name().equals(name)) {
        return t;
      }
    }
    throw new UnsupportedFileFeatureException(
        "Cannot read "
            + file
            + ": index type \""
            + name
            + "\" is not supported"
            + " (supported: IVF_FLAT, IVF_PQ, IVF_SQ, IVF_RQ, IVF_HNSW_FLAT, IVF_HNSW_SQ, IVF_HNSW_PQ). Search without this index"
            + " (use_index=false) or rebuild it with a supported type.");
  }

  private static DistanceMetric metric(String file, String name) {
    DistanceMetric m;
    try {
      m = DistanceMetric.parse(name);
    } catch (VectorException e) {
      throw new CorruptFileException(file, "its distance type \"" + name + "\" is unknown", e);
    }
    if (m == DistanceMetric.HAMMING) {
      throw new UnsupportedFileFeatureException(
          "Cannot read "
              + file
              + ": hamming (binary vector) indexes are not"
              + " supported. Search without this index (use_index=false).");
    }
    return m;
  }
}
