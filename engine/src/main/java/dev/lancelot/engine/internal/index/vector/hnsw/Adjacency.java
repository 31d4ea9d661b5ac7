package dev.lancelot.engine.internal.index.vector.hnsw;

/** Read access to a layered graph, shared by the immutable graph and the one being built. */
interface Adjacency {
  int numNodes();

  int numLevels();

  int entryPoint();

  /** Copies the neighbours of {@code node} on {@code level} into {@code out}; returns how many. */
  int neighbors(int level, int node, int[] out);

  /** An upper bound of any neighbour list's length, to size scratch. */
  int maxDegree();
}
