package dev.lancelot.engine.internal.index.vector;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancelot.engine.internal.index.vector.flat.FlatSearch;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.function.LongPredicate;
import org.junit.jupiter.api.Test;

class AcceptMaskTest {
  /** A predicate that counts how often each row is asked about. */
  static final class Counting implements LongPredicate {
    final Map<Long, Integer> asked = new HashMap<>();
    final LongPredicate inner;

    Counting(LongPredicate inner) {
      this.inner = inner;
    }

    @Override
    public boolean test(long row) {
      asked.merge(row, 1, Integer::sum);
      return inner.test(row);
    }
  }

  static long[] rowIds(int n) {
    long[] ids = new long[n];
    for (int i = 0; i < n; i++) {
      ids[i] = (1L << 32) | (i * 3L + 1);
    }
    return ids;
  }

  @Test
  void lazyMaskAnswersAsTheEagerOneAndAsksEachRowAtMostOnce() {
    long[] ids = rowIds(200);
    LongPredicate rule = row -> (row & 0xFFFFFFFFL) % 7 < 3;
    AcceptMask eager = AcceptMask.none(ids.length);
    for (int i = 0; i < ids.length; i++) {
      if (rule.test(ids[i])) {
        eager.set(i);
      }
    }
    Counting counting = new Counting(rule);
    AcceptMask lazy = AcceptMask.lazy(ids, counting);
    assertThat(counting.asked).isEmpty();
    Random r = new Random(3);
    for (int t = 0; t < 1000; t++) {
      int node = r.nextInt(ids.length);
      assertThat(lazy.get(node)).isEqualTo(eager.get(node));
    }
    assertThat(counting.asked.values()).allMatch(c -> c == 1);
    assertThat(lazy.cardinality()).isEqualTo(eager.cardinality());
    assertThat(counting.asked).hasSize(ids.length);
    assertThat(counting.asked.values()).allMatch(c -> c == 1);
  }

  @Test
  void atLeastStopsAsSoonAsItKnows() {
    long[] ids = rowIds(1000);
    Counting all = new Counting(row -> true);
    AcceptMask lazy = AcceptMask.lazy(ids, all);
    assertThat(lazy.atLeast(100)).isTrue();
    assertThat(all.asked).hasSize(100);
    assertThat(lazy.atLeast(0)).isTrue();

    Counting none = new Counting(row -> false);
    AcceptMask empty = AcceptMask.lazy(ids, none);
    assertThat(empty.atLeast(1)).isFalse();
    assertThat(none.asked).hasSize(1000);

    AcceptMask eager = AcceptMask.of(70, 0, 64, 69);
    assertThat(eager.atLeast(3)).isTrue();
    assertThat(eager.atLeast(4)).isFalse();
  }

  @Test
  void setAndClearOverrideTheLazyAnswer() {
    long[] ids = rowIds(10);
    AcceptMask lazy = AcceptMask.lazy(ids, row -> true);
    lazy.clear(4);
    lazy.set(5);
    assertThat(lazy.get(4)).isFalse();
    assertThat(lazy.get(5)).isTrue();
    assertThat(lazy.cardinality()).isEqualTo(9);
  }

  @Test
  void aFlatScanWithALazyMaskFindsTheSameTopKAndAsksAboutFewRows() {
    int n = 5000;
    float[] dist = new float[n];
    Random r = new Random(11);
    for (int i = 0; i < n; i++) {
      dist[i] = r.nextFloat();
    }
    dist[17] = dist[18]; // a tie, broken by id
    long[] ids = rowIds(n);
    QueryScorer scorer =
        new QueryScorer() {
          @Override
          public float score(int node) {
            return dist[node];
          }

          @Override
          public void score(int[] nodes, int count, float[] out) {
            for (int i = 0; i < count; i++) {
              out[i] = dist[nodes[i]];
            }
          }

          @Override
          public void scoreRange(int from, int count, float[] out) {
            System.arraycopy(dist, from, out, 0, count);
          }
        };
    LongPredicate rule = row -> (row & 0xFFFFFFFFL) % 5 != 0;
    AcceptMask eager = AcceptMask.none(n);
    for (int i = 0; i < n; i++) {
      if (rule.test(ids[i])) {
        eager.set(i);
      }
    }
    TopKCollector a = new TopKCollector(10);
    FlatSearch.search(scorer, n, eager, ids, a, null);
    Counting counting = new Counting(rule);
    TopKCollector b = new TopKCollector(10);
    FlatSearch.search(scorer, n, AcceptMask.lazy(ids, counting), ids, b, null);
    assertThat(b.result().ids()).containsExactly(a.result().ids());
    assertThat(b.result().distances()).containsExactly(a.result().distances());
    assertThat(counting.asked.size()).isLessThan(n / 5);
  }
}
