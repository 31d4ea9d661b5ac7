package dev.lancelot.engine.internal.index.scalar.btree;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancelot.engine.internal.expr.eval.ColumnKind;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Random;
import java.util.stream.IntStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The BTree build's index order (NULLs first, then values, equal values by row address) is the same
 * whichever sort produces it: the radix sort of keyed values appended in address order, or the
 * merge sort of everything else.
 */
class IndexColumnDataTest {
  private static BufferAllocator allocator;

  @BeforeAll
  static void open() {
    allocator = new RootAllocator();
  }

  @AfterAll
  static void close() {
    allocator.close();
  }

  /** Two appended batches: rows of fragment 3 then fragment 7, with every fifth value NULL. */
  private static IndexColumnData gathered(
      ColumnKind kind, int rows, boolean shuffledAddresses, ValueSetter values) {
    IndexColumnData data = new IndexColumnData(kind, rows);
    Random random = new Random(rows * 31L + kind.ordinal());
    long[] addresses = new long[rows];
    for (int i = 0; i < rows; i++) {
      long fragment = i < rows / 2 ? 3 : 7;
      addresses[i] = (fragment << 32) | i;
    }
    if (shuffledAddresses) {
      for (int i = rows - 1; i > 0; i--) {
        int j = random.nextInt(i + 1);
        long t = addresses[i];
        addresses[i] = addresses[j];
        addresses[j] = t;
      }
    }
    int half = rows / 2;
    for (int[] range : new int[][] {{0, half}, {half, rows}}) {
      int n = range[1] - range[0];
      try (FieldVector v = values.make(n, range[0], random);
          UInt8Vector a = new UInt8Vector("_rowaddr", allocator)) {
        a.allocateNew(n);
        for (int i = 0; i < n; i++) {
          a.set(i, addresses[range[0] + i]);
        }
        a.setValueCount(n);
        data.append(v, a, n);
      }
    }
    return data;
  }

  interface ValueSetter {
    FieldVector make(int n, int firstRow, Random random);
  }

  /** The index order computed directly from its definition. */
  private static int[] expected(IndexColumnData d) {
    Comparator<Integer> byNull = Comparator.comparing(r -> !d.isNull(r));
    Comparator<Integer> byValue =
        (a, b) -> {
          if (d.isNull(a) || d.isNull(b)) {
            return 0;
          }
          return d.keyed()
              ? Long.compare(d.key(a), d.key(b))
              : Arrays.compareUnsigned(d.bytes(a), d.bytes(b));
        };
    Comparator<Integer> byAddress = (a, b) -> Long.compareUnsigned(d.address(a), d.address(b));
    return IntStream.range(0, d.size())
        .boxed()
        .sorted(byNull.thenComparing(byValue).thenComparing(byAddress))
        .mapToInt(Integer::intValue)
        .toArray();
  }

  private static ValueSetter ints(int bound) {
    return (n, first, random) -> {
      IntVector v = new IntVector("v", allocator);
      v.allocateNew(n);
      for (int i = 0; i < n; i++) {
        if ((first + i) % 5 == 0) {
          v.setNull(i);
        } else {
          v.set(i, bound == 0 ? random.nextInt() : random.nextInt(bound) - bound / 2);
        }
      }
      v.setValueCount(n);
      return v;
    };
  }

  @Test
  void smallIntegersWithDuplicatesAndNulls() {
    IndexColumnData d = gathered(ColumnKind.INT32, 5_000, false, ints(160));
    assertThat(d.sortedOrder()).containsExactly(expected(d));
  }

  @Test
  void fullRangeIntegers() {
    IndexColumnData d = gathered(ColumnKind.INT32, 5_000, false, ints(0));
    assertThat(d.sortedOrder()).containsExactly(expected(d));
  }

