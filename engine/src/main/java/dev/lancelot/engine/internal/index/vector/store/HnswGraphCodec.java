package dev.lancelot.engine.internal.index.vector.store;

import dev.lancelot.engine.internal.format.CorruptFileException;
import dev.lancelot.engine.internal.index.vector.hnsw.HnswBuildParams;
import dev.lancelot.engine.internal.index.vector.hnsw.HnswGraph;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One partition's HNSW graph as rows of {@code index.idx}: {@code [uint32] __vector_id}, {@code
 * [list<uint32>] __neighbors}, {@code [list<float32>] _distance}. Rows go level by level; level 0
 * holds every node in id order (so row = node id there), each upper level the nodes present on it
 * in ascending id order, starting with the entry point, node 0, which is on every level.
 *
 * <p>Level boundaries are found from the rows themselves (a level ends where ids stop ascending),
 * not from {@code level_offsets}, because lance-core 7.0.0 stores those one short per upper level;
 * the stored offsets are checked to be either exact or short by exactly that amount.
 */
public final class HnswGraphCodec {
  private HnswGraphCodec() {}

  /**
   * Rows of one partition: ids, and neighbour/distance lists in CSR form sharing {@code
   * listOffsets}.
   */
  public record Rows(int[] vectorIds, int[] listOffsets, int[] neighbors, float[] distances) {
    public int size() {
      return vectorIds.length;
    }
  }

  public static Rows encode(HnswGraph graph) {
    int[] levelOffsets = graph.levelOffsets();
    int rows = levelOffsets[levelOffsets.length - 1];
    int[] ids = new int[rows];
    int[] listOffsets = new int[rows + 1];
    int edges = 0;
    for (int l = 0; l < graph.numLevels(); l++) {
      edges += graph.levelNeighbors(l).length;
    }
    int[] nbrs = new int[edges];
    float[] dists = new float[edges];
    int row = 0;
    int e = 0;
    for (int l = 0; l < graph.numLevels(); l++) {
      int[] nodes = graph.levelNodes(l);
      int[] offs = graph.neighborOffsets(l);
      int[] ln = graph.levelNeighbors(l);
      float[] ld = graph.levelDistances(l);
      System.arraycopy(ln, 0, nbrs, e, ln.length);
      System.arraycopy(ld, 0, dists, e, ld.length);
      for (int i = 0; i < nodes.length; i++) {
        ids[row] = nodes[i];
        listOffsets[row] = e + offs[i];
        row++;
      }
      e += ln.length;
    }
    listOffsets[rows] = e;
    return new Rows(ids, listOffsets, nbrs, dists);
  }

  /** The {@code lance:hnsw} entry written for {@code graph} (exact level offsets). */
  public static HnswPartitionMetadata metadata(HnswGraph graph, Integer prefetchDistance) {
    HnswBuildParams p = graph.params();
    return new HnswPartitionMetadata(
        graph.entryPoint(),
        graph.numLevels(),
        p.m(),
        p.efConstruction(),
        prefetchDistance,
        graph.levelOffsets());
  }

