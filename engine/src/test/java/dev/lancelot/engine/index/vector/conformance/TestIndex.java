package dev.lancelot.engine.index.vector.conformance;

import dev.lancelot.engine.internal.index.vector.AcceptMask;
import dev.lancelot.engine.internal.index.vector.SearchResult;
import dev.lancelot.engine.internal.index.vector.SearchStats;

/** An in-memory index assembled from the building blocks, as the engine will assemble them. */
public interface TestIndex {
  /**
   * Best k row ids (with approximate distances) among rows accepted by {@code mask} (null = all).
   */
  SearchResult search(float[] query, int k, AcceptMask mask, SearchStats stats);
}
