package dev.lancelot.engine.internal.index.vector;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.Random;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * A partition's admitted nodes found by looking the admitted rows up among its ascending row
 * addresses are exactly the nodes whose row the filter admits.
 */
class AdmittedNodesTest {
  private static long address(long fragment, long offset) {
    return (fragment << 32) | offset;
  }

  private static void check(long[] rowIds, long[] admitted) {
    TreeSet<Long> admittedSet = new TreeSet<>();
    for (long a : admitted) {
      admittedSet.add(a);
    }
    AcceptMask mask = VectorSegmentSearcher.admittedNodes(rowIds, admitted);
    for (int node = 0; node < rowIds.length; node++) {
      assertThat(mask.get(node))
          .as("node %d (row %d)", node, rowIds[node])
          .isEqualTo(admittedSet.contains(rowIds[node]));
    }
  }

  @Test
  void selectiveAndDenseFiltersAcrossFragments() {
    Random r = new Random(7);
    for (int round = 0; round < 50; round++) {
      TreeSet<Long> rows = new TreeSet<>();
      TreeSet<Long> admitted = new TreeSet<>();
      int fragments = 1 + r.nextInt(4);
      for (int f = 0; f < fragments; f++) {
        for (int i = 0; i < 2_000; i++) {
          long a = address(f * 3L + (round % 2 == 0 ? 0 : 0x80000000L), r.nextInt(50_000));
          if (r.nextInt(3) == 0) {
            rows.add(a);
          }
          if (r.nextInt(round % 5 == 0 ? 2 : 40) == 0) {
            admitted.add(a); // some admitted rows are in the partition, others are not
          }
        }
      }
      long[] rowIds = rows.stream().mapToLong(Long::longValue).toArray();
      long[] admittedRows =
          admitted.stream().sorted(Long::compareUnsigned).mapToLong(Long::longValue).toArray();
      Long[] boxed = rows.toArray(new Long[0]);
      Arrays.sort(boxed, Long::compareUnsigned);
      rowIds = Arrays.stream(boxed).mapToLong(Long::longValue).toArray();
      check(rowIds, admittedRows);
    }
  }

  @Test
  void emptyAndDisjoint() {
    check(new long[0], new long[] {1, 2, 3});
    check(new long[] {1, 2, 3}, new long[0]);
    check(new long[] {10, 20, 30}, new long[] {1, 2, 3, 40, 50});
    check(new long[] {10, 20, 30}, new long[] {10, 20, 30});
  }
}
