package dev.lancelot.engine.internal.index.vector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class TopKCollectorTest {
  @Test
  void keepsTheBestKNearestFirst() {
    TopKCollector c = new TopKCollector(3);
    float[] d = {5, 1, 4, 2, 3, 0.5f};
    for (int i = 0; i < d.length; i++) {
      c.collect(i, d[i]);
    }
    assertThat(c.result())
        .isEqualTo(new SearchResult(new long[] {5, 1, 3}, new float[] {0.5f, 1, 2}));
    assertThat(c.worstDistance()).isEqualTo(2f);
  }

  @Test
  void tiesGoToTheSmallerIdWhateverTheOrder() {
    List<Integer> ids = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      ids.add(i);
    }
    for (long seed = 0; seed < 5; seed++) {
      Collections.shuffle(ids, new Random(seed));
      TopKCollector c = new TopKCollector(4);
      for (int id : ids) {
        c.collect(id, id % 10 == 7 ? 0f : 1f); // ids 7, 17, 27, 37, 47 tie at 0
      }
      assertThat(c.result().ids()).containsExactly(7, 17, 27, 37);
    }
  }

  @Test
  void nanSortsLastAndInfinityBeforeIt() {
    TopKCollector c = new TopKCollector(3);
    c.collect(1, Float.NaN);
    c.collect(2, Float.POSITIVE_INFINITY);
    c.collect(3, 7f);
    c.collect(4, Float.NaN);
    assertThat(c.result().ids()).containsExactly(3, 2, 1);
  }

  @Test
  void fewerCandidatesThanK() {
    TopKCollector c = new TopKCollector(10);
    c.collect(9, 1f);
    assertThat(c.size()).isEqualTo(1);
    assertThat(c.worstDistance()).isEqualTo(Float.POSITIVE_INFINITY);
    assertThat(c.result().ids()).containsExactly(9);
    assertThatThrownBy(() -> new TopKCollector(0)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void agreesWithASortOnRandomInput() {
    Random r = new Random(42);
    for (int round = 0; round < 20; round++) {
      int k = 1 + r.nextInt(20);
      int n = r.nextInt(200);
      TopKCollector c = new TopKCollector(k);
      List<long[]> all = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        float d = r.nextInt(30); // many ties
        c.collect(i, d);
        all.add(new long[] {(long) d, i});
      }
      all.sort((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
      SearchResult res = c.result();
      assertThat(res.size()).isEqualTo(Math.min(k, n));
      for (int i = 0; i < res.size(); i++) {
        assertThat(res.ids()[i]).isEqualTo(all.get(i)[1]);
      }
    }
  }

  @Test
  void acceptMaskBasics() {
    for (int size : new int[] {0, 1, 63, 64, 65, 130}) {
      assertThat(AcceptMask.all(size).cardinality()).isEqualTo(size);
      assertThat(AcceptMask.none(size).cardinality()).isZero();
    }
    AcceptMask m = AcceptMask.of(70, 0, 64, 69);
    assertThat(m.get(64)).isTrue();
    assertThat(m.get(63)).isFalse();
    m.clear(64);
    assertThat(m.cardinality()).isEqualTo(2);
    assertThatThrownBy(() -> m.set(70)).isInstanceOf(IndexOutOfBoundsException.class);
  }
}
