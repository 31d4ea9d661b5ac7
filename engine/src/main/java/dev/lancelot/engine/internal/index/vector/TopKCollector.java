package dev.lancelot.engine.internal.index.vector;

/**
 * Keeps the {@code k} best (id, distance) pairs offered to it. Order is total and deterministic
 * (SPEC Q14): by distance as {@link Float#compare} orders it (NaN after +∞), then by id ascending,
 * so equal distances keep the smaller id whatever the arrival order. Ids are longs so the same
 * collector serves node ids and row addresses.
 *
 * <p>A bounded binary max-heap over two flat arrays; no allocation per offer. Not thread-safe.
 * Reusable via {@link #reset}.
 */
public final class TopKCollector {
  private final int k;
  private final long[] ids;
  private final float[] distances;
  private int size;

  public TopKCollector(int k) {
    if (k < 1) {
      throw new IllegalArgumentException("k must be >= 1: " + k);
    }
    this.k = k;
    this.ids = new long[k];
    this.distances = new float[k];
  }

  public int k() {
    return k;
  }

  public int size() {
    return size;
  }

  public boolean isFull() {
    return size == k;
  }

  public void reset() {
    size = 0;
  }

  /**
   * The distance a new candidate must beat (or tie with a smaller id) to enter: +∞ until full.
   * Searches use it to prune.
   */
  public float worstDistance() {
    return size < k ? Float.POSITIVE_INFINITY : distances[0];
  }

  /** Offers a candidate; returns whether it entered the top k. */
  public boolean collect(long id, float distance) {
    if (size < k) {
      int i = size++;
      // Sift up: the root holds the worst entry.
      while (i > 0) {
        int parent = (i - 1) >>> 1;
        if (!worse(id, distance, ids[parent], distances[parent])) {
          break;
        }
        ids[i] = ids[parent];
        distances[i] = distances[parent];
        i = parent;
      }
      ids[i] = id;
      distances[i] = distance;
      return true;
    }
    if (!worse(ids[0], distances[0], id, distance)) {
      return false;
    }
    siftDownFromRoot(id, distance);
    return true;
  }

  /** {@code true} when (idA, dA) ranks after (idB, dB). */
  private static boolean worse(long idA, float dA, long idB, float dB) {
    int c = Float.compare(dA, dB);
    return c > 0 || (c == 0 && idA > idB);
  }

  private void siftDownFromRoot(long id, float distance) {
    int i = 0;
    int n = size;
    while (true) {
      int left = 2 * i + 1;
      if (left >= n) {
        break;
      }
      int right = left + 1;
      int child =
          right < n && worse(ids[right], distances[right], ids[left], distances[left])
              ? right
              : left;
      if (!worse(ids[child], distances[child], id, distance)) {
        break;
      }
      ids[i] = ids[child];
      distances[i] = distances[child];
      i = child;
    }
    ids[i] = id;
    distances[i] = distance;
  }

  /** The collected entries, best first. Does not change the collector. */
  public SearchResult result() {
    long[] outIds = new long[size];
    float[] outDistances = new float[size];
    // Heap-sort a copy: repeatedly take the worst to the back.
    long[] hIds = ids.clone();
    float[] hDist = distances.clone();
    int n = size;
    for (int last = n - 1; last >= 0; last--) {
      outIds[last] = hIds[0];
      outDistances[last] = hDist[0];
      long id = hIds[last];
      float d = hDist[last];
      int i = 0;
      while (true) {
        int left = 2 * i + 1;
        if (left >= last) {
          break;
        }
        int right = left + 1;
        int child =
            right < last && worse(hIds[right], hDist[right], hIds[left], hDist[left])
                ? right
                : left;
        if (!worse(hIds[child], hDist[child], id, d)) {
          break;
        }
        hIds[i] = hIds[child];
        hDist[i] = hDist[child];
        i = child;
      }
      hIds[i] = id;
      hDist[i] = d;
    }
    return new SearchResult(outIds, outDistances);
  }
}
