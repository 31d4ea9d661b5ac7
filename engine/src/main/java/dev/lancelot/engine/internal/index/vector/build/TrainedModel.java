package dev.lancelot.engine.internal.index.vector.build;

import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.internal.index.vector.ivf.IvfModel;
import dev.lancelot.engine.internal.index.vector.pq.PqCodebook;
import dev.lancelot.engine.internal.index.vector.rq.RabitQuantizer;
import dev.lancelot.engine.internal.index.vector.sq.ScalarQuantizer;
import dev.lancelot.engine.internal.index.vector.store.IndexSegmentReader;
import dev.lancelot.engine.vector.DistanceMetric;

/**
 * What training produces and delta segments reuse: IVF centroids plus, by type, the PQ codebook,
 * the SQ bounds or the RaBitQ rotation. Immutable.
 */
public record TrainedModel(
    IndexType type,
    DistanceMetric metric,
    IvfModel ivf,
    PqCodebook codebook,
    ScalarQuantizer quantizer,
    RabitQuantizer rabit)
    implements java.io.Serializable {
  /** The model stored in an existing segment (to encode new rows the same way). */
  public static TrainedModel of(IndexSegmentReader segment) {
    return new TrainedModel(
        segment.type(),
        segment.metric(),
        segment.ivf(),
        segment.codebook(),
        segment.scalarQuantizer(),
        segment.rabitQuantizer());
  }

  public int dimension() {
    return ivf.dimension();
  }

  /** Whether vectors are stored as they are (no quantizer). */
  public boolean flat() {
    return codebook == null && quantizer == null && rabit == null;
  }

  /**
   * Bytes (or, for flat storage, floats) carried per vector: PQ codes, SQ codes, RaBitQ codes with
   * their factors ({@link RabitQuantizer#rowBytes()}), or the vector.
   */
  public int codeWidth() {
    if (codebook != null) {
      return codebook.numSubVectors();
    }
    if (rabit != null) {
      return rabit.rowBytes();
    }
    return ivf.dimension();
  }
}