  @Test
  void longsAcrossEveryByte() {
    IndexColumnData d =
        gathered(
            ColumnKind.INT64,
            4_000,
            false,
            (n, first, random) -> {
              BigIntVector v = new BigIntVector("v", allocator);
              v.allocateNew(n);
              for (int i = 0; i < n; i++) {
                long x = random.nextLong();
                v.set(
                    i,
                    i % 7 == 0
                        ? Long.MIN_VALUE
                        : i % 11 == 0 ? Long.MAX_VALUE : i % 3 == 0 ? 0 : x);
              }
              v.setValueCount(n);
              return v;
            });
    assertThat(d.sortedOrder()).containsExactly(expected(d));
  }

  @Test
  void doublesWithSignedZerosInfinitiesAndNaN() {
    double[] specials = {-0.0, 0.0, Double.NaN, Double.NEGATIVE_INFINITY, Double.POSITIVE_INFINITY};
    IndexColumnData d =
        gathered(
            ColumnKind.FLOAT64,
            3_000,
            false,
            (n, first, random) -> {
              Float8Vector v = new Float8Vector("v", allocator);
              v.allocateNew(n);
              for (int i = 0; i < n; i++) {
                if (i % 13 == 0) {
                  v.setNull(i);
                } else {
                  v.set(i, i % 4 == 0 ? specials[i % specials.length] : random.nextGaussian());
                }
              }
              v.setValueCount(n);
              return v;
            });
    assertThat(d.sortedOrder()).containsExactly(expected(d));
  }

  @Test
  void rowsNotInAddressOrderAreStillOrderedByAddressWithinAValue() {
    IndexColumnData d = gathered(ColumnKind.INT32, 3_000, true, ints(20));
    assertThat(d.sortedOrder()).containsExactly(expected(d));
  }

  @Test
  void stringsKeepTheirOrder() {
    IndexColumnData d =
        gathered(
            ColumnKind.UTF8,
            2_000,
            false,
            (n, first, random) -> {
              VarCharVector v = new VarCharVector("v", allocator);
              v.allocateNew(n);
              for (int i = 0; i < n; i++) {
                if ((first + i) % 9 == 0) {
                  v.setNull(i);
                } else {
                  v.setSafe(i, ("k" + random.nextInt(50)).getBytes(StandardCharsets.UTF_8));
                }
              }
              v.setValueCount(n);
              return v;
            });
    assertThat(d.sortedOrder()).containsExactly(expected(d));
  }

  /**
   * Values {@code base + (row * 7919 % spread)}, every fifth NULL; rows 1 and 2 hold {@code base}
   * and {@code base + spread - 1}, so the keys span exactly {@code spread - 1}.
   */
  private static ValueSetter longs(long base, int spread) {
    return (n, first, random) -> {
      BigIntVector v = new BigIntVector("v", allocator);
      v.allocateNew(n);
      for (int i = 0; i < n; i++) {
        if ((first + i) % 5 == 0) {
          v.setNull(i);
        } else {
          int row = first + i;
          v.set(
              i,
              row == 1 ? base : row == 2 ? base + spread - 1 : base + (long) row * 7919 % spread);
        }
      }
      v.setValueCount(n);
      return v;
    };
  }

  @Test
  void keysSpanningTheCountingRangeAreCountedAndOneMoreAreNot() {
    int rows = 5_000;
    IndexColumnData widest =
        gathered(ColumnKind.INT64, rows, false, longs(-1_000, IndexColumnData.COUNTING_RANGE));
    assertThat(widest.counted().order()).containsExactly(expected(widest));
    assertThat(widest.sortedOrder()).containsExactly(expected(widest));
    // one value further: span COUNTING_RANGE, above the row count too, so the radix sort runs
    IndexColumnData wider =
        gathered(ColumnKind.INT64, rows, false, longs(-1_000, IndexColumnData.COUNTING_RANGE + 1));
    assertThat(wider.counted()).isNull();
    assertThat(wider.sortedOrder()).containsExactly(expected(wider));
  }

