package dev.lancelot.engine.internal.index.vector.hnsw;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The heap pops in {@link Float#compare} order of distances, ties by node id, both directions. */
class NodeHeapTest {
  record Entry(int node, float dist) {}

  private static final Comparator<Entry> ORDER =
      Comparator.<Entry, Float>comparing(Entry::dist, Float::compare).thenComparingInt(Entry::node);

  private static final float[] SPECIAL = {
    0f,
    -0f,
    1f,
    -1f,
    Float.MIN_VALUE,
    -Float.MIN_VALUE,
    Float.MAX_VALUE,
    -Float.MAX_VALUE,
    Float.POSITIVE_INFINITY,
    Float.NEGATIVE_INFINITY,
    Float.NaN,
    2.5f,
    2.5f
  };

  private static List<Entry> entries(long seed, int n) {
    Random r = new Random(seed);
    List<Entry> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      float d =
          switch (i % 4) {
            case 0 -> SPECIAL[r.nextInt(SPECIAL.length)];
            case 1 -> (float) r.nextGaussian();
            case 2 -> r.nextInt(5); // many equal distances, ordered by node
            default -> r.nextFloat() * 1e6f;
          };
      out.add(new Entry(i == 0 ? Integer.MAX_VALUE : r.nextInt(Integer.MAX_VALUE), d));
    }
    return out;
  }

  @Test
  void minFirstPopsAscending() {
    List<Entry> in = entries(1, 2_000);
    NodeHeap heap = new NodeHeap(4, false);
    in.forEach(e -> heap.push(e.node(), e.dist()));
    List<Entry> expected = in.stream().sorted(ORDER).toList();
    List<Entry> popped = new ArrayList<>();
    while (heap.size() > 0) {
      popped.add(new Entry(heap.topNode(), heap.topDistance()));
      heap.pop();
    }
    assertThat(popped).containsExactlyElementsOf(expected);
  }

  @Test
  void maxFirstKeepsTheNearestUnderReplaceTopAndDrainsAscending() {
    List<Entry> in = entries(2, 3_000);
    int ef = 150;
    NodeHeap heap = new NodeHeap(8, true);
    for (Entry e : in) {
      if (heap.size() < ef) {
        heap.push(e.node(), e.dist());
      } else if (ORDER.compare(e, new Entry(heap.topNode(), heap.topDistance())) < 0) {
        heap.replaceTop(e.node(), e.dist());
      }
    }
    int[] nodes = new int[ef];
    float[] dists = new float[ef];
    assertThat(heap.drainAscending(nodes, dists)).isEqualTo(ef);
    List<Entry> drained = new ArrayList<>();
    for (int i = 0; i < ef; i++) {
      drained.add(new Entry(nodes[i], dists[i]));
    }
    assertThat(drained).containsExactlyElementsOf(in.stream().sorted(ORDER).limit(ef).toList());
    assertThat(heap.size()).isZero();
  }

  @Test
  void signedZerosAndNaNKeepTheirBits() {
    NodeHeap heap = new NodeHeap(8, false);
    heap.push(3, Float.NaN);
    heap.push(2, 0f);
    heap.push(1, -0f);
    assertThat(Float.floatToRawIntBits(heap.topDistance())).isEqualTo(0x80000000);
    heap.pop();
    assertThat(Float.floatToRawIntBits(heap.topDistance())).isZero();
    heap.pop();
    assertThat(heap.topDistance()).isNaN();
    assertThat(heap.topNode()).isEqualTo(3);
  }
}
