package dev.lancelot.engine.distributed;

import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.internal.index.vector.build.TrainedModel;
import java.io.Serializable;

/**
 * The trained model of a vector index build (IVF centroids and, by type, the PQ codebook or the SQ
 * bounds), trained once on the coordinator and used by every {@link IndexBuildTask}. Immutable;
 * {@linkplain #toBytes() travels as bytes} — broadcast it once rather than once per task.
 */
public final class IndexModel implements Serializable {
  private static final long serialVersionUID = 1L;
  private final TrainedModel model;

  IndexModel(TrainedModel model) {
    this.model = model;
  }

  TrainedModel internal() {
    return model;
  }

  /** The index type the model was trained for. */
  public IndexType type() {
    return model.type();
  }

  /** The dimension of the vectors the model encodes. */
  public int dimension() {
    return model.dimension();
  }

  /** The model as bytes ({@link #fromBytes} reads them back). */
  public byte[] toBytes() {
    return Wire.serialize(Wire.INDEX_MODEL, model);
  }

  /**
   * Reads a model written by {@link #toBytes}.
   *
   * @throws InvalidInputException if the bytes are not an index model
   */
  public static IndexModel fromBytes(byte[] bytes) {
    return new IndexModel(
        Wire.deserialize(Wire.INDEX_MODEL, bytes, TrainedModel.class, "an index model"));
  }

  @Override
  public String toString() {
    return "IndexModel[" + model.type() + ", " + model.metric() + ", dim " + dimension() + "]";
  }
}