  @Test
  void aSpanUpToTheRowCountIsCountedBeyondTheFixedRange() {
    int rows = 100_000;
    IndexColumnData d = gathered(ColumnKind.INT64, rows, false, longs(7, 90_000));
    assertThat(d.counted().order()).containsExactly(expected(d));
    assertThat(d.sortedOrder()).containsExactly(expected(d));
  }

  @Test
  void keysAtTheEndsOfTheLongRange() {
    // A small span just below Long.MAX_VALUE is counted; MIN_VALUE..MAX_VALUE overflows a signed
    // difference and must not be.
    IndexColumnData top = gathered(ColumnKind.INT64, 3_000, false, longs(Long.MAX_VALUE - 40, 41));
    assertThat(top.counted().order()).containsExactly(expected(top));
    IndexColumnData ends =
        gathered(
            ColumnKind.INT64,
            3_000,
            false,
            (n, first, random) -> {
              BigIntVector v = new BigIntVector("v", allocator);
              v.allocateNew(n);
              for (int i = 0; i < n; i++) {
                v.set(i, (first + i) % 3 == 0 ? Long.MIN_VALUE : Long.MAX_VALUE - (i % 2));
              }
              v.setValueCount(n);
              return v;
            });
    assertThat(ends.counted()).isNull();
    assertThat(ends.sortedOrder()).containsExactly(expected(ends));
  }

  /** The addresses, keys and NULL count that come with the order agree with it. */
  private static void assertConsistent(IndexColumnData d, IndexColumnData.Sorted sorted) {
    int[] order = sorted.order();
    int nulls = 0;
    for (int i = 0; i < order.length; i++) {
      int row = order[i];
      assertThat(sorted.addresses()[i]).as("address at %d", i).isEqualTo(d.address(row));
      if (d.isNull(row)) {
        nulls++;
      } else if (d.keyed()) {
        assertThat(sorted.keys()[i]).as("key at %d", i).isEqualTo(d.key(row));
      }
    }
    assertThat(sorted.nullCount()).isEqualTo(nulls);
    assertThat(d.keyed()).isEqualTo(sorted.keys() != null);
  }

  @Test
  void everySortReturnsAddressesAndKeysInIndexOrder() {
    IndexColumnData counted = gathered(ColumnKind.INT32, 3_000, false, ints(30));
    assertThat(counted.counted()).isNotNull();
    assertConsistent(counted, counted.sorted());
    IndexColumnData radix = gathered(ColumnKind.INT32, 3_000, false, ints(0));
    assertThat(radix.counted()).isNull();
    assertConsistent(radix, radix.sorted());
    IndexColumnData shuffled = gathered(ColumnKind.INT32, 3_000, true, ints(30));
    assertConsistent(shuffled, shuffled.sorted());
    IndexColumnData strings =
        gathered(
            ColumnKind.UTF8,
            500,
            false,
            (n, first, random) -> {
              VarCharVector v = new VarCharVector("v", allocator);
              v.allocateNew(n);
              for (int i = 0; i < n; i++) {
                if ((first + i) % 4 == 0) {
                  v.setNull(i);
                } else {
                  v.setSafe(i, ("s" + random.nextInt(20)).getBytes(StandardCharsets.UTF_8));
                }
              }
              v.setValueCount(n);
              return v;
            });
    assertConsistent(strings, strings.sorted());
  }

  @Test
  void allNullAndEmpty() {
    IndexColumnData nullsOnly =
        gathered(
            ColumnKind.INT32,
            10,
            false,
            (n, first, random) -> {
              IntVector v = new IntVector("v", allocator);
              v.allocateNew(n);
              for (int i = 0; i < n; i++) {
                v.setNull(i);
              }
              v.setValueCount(n);
              return v;
            });
    assertThat(nullsOnly.sortedOrder()).containsExactly(expected(nullsOnly));
    assertConsistent(nullsOnly, nullsOnly.sorted());
    assertThat(new IndexColumnData(ColumnKind.INT64, 0).sortedOrder()).isEmpty();
  }
}
