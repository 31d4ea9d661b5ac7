package dev.lancelot.engine.internal.index.vector.hnsw;

import java.util.Arrays;

/**
 * An immutable HNSW graph of one partition, laid out as Lance stores it in {@code index.idx}
 * (IVF_HNSW_*): rows level by level; within a level one row per node present there, ascending node
 * id, holding {@code __vector_id u32}, {@code __neighbors list<u32>} and {@code _distance
 * list<f32>} (the distance to each neighbour, nearest first). Node ids index the partition's rows
 * of the storage ({@code auxiliary.idx}). {@link #levelOffsets()} is the {@code level_offsets} of
 * the {@code lance:hnsw} metadata (first row of each level, plus the total), the entry point is
 * node 0, which Lance places on every level.
 *
 * <p>Per level: {@code nodes} (ascending), CSR {@code offsets} ({@code nodes.length + 1}), {@code
 * neighbors} and {@code distances}. Level 0 holds every node, so node id = row there.
 *
 * <p>Note for readers and writers of Lance files (checked against lance-core 7.0.0 in {@code
 * LanceIndexOracleTest}): Lance counts level sizes without node 0 on levels above 0 ({@code
 * level_count} in {@code hnsw/builder.rs}) but writes node 0's row on every level, so its stored
 * {@code level_offsets} fall one short per upper level ({@link #lanceLevelOffsets()}). Each level's
 * rows start with node 0, which is how a reader finds the real boundaries.
 */
public final class HnswGraph implements Adjacency, java.io.Serializable {
  private static final long serialVersionUID = 1L;

  private final int numNodes;
  private final int entryPoint;
  private final HnswBuildParams params;
  private final int[][] levelNodes;
  private final int[][] offsets;
  private final int[][] neighbors;
  private final float[][] distances;
  private final int maxDegree;

  HnswGraph(
      int numNodes,
      int entryPoint,
      HnswBuildParams params,
      int[][] levelNodes,
      int[][] offsets,
      int[][] neighbors,
      float[][] distances) {
    this.numNodes = numNodes;
    this.entryPoint = entryPoint;
    this.params = params;
    this.levelNodes = levelNodes;
    this.offsets = offsets;
    this.neighbors = neighbors;
    this.distances = distances;
    int degree = 1;
    for (int l = 0; l < levelNodes.length; l++) {
      if (offsets[l].length != levelNodes[l].length + 1
          || neighbors[l].length != distances[l].length
          || offsets[l][levelNodes[l].length] != neighbors[l].length) {
        throw new IllegalArgumentException("inconsistent CSR arrays on level " + l);
      }
      for (int i = 0; i < levelNodes[l].length; i++) {
        degree = Math.max(degree, offsets[l][i + 1] - offsets[l][i]);
        if (i > 0 && levelNodes[l][i] <= levelNodes[l][i - 1]) {
          throw new IllegalArgumentException("level " + l + " nodes are not strictly ascending");
        }
      }
      for (int nb : neighbors[l]) {
        if (nb < 0 || nb >= numNodes) {
          throw new IllegalArgumentException("neighbour " + nb + " outside 0.." + (numNodes - 1));
        }
      }
    }
    if (numNodes > 0 && (levelNodes.length == 0 || levelNodes[0].length != numNodes)) {
      throw new IllegalArgumentException("level 0 must hold every node");
    }
    this.maxDegree = degree;
  }

  /**
   * A graph from arrays as read from an index file (copied): per level the ascending node ids, CSR
   * offsets, neighbour ids and distances.
   */
  public static HnswGraph of(
      int numNodes,
      int entryPoint,
      HnswBuildParams params,
      int[][] levelNodes,
      int[][] offsets,
      int[][] neighbors,
      float[][] distances) {
    return new HnswGraph(
        numNodes,
        entryPoint,
        params,
        deepCopy(levelNodes),
        deepCopy(offsets),
        deepCopy(neighbors),
        deepCopy(distances));
  }

  @Override
  public int numNodes() {
    return numNodes;
  }

  /** Number of levels stored (Lance writes {@code max_level} levels; node 0 is on all of them). */
  @Override
  public int numLevels() {
    return levelNodes.length;
  }

  @Override
  public int entryPoint() {
    return entryPoint;
  }

  public HnswBuildParams params() {
    return params;
  }

  @Override
  public int maxDegree() {
    return maxDegree;
  }

  /** Row index of the first row of each level and the total row count ({@code level_offsets}). */
  public int[] levelOffsets() {
    int[] out = new int[levelNodes.length + 1];
    for (int l = 0; l < levelNodes.length; l++) {
      out[l + 1] = out[l] + levelNodes[l].length;
    }
    return out;
  }

  /**
   * The {@code level_offsets} Lance itself would write for this graph: like {@link #levelOffsets()}
   * but with every level above 0 counted without node 0 (see the class note).
   */
  public int[] lanceLevelOffsets() {
    int[] out = new int[levelNodes.length + 1];
    for (int l = 0; l < levelNodes.length; l++) {
      out[l + 1] = out[l] + levelNodes[l].length - (l > 0 && levelNodes[l].length > 0 ? 1 : 0);
    }
    return out;
  }

  public int[] levelNodes(int level) {
    return levelNodes[level].clone();
  }

  public int[] neighborOffsets(int level) {
    return offsets[level].clone();
  }

  public int[] levelNeighbors(int level) {
    return neighbors[level].clone();
  }

  public float[] levelDistances(int level) {
    return distances[level].clone();
  }

  /**
   * Neighbours of {@code node} on {@code level} (a copy); empty if the node is not on that level.
   */
  public int[] neighbors(int level, int node) {
    int row = row(level, node);
    return row < 0
        ? new int[0]
        : Arrays.copyOfRange(neighbors[level], offsets[level][row], offsets[level][row + 1]);
  }

  public float[] neighborDistances(int level, int node) {
    int row = row(level, node);
    return row < 0
        ? new float[0]
        : Arrays.copyOfRange(distances[level], offsets[level][row], offsets[level][row + 1]);
  }

  /** Highest level {@code node} appears on. */
  public int topLevel(int node) {
    for (int l = levelNodes.length - 1; l > 0; l--) {
      if (row(l, node) >= 0) {
        return l;
      }
    }
    return 0;
  }

  @Override
  public int neighbors(int level, int node, int[] out) {
    int row = row(level, node);
    if (row < 0) {
      return 0;
    }
    int from = offsets[level][row];
    int count = offsets[level][row + 1] - from;
    System.arraycopy(neighbors[level], from, out, 0, count);
    return count;
  }

  private int row(int level, int node) {
    return level == 0 ? node : Arrays.binarySearch(levelNodes[level], node);
  }

  private static int[][] deepCopy(int[][] a) {
    int[][] out = new int[a.length][];
    for (int i = 0; i < a.length; i++) {
      out[i] = a[i].clone();
    }
    return out;
  }

  private static float[][] deepCopy(float[][] a) {
    float[][] out = new float[a.length][];
    for (int i = 0; i < a.length; i++) {
      out[i] = a[i].clone();
    }
    return out;
  }
}
