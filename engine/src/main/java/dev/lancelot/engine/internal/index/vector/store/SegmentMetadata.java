package dev.lancelot.engine.internal.index.vector.store;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.internal.file.LanceFileReader;
import dev.lancelot.engine.internal.file.UnsupportedFileFeatureException;
import dev.lancelot.engine.internal.format.CorruptFileException;
import dev.lancelot.engine.internal.index.vector.pq.PqCodebook;
import dev.lancelot.engine.internal.index.vector.rq.FastRotation;
import dev.lancelot.engine.internal.index.vector.rq.RabitQuantizer;
import dev.lancelot.engine.vector.DistanceMetric;
import dev.lancelot.engine.vector.VectorException;
import java.util.Map;

/**
 * Reading and checking the metadata of an index segment's files, for {@link IndexSegmentReader}.
 */
final class SegmentMetadata {
  private SegmentMetadata() {}

  static PqCodebook codebook(
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

  static RabitQuantizer rabit(String file, StorageMetadata.Rq m, int dim, DistanceMetric metric) {
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

  static void checkRanges(String file, IvfProto.Decoded ivf, long fileRows) {
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

  static void requireColumns(String file, LanceFileReader r, String... names) {
    for (String n : names) {
      if (r.schema().field(n).isEmpty()) {
        throw new CorruptFileException(
            file, "it has no column " + n + " (columns: " + r.schema().names() + ")");
      }
    }
  }

  static int bufferIndex(String file, LanceFileReader r, Map<String, String> meta) {
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

  static String require(String file, Map<String, String> meta, String key) {
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

  static JsonNode json(String file, String value) {
    try {
      return StorageMetadata.JSON.readTree(value);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new CorruptFileException(file, "its index metadata is not valid JSON: " + value, e);
    }
  }

  static IndexType indexType(String file, String name) {
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

  static DistanceMetric metric(String file, String name) {
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
