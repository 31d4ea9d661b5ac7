package dev.lancelot.engine.internal.query.exec;

import dev.lancelot.engine.internal.file.VectorPages;
import dev.lancelot.engine.vector.DistanceMetric;
import dev.lancelot.engine.vector.ElementType;

/**
 * One query vector in the form the kernel of a column's element type takes (float32 as is, float16
 * as half-precision bits, uint8 as bytes, converted once, as the Arrow path converts it), scoring
 * chunks read straight from the pages ({@link VectorPages}).
 */
final class ChunkQuery {
  private final DistanceMetric metric;
  private final ElementType element;
  private final int dim;
  private final float[] floats;
  private final short[] halves;
  private final byte[] bytes;

  ChunkQuery(DistanceMetric metric, ElementType element, float[] q) {
    this.metric = metric;
    this.element = element;
    this.dim = q.length;
    this.floats = q;
    this.halves = element == ElementType.FLOAT16 ? VectorBlocks.halves(q) : null;
    this.bytes = element == ElementType.UINT8 ? VectorBlocks.bytes(q) : null;
  }

  /** Distances of vectors {@code [0, n)} of {@code chunk} to this query, into {@code out[0, n)}. */
  void distances(VectorPages.Chunk chunk, int n, float[] out) {
    switch (element) {
      case FLOAT32 -> metric.distances(floats, 0, chunk.floats(), 0, n, dim, out, 0);
      case FLOAT16 -> metric.distances(halves, 0, chunk.halves(), 0, n, dim, out, 0);
      case UINT8 -> metric.distances(bytes, 0, chunk.bytes(), 0, n, dim, out, 0);
    }
  }
}
