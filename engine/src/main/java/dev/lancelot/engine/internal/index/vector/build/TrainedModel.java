package dev.lancelot.engine.internal.index.vector.build;

import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.internal.index.vector.ivf.IvfModel;
import dev.lancelot.engine.internal.index.vector.pq.PqCodebook;
import dev.lancelot.engine.internal.index.vector.sq.ScalarQuantizer;
import dev.lancelot.engine.internal.index.vector.store.IndexSegmentReader;
import dev.lancelot.engine.vector.DistanceMetric;

/**
 * What training produces and delta segments reuse: IVF centroids plus, by type, the PQ codebook or
 * the SQ bounds. Immutable.
 */
public record TrainedModel(
    IndexType type,
    DistanceMetric metric,
    IvfModel ivf,
    PqCodebook codebook,
    ScalarQuantizer quantizer)
    implements java.io.Serializable {
  /** The model stored in an existing segment (to encode new rows the same way). */
  public static TrainedModel of(IndexSegmentReader segment) {
    return new TrainedModel(
        segment.type(),
        segment.metric(),
        segment.ivf(),
        segment.codebook(),
        segment.scalarQuantizer());
  }

  public int dimension() {
    return ivf.dimension();
  }

  /** Bytes (or, for flat storage, floats) stored per vector. */
  public int codeWidth() {
    if (codebook != null) {
      return codebook.numSubVectors();
    }
    return ivf.dimension();
  }
}
