package dev.lancelot.engine.expr;

import static dev.lancelot.engine.expr.TestBatch.select;
import static org.assertj.core.api.Assertions.assertThat;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.memory.util.Float16;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float2Vector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.UInt2Vector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class NumericEvaluationTest {
  private final BufferAllocator allocator = new RootAllocator();

  @AfterEach
  void close() {
    allocator.close();
  }

  @Test
  void signedIntegersOfEveryWidth() {
    try (VectorSchemaRoot root =
        TestBatch.with(allocator)
            .<TinyIntVector, Integer>column(
                "i8",
                new ArrowType.Int(8, true),
                (c, v) -> c.vector().setSafe(c.index(), v),
                -128,
                -1,
                null,
                0,
                127)
            .<SmallIntVector, Integer>column(
                "i16",
                new ArrowType.Int(16, true),
                (c, v) -> c.vector().setSafe(c.index(), v),
                -32768,
                -1,
                null,
                0,
                32767)
            .<IntVector, Integer>column(
                "i32",
                new ArrowType.Int(32, true),
                (c, v) -> c.vector().setSafe(c.index(), v),
                Integer.MIN_VALUE,
                -1,
                null,
                0,
                Integer.MAX_VALUE)
            .<BigIntVector, Long>column(
                "i64",
                new ArrowType.Int(64, true),
                (c, v) -> c.vector().setSafe(c.index(), v),
                Long.MIN_VALUE,
                -1L,
                null,
                0L,
                Long.MAX_VALUE)
            .build()) {
      for (String col : new String[] {"i8", "i16", "i32", "i64"}) {
        assertThat(select(root, col + " = -1")).as(col).containsExactly(1);
        assertThat(select(root, col + " != -1")).as(col).containsExactly(0, 3, 4);
        assertThat(select(root, col + " < 0")).as(col).containsExactly(0, 1);
        assertThat(select(root, col + " <= 0")).as(col).containsExactly(0, 1, 3);
        assertThat(select(root, col + " > 0")).as(col).containsExactly(4);
        assertThat(select(root, col + " >= -1")).as(col).containsExactly(1, 3, 4);
        assertThat(select(root, col + " IN (0, -1, 5)")).as(col).containsExactly(1, 3);
        assertThat(select(root, col + " NOT IN (0, -1)")).as(col).containsExactly(0, 4);
        assertThat(select(root, col + " BETWEEN -1 AND 0")).as(col).containsExactly(1, 3);
        assertThat(select(root, col + " NOT BETWEEN -1 AND 0")).as(col).containsExactly(0, 4);
        assertThat(select(root, col + " IS NULL")).as(col).containsExactly(2);
        assertThat(select(root, col + " IS NOT NULL")).as(col).containsExactly(0, 1, 3, 4);
      }
      assertThat(select(root, "i8 = -128")).containsExactly(0);
      assertThat(select(root, "i64 = -9223372036854775808")).containsExactly(0);
      assertThat(select(root, "i64 = 9223372036854775807")).containsExactly(4);
      assertThat(select(root, "i64 > 9223372036854775806")).containsExactly(4);
    }
  }

  @Test
  void integersCompareExactlyWithDoublesAndOutOfRangeLiterals() {
    try (VectorSchemaRoot root =
        TestBatch.with(allocator)
            .<TinyIntVector, Integer>column(
                "i8",
                new ArrowType.Int(8, true),
                (c, v) -> c.vector().setSafe(c.index(), v),
                -128,
                2,
                3,
                null,
                127)
            .<BigIntVector, Long>column(
                "i64",
                new ArrowType.Int(64, true),
                (c, v) -> c.vector().setSafe(c.index(), v),
                Long.MIN_VALUE,
                2L,
                3L,
                null,
                Long.MAX_VALUE)
            .build()) {
      assertThat(select(root, "i8 > 2.5")).containsExactly(2, 4);
      assertThat(select(root, "i8 >= 2.5")).containsExactly(2, 4);
      assertThat(select(root, "i8 < 2.5")).containsExactly(0, 1);
      assertThat(select(root, "i8 <= 2.5")).containsExactly(0, 1);
      assertThat(select(root, "i8 = 2.5")).isEmpty();
      assertThat(select(root, "i8 != 2.5")).containsExactly(0, 1, 2, 4);
      assertThat(select(root, "i8 = 3.0")).containsExactly(2);
      assertThat(select(root, "i8 > -2.5")).containsExactly(1, 2, 4);
      assertThat(select(root, "i8 < -127.5")).containsExactly(0);
      assertThat(select(root, "i8 < 300")).containsExactly(0, 1, 2, 4); // not the NULL
      assertThat(select(root, "i8 > 300")).isEmpty();
      assertThat(select(root, "i8 = 300")).isEmpty();
      assertThat(select(root, "i8 != 300")).containsExactly(0, 1, 2, 4);
      assertThat(select(root, "i8 >= -300")).containsExactly(0, 1, 2, 4);
      assertThat(select(root, "i8 IN (2, 300, 2.5)")).containsExactly(1);
      assertThat(select(root, "i8 NOT IN (300)")).containsExactly(0, 1, 2, 4);
      assertThat(select(root, "i8 BETWEEN 1.5 AND 1000")).containsExactly(1, 2, 4);
      assertThat(select(root, "i8 < double 'Infinity'")).containsExactly(0, 1, 2, 4);
      assertThat(select(root, "i8 < double 'NaN'")).containsExactly(0, 1, 2, 4);
      assertThat(select(root, "i8 > double '-Infinity'")).containsExactly(0, 1, 2, 4);
      // doubles beyond the long range, and a double that is exactly 2^63
      assertThat(select(root, "i64 < 1e19")).containsExactly(0, 1, 2, 4);
      assertThat(select(root, "i64 >= 9223372036854775808")).isEmpty();
      assertThat(select(root, "i64 > -9.3e18")).containsExactly(0, 1, 2, 4);
      assertThat(select(root, "i64 = 2.000000001")).isEmpty();
      assertThat(select(root, "i64 > 2.000000001")).containsExactly(2, 4);
    }
  }

  @Test
  void unsignedIntegers() {
    try (VectorSchemaRoot root =
        TestBatch.with(allocator)
            .<UInt1Vector, Integer>column(
                "u8",
                new ArrowType.Int(8, false),
                (c, v) -> c.vector().setSafe(c.index(), v),
                0,
                1,
                null,
                200,
                255)
            .<UInt2Vector, Integer>column(
                "u16",
                new ArrowType.Int(16, false),
                (c, v) -> c.vector().setSafe(c.index(), v),
                0,
                1,
                null,
                40000,
                65535)
            .<UInt4Vector, Long>column(
                "u32",
                new ArrowType.Int(32, false),
                (c, v) -> c.vector().setSafe(c.index(), v.intValue()),
                0L,
                1L,
                null,
                3_000_000_000L,
                4_294_967_295L)
            .<UInt8Vector, Long>column(
                "u64",
                new ArrowType.Int(64, false),
                (c, v) -> c.vector().setSafe(c.index(), v),
                0L,
                1L,
                null,
                1L << 63,
                -1L)
            .build()) {
      for (String col : new String[] {"u8", "u16", "u32", "u64"}) {
        assertThat(select(root, col + " > 1")).as(col).containsExactly(3, 4);
        assertThat(select(root, col + " >= 0")).as(col).containsExactly(0, 1, 3, 4);
        assertThat(select(root, col + " > -1")).as(col).containsExactly(0, 1, 3, 4);
        assertThat(select(root, col + " < 0")).as(col).isEmpty();
        assertThat(select(root, col + " = -1")).as(col).isEmpty();
        assertThat(select(root, col + " IN (1, -1)")).as(col).containsExactly(1);
        assertThat(select(root, col + " < 1.5")).as(col).containsExactly(0, 1);
      }
      assertThat(select(root, "u8 = 255")).containsExactly(4);
      assertThat(select(root, "u32 > 2147483647")).containsExactly(3, 4);
      assertThat(select(root, "u64 > 9223372036854775807")).containsExactly(3, 4);
      assertThat(select(root, "u64 = 9223372036854775808.0")).containsExactly(3);
      assertThat(select(root, "u64 >= 1.8446744073709552E19")).isEmpty(); // 2^64 > max
      assertThat(select(root, "u64 > 1.8446744073709550E19")).containsExactly(4);
    }
  }

  @Test
  void floatsUseTotalOrder() {
    double negNaN = Double.longBitsToDouble(0xFFF8000000000000L);
    try (VectorSchemaRoot root =
        TestBatch.with(allocator)
            .<Float8Vector, Double>column(
                "f",
                new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE),
                (c, v) -> c.vector().setSafe(c.index(), v),
                Double.NaN,
                -0.0,
                0.0,
                Double.POSITIVE_INFINITY,
                Double.NEGATIVE_INFINITY,
                1.5,
                -2.0,
                negNaN,
                null)
            .build()) {
      assertThat(select(root, "f > 1")).containsExactly(0, 3, 5);
      assertThat(select(root, "f = 0")).containsExactly(2);
      assertThat(select(root, "f = -0.0")).containsExactly(1);
      assertThat(select(root, "f < 0")).containsExactly(1, 4, 6, 7);
      assertThat(select(root, "f >= 0")).containsExactly(0, 2, 3, 5);
      assertThat(select(root, "f != 0")).containsExactly(0, 1, 3, 4, 5, 6, 7);
      assertThat(select(root, "f = double 'NaN'")).containsExactly(0);
      assertThat(select(root, "f > double 'Infinity'")).containsExactly(0);
      assertThat(select(root, "f < double '-Infinity'")).containsExactly(7);
      assertThat(select(root, "f IN (0, 1.5, double 'NaN')")).containsExactly(0, 2, 5);
      assertThat(select(root, "f BETWEEN -1 AND 2")).containsExactly(1, 2, 5);
      assertThat(select(root, "NOT f > 1")).containsExactly(1, 2, 4, 6, 7);
      assertThat(select(root, "f IS NULL")).containsExactly(8);
    }
  }

  @Test
  void float32LiteralsAreRoundedToFloat32() {
    try (VectorSchemaRoot root =
        TestBatch.with(allocator)
            .<Float4Vector, Float>column(
                "f",
                new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE),
                (c, v) -> c.vector().setSafe(c.index(), v),
                0.1f,
                0.3f,
                Float.NaN,
                null,
                16777217f)
            .build()) {
      assertThat(select(root, "f = 0.1")).containsExactly(0);
      assertThat(select(root, "f > 0.1")).containsExactly(1, 2, 4);
      assertThat(select(root, "f <= 0.30000001192092896")).containsExactly(0, 1);
      assertThat(select(root, "f = double 'NaN'")).containsExactly(2);
      assertThat(select(root, "f = 16777216")).containsExactly(4); // 16777217f is 16777216f
      assertThat(select(root, "f IN (0.3, 0.2)")).containsExactly(1);
    }
  }

  @Test
  void float16() {
    try (VectorSchemaRoot root =
        TestBatch.with(allocator)
            .<Float2Vector, Float>column(
                "h",
                new ArrowType.FloatingPoint(FloatingPointPrecision.HALF),
                (c, v) -> c.vector().setSafe(c.index(), Float16.toFloat16(v)),
                -1.5f,
                0.5f,
                null,
                2.0f,
                Float.NaN,
                -0.0f)
            .build()) {
      assertThat(select(root, "h > 0")).containsExactly(1, 3, 4);
      assertThat(select(root, "h < 0")).containsExactly(0, 5);
      assertThat(select(root, "h = 0.5")).containsExactly(1);
      assertThat(select(root, "h IN (2, -1.5)")).containsExactly(0, 3);
    }
  }

  @Test
  void batchesLongerThanOneWordAndPartialWords() {
    int n = 200;
    try (IntVector v = new IntVector("x", allocator)) {
      v.allocateNew(n);
      for (int i = 0; i < n; i++) {
        if (i % 7 == 0) {
          v.setNull(i);
        } else {
          v.set(i, i);
        }
      }
      v.setValueCount(n);
      try (VectorSchemaRoot root = TestBatch.with(allocator).vector(v).build()) {
        int[] expected =
            java.util.stream.IntStream.range(0, n)
                .filter(i -> i % 7 != 0 && i >= 63 && i < 130)
                .toArray();
        assertThat(select(root, "x BETWEEN 63 AND 129")).containsExactly(expected);
        int[] notExpected =
            java.util.stream.IntStream.range(0, n)
                .filter(i -> i % 7 != 0 && (i < 63 || i >= 130))
                .toArray();
        assertThat(select(root, "NOT x BETWEEN 63 AND 129")).containsExactly(notExpected);
        assertThat(select(root, "x IS NULL")).hasSize((n + 6) / 7);
        assertThat(select(root, "x IS NULL OR x IS NOT NULL")).hasSize(n);
        assertThat(select(root, "true")).hasSize(n);
        assertThat(select(root, "NOT false")).hasSize(n);
      }
    }
  }
}
