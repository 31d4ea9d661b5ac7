package dev.lancelot.engine.internal.index.scalar.btree;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Page pruning never loses a row: whenever some row of a page satisfies a condition, the
 * condition's {@code mayMatch} on the page's lookup entry is true. Random sorted pages (NULLs
 * first, few distinct values so bounds collide) against random conditions; the seed is printed.
 */
class ConditionTest {
  private static final long SEED = 20251115L;

  @Test
  void keyConditionsNeverPruneAMatchingPage() {
    Random r = new Random(SEED);
    for (int round = 0; round < 3000; round++) {
      int rows = 1 + r.nextInt(12);
      int nulls = r.nextInt(4) == 0 ? r.nextInt(rows + 1) : 0;
      long[] keys = new long[rows];
      boolean[] isNull = new boolean[rows];
      for (int i = 0; i < rows; i++) {
        isNull[i] = i < nulls;
        keys[i] = isNull[i] ? 0 : key(r);
      }
      Arrays.sort(keys, nulls, rows);
      PageValues page = new PageValues(isNull, keys, null, new long[rows]);
      PageEntry entry =
          new PageEntry(0, nulls, isNull[0], isNull[rows - 1], keys[0], keys[rows - 1], null, null);
      for (Condition c : keyConditions(r)) {
        check(c, page, entry, round);
      }
    }
  }

  @Test
  void bytesConditionsNeverPruneAMatchingPage() {
    Random r = new Random(SEED + 1);
    for (int round = 0; round < 3000; round++) {
      int rows = 1 + r.nextInt(12);
      int nulls = r.nextInt(4) == 0 ? r.nextInt(rows + 1) : 0;
      byte[][] values = new byte[rows][];
      boolean[] isNull = new boolean[rows];
      for (int i = 0; i < rows; i++) {
        isNull[i] = i < nulls;
        values[i] = isNull[i] ? null : bytes(r);
      }
      Arrays.sort(values, nulls, rows, Arrays::compareUnsigned);
      PageValues page = new PageValues(isNull, null, values, new long[rows]);
      PageEntry entry =
          new PageEntry(0, nulls, isNull[0], isNull[rows - 1], 0, 0, values[0], values[rows - 1]);
      for (Condition c : bytesConditions(r)) {
        check(c, page, entry, round);
      }
    }
  }

  private static void check(Condition c, PageValues page, PageEntry entry, int round) {
    boolean any = false;
    for (int i = 0; i < page.rows(); i++) {
      any |= c.test(page, i);
    }
    if (any) {
      assertThat(c.mayMatch(entry))
          .as("seed %d round %d: %s on %s", SEED, round, c, entry)
          .isTrue();
    }
  }

  private static long key(Random r) {
    long[] edges = {Long.MIN_VALUE, Long.MAX_VALUE, 0, -1, 1};
    return r.nextInt(8) == 0 ? edges[r.nextInt(edges.length)] : r.nextInt(9) - 4;
  }

  private static byte[] bytes(Random r) {
    byte[] b = new byte[r.nextInt(3)];
    for (int i = 0; i < b.length; i++) {
      b[i] = (byte) (new int[] {0, 1, 0x7F, 0x80, 0xFF})[r.nextInt(5)];
    }
    return b;
  }

  private static List<Condition> keyConditions(Random r) {
    long a = key(r);
    long b = key(r);
    List<Condition> out = new ArrayList<>();
    out.add(new Condition.KeyRange(Math.min(a, b), Math.max(a, b), false));
    out.add(new Condition.KeyRange(Math.min(a, b), Math.max(a, b), true));
    out.add(new Condition.KeySet(new long[] {a, b, key(r)}, false));
    out.add(new Condition.KeySet(new long[] {a}, true));
    out.add(new Condition.Nulls(false));
    out.add(new Condition.Nulls(true));
    out.add(new Condition.AllRows());
    out.add(new Condition.AllOf(List.of(out.get(0), out.get(3))));
    out.add(
        new Condition.AnyOf(
            List.of(out.get(2), out.get(4), new Condition.AllOf(List.of(out.get(1), out.get(5))))));
    return out;
  }

  private static List<Condition> bytesConditions(Random r) {
    byte[] a = bytes(r);
    byte[] b = bytes(r);
    List<Condition> out = new ArrayList<>();
    for (boolean outside : new boolean[] {false, true}) {
      out.add(new Condition.BytesRange(a, r.nextBoolean(), b, r.nextBoolean(), outside));
      out.add(new Condition.BytesRange(null, false, b, r.nextBoolean(), outside));
      out.add(new Condition.BytesRange(a, r.nextBoolean(), null, false, outside));
      out.add(new Condition.BytesSet(List.of(a, b), outside));
    }
    out.add(new Condition.BytesRange(a, true, a, true, false));
    out.add(new Condition.Nulls(true));
    out.add(new Condition.AllOf(List.of(out.get(0), out.get(2))));
    out.add(new Condition.AnyOf(List.of(out.get(1), out.get(4))));
    return out;
  }
}
