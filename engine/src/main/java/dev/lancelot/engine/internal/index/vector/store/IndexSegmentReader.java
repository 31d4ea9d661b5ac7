package dev.lancelot.engine.internal.index.vector.store;

import static dev.lancelot.engine.internal.index.vector.store.SegmentMetadata.bufferIndex;
import static dev.lancelot.engine.internal.index.vector.store.SegmentMetadata.checkRanges;
import static dev.lancelot.engine.internal.index.vector.store.SegmentMetadata.indexType;
import static dev.lancelot.engine.internal.index.vector.store.SegmentMetadata.json;
import static dev.lancelot.engine.internal.index.vector.store.SegmentMetadata.rabit;
import static dev.lancelot.engine.internal.index.vector.store.SegmentMetadata.require;
import static dev.lancelot.engine.internal.index.vector.store.SegmentMetadata.requireColumns;

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
import dev.lancelot.engine.internal.index.vector.rq.RabitQuantizer;
import dev.lancelot.engine.internal.index.vector.rq.RqCodes;
import dev.lancelot.engine.internal.index.vector.rq.RqStorage;
import dev.lancelot.engine.internal.index.vector.sq.ScalarQuantizer;
import dev.lancelot.engine.internal.index.vector.sq.SqStorage;
import dev.lancelot.engine.io.FileIO;
import dev.lancelot.engine.io.InputFile;
import dev.lancelot.engine.vector.DistanceMetric;
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
      metric = SegmentMetadata.metric(indexLocation, index.path("distance_type").asText(""));
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
          SegmentMetadata.metric(
              auxLocation, require(auxLocation, meta, IndexFileLayout.DISTANCE_TYPE_KEY));
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
        codebook = SegmentMetadata.codebook(auxLocation, r, pq, metric);
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
   * {@code [m, rows]}, SQ row-major, RaBitQ carried rows with their factors as {@link RqCodes}
   * describes), without the HNSW graph.
   */
  public IndexSegmentWriter.Partition readStoredPartition(int p, BufferAllocator allocator) {
    if (p < 0 || p >= numPartitions()) {
      throw new IllegalArgumentException("partition " + p + " outside 0.." + (numPartitions() - 1));
    }
    long start = storageIvf.offsets()[p];
    int rows = storageIvf.lengths()[p];
    int dim = dimension();
    try (InputFile in = io.newInputFile(auxLocation)) {
      LanceFileReader r = LanceFileReader.open(in);
      long[] rowIds =
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
        return new IndexSegmentWriter.Partition(
            rowIds, null, RqCodes.rows(stored, add, scale, width, rabitPacked), null);
      }
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
}