  /**
   * Rebuilds the graph of a partition of {@code numNodes} nodes; {@code file} names the file in
   * errors.
   */
  public static HnswGraph decode(
      String file, int partition, int numNodes, HnswPartitionMetadata meta, Rows rows) {
    if (meta.entryPoint() != 0) {
      throw new CorruptFileException(
          file,
          "HNSW partition "
              + partition
              + " has entry point "
              + meta.entryPoint()
              + "; Lance graphs enter at node 0");
    }
    int n = rows.size();
    if (n < numNodes) {
      throw new CorruptFileException(
          file,
          "HNSW partition " + partition + " has " + n + " graph rows for " + numNodes + " vectors");
    }
    if (numNodes == 0) {
      return HnswGraph.of(
          0, 0, params(meta), new int[0][], new int[0][], new int[0][], new float[0][]);
    }
    int[] ids = rows.vectorIds();
    for (int r = 0; r < numNodes; r++) {
      if (ids[r] != r) {
        throw new CorruptFileException(
            file,
            "HNSW partition "
                + partition
                + " row "
                + r
                + " of level 0 holds node "
                + ids[r]
                + "; level 0 must list every node in order");
      }
    }
    List<int[]> bounds = new ArrayList<>();
    bounds.add(new int[] {0, numNodes});
    int start = numNodes;
    for (int r = numNodes + 1; r <= n; r++) {
      if (r == n || ids[r] <= ids[r - 1]) {
        bounds.add(new int[] {start, r});
        start = r;
      }
    }
    int levels = bounds.size();
    if (levels > meta.maxLevel()) {
      throw new CorruptFileException(
          file,
          "HNSW partition "
              + partition
              + " has level sizes "
              + sizes(bounds)
              + ", more levels than its max_level "
              + meta.maxLevel());
    }
    checkOffsets(file, partition, meta.levelOffsets(), bounds);
    int[][] levelNodes = new int[levels][];
    int[][] offsets = new int[levels][];
    int[][] neighbors = new int[levels][];
    float[][] distances = new float[levels][];
    for (int l = 0; l < levels; l++) {
      int from = bounds.get(l)[0];
      int to = bounds.get(l)[1];
      levelNodes[l] = Arrays.copyOfRange(rows.vectorIds(), from, to);
      offsets[l] = new int[to - from + 1];
      int e0 = rows.listOffsets()[from];
      for (int r = from; r <= to; r++) {
        offsets[l][r - from] = rows.listOffsets()[r] - e0;
      }
      neighbors[l] = Arrays.copyOfRange(rows.neighbors(), e0, rows.listOffsets()[to]);
      distances[l] = Arrays.copyOfRange(rows.distances(), e0, rows.listOffsets()[to]);
      if (l > 0 && levelNodes[l][0] != 0) {
        throw new CorruptFileException(
            file,
            "HNSW partition "
                + partition
                + " level "
                + l
                + " does not start with the entry point (node 0)");
      }
    }
    try {
      return HnswGraph.of(numNodes, 0, params(meta), levelNodes, offsets, neighbors, distances);
    } catch (IllegalArgumentException e) {
      throw new CorruptFileException(
          file, "HNSW partition " + partition + " is not a valid graph: " + e.getMessage(), e);
    }
  }

  private static HnswBuildParams params(HnswPartitionMetadata meta) {
    return new HnswBuildParams(
        Math.max(2, meta.m()),
        Math.max(1, meta.efConstruction()),
        Math.min(64, Math.max(1, meta.maxLevel())),
        0);
  }

  private static void checkOffsets(String file, int partition, int[] stored, List<int[]> bounds) {
    boolean exact = stored.length >= bounds.size() + 1;
    boolean lanceShort = exact;
    int pos = 0;
    int shortPos = 0;
    for (int l = 0; l < bounds.size() && (exact || lanceShort); l++) {
      int size = bounds.get(l)[1] - bounds.get(l)[0];
      exact &= stored[l] == pos;
      lanceShort &= stored[l] == shortPos;
      pos += size;
      shortPos += l == 0 ? size : size - 1;
    }
    // Levels Lance counted but left empty repeat the last offset.
    for (int l = bounds.size(); l < stored.length; l++) {
      exact &= stored[l] == pos;
      lanceShort &= stored[l] == shortPos;
    }
    if (!exact && !lanceShort) {
      throw new CorruptFileException(
          file,
          "HNSW partition "
              + partition
              + " stores level_offsets "
              + Arrays.toString(stored)
              + " but its rows have level sizes "
              + sizes(bounds));
    }
  }

  private static String sizes(List<int[]> bounds) {
    return bounds.stream().map(b -> String.valueOf(b[1] - b[0])).toList().toString();
  }
}
