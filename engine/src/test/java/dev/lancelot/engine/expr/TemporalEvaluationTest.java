package dev.lancelot.engine.expr;

import static dev.lancelot.engine.expr.TestBatch.select;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DateMilliVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.TimeStampMicroVector;
import org.apache.arrow.vector.TimeStampNanoVector;
import org.apache.arrow.vector.TimeStampSecVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class TemporalEvaluationTest {
  private final BufferAllocator allocator = new RootAllocator();

  @AfterEach
  void close() {
    allocator.close();
  }

  private static long epochDay(String date) {
    return LocalDate.parse(date).toEpochDay();
  }

  private static long epochMicros(String ts) {
    LocalDateTime t = LocalDateTime.parse(ts);
    return t.toEpochSecond(ZoneOffset.UTC) * 1_000_000 + t.getNano() / 1000;
  }

  @Test
  void dates() {
    try (VectorSchemaRoot root =
        TestBatch.with(allocator)
            .<DateDayVector, Long>column(
                "d",
                new ArrowType.Date(DateUnit.DAY),
                (c, v) -> c.vector().setSafe(c.index(), v.intValue()),
                epochDay("2023-12-09"),
                epochDay("2023-12-10"),
                null,
                epochDay("1969-12-31"))
            .<DateMilliVector, Long>column(
                "dm",
                new ArrowType.Date(DateUnit.MILLISECOND),
                (c, v) -> c.vector().setSafe(c.index(), v * 86_400_000L),
                epochDay("2023-12-09"),
                epochDay("2023-12-10"),
                null,
                epochDay("1969-12-31"))
            .build()) {
      for (String col : new String[] {"d", "dm"}) {
        assertThat(select(root, col + " = date '2023-12-09'")).as(col).containsExactly(0);
        assertThat(select(root, col + " > date '2023-12-09'")).as(col).containsExactly(1);
        assertThat(select(root, col + " < date '1970-01-01'")).as(col).containsExactly(3);
        assertThat(select(root, col + " IN (date '2023-12-10', NULL)")).as(col).containsExactly(1);
        assertThat(select(root, col + " BETWEEN date '1969-01-01' AND date '2023-12-09'"))
            .as(col)
            .containsExactly(0, 3);
        // against a timestamp the date is midnight UTC
        assertThat(select(root, col + " < timestamp '2023-12-10 00:00:01'"))
            .as(col)
            .containsExactly(0, 1, 3);
        assertThat(select(root, col + " = timestamp '2023-12-10 00:00:00'"))
            .as(col)
            .containsExactly(1);
        assertThat(select(root, col + " = timestamp '2023-12-10 00:00:00.001'")).as(col).isEmpty();
        assertThat(select(root, col + " > timestamp '2023-12-09 23:59:59.999999999'"))
            .as(col)
            .containsExactly(1);
      }
    }
  }

  @Test
  void timestampsOfEveryUnit() {
    String[] times = {"2023-11-14T22:13:20", "2023-11-14T23:13:20.5", null, "1969-12-31T23:59:59"};
    try (VectorSchemaRoot root =
        TestBatch.with(allocator)
            .<TimeStampSecVector, String>column(
                "ts_s",
                new ArrowType.Timestamp(TimeUnit.SECOND, null),
                (c, v) -> c.vector().setSafe(c.index(), Math.floorDiv(epochMicros(v), 1_000_000L)),
                times)
            .<TimeStampMicroVector, String>column(
                "ts_us",
                new ArrowType.Timestamp(TimeUnit.MICROSECOND, null),
                (c, v) -> c.vector().setSafe(c.index(), epochMicros(v)),
                times)
            .<TimeStampNanoVector, String>column(
                "ts_ns",
                new ArrowType.Timestamp(TimeUnit.NANOSECOND, null),
                (c, v) -> c.vector().setSafe(c.index(), epochMicros(v) * 1000),
                times)
            .build()) {
      assertThat(select(root, "ts_us = timestamp '2023-11-14 22:13:20'")).containsExactly(0);
      assertThat(select(root, "ts_us = timestamp '2023-11-14T23:13:20.5'")).containsExactly(1);
      assertThat(select(root, "ts_ns = timestamp '2023-11-14T23:13:20.500'")).containsExactly(1);
      // seconds column: 23:13:20.5 was stored as 23:13:20; as in Lance, a literal is cast to
      // the column's unit, truncating toward zero
      assertThat(select(root, "ts_s = timestamp '2023-11-14 23:13:20'")).containsExactly(1);
      assertThat(select(root, "ts_s = timestamp '2023-11-14 23:13:20.5'")).containsExactly(1);
      assertThat(select(root, "ts_s > timestamp '2023-11-14 23:13:19.5'")).containsExactly(1);
      assertThat(select(root, "ts_s < timestamp '2023-11-14 23:13:20.5'")).containsExactly(0, 3);
      assertThat(select(root, "ts_s = timestamp '1969-12-31 23:59:59.5'")).isEmpty(); // -0.5s -> 0
      assertThat(select(root, "ts_s > timestamp '1969-12-31 23:59:58.5'")).containsExactly(0, 1);
      // literals are microsecond-precise: finer digits are dropped
      assertThat(select(root, "ts_ns = timestamp '2023-11-14 23:13:20.5000009'"))
          .containsExactly(1);
      assertThat(select(root, "ts_us = timestamp '2023-11-14 23:13:20.5000009'"))
          .containsExactly(1);
      for (String col : new String[] {"ts_s", "ts_us", "ts_ns"}) {
        assertThat(select(root, col + " < timestamp '1970-01-01 00:00:00'"))
            .as(col)
            .containsExactly(3);
        assertThat(select(root, col + " < date '2023-11-15'")).as(col).containsExactly(0, 1, 3);
        assertThat(select(root, col + " >= date '2023-11-14'")).as(col).containsExactly(0, 1);
        assertThat(select(root, col + " IS NULL")).as(col).containsExactly(2);
      }
    }
  }

  @Test
  void timestampLiteralIsLocalTimeInTheColumnsZone() {
    long base = 1_700_000_000_000_000L; // 2023-11-14 22:13:20 UTC
    try (VectorSchemaRoot root =
        TestBatch.with(allocator)
            .<TimeStampMicroTZVector, Long>column(
                "tstz",
                new ArrowType.Timestamp(TimeUnit.MICROSECOND, "America/New_York"),
                (c, v) -> c.vector().setSafe(c.index(), v),
                base,
                base + 5 * 3_600_000_000L,
                null)
            .build()) {
      // 22:13:20 UTC is 17:13:20 in New York (EST)
      assertThat(select(root, "tstz = timestamp '2023-11-14 17:13:20'")).containsExactly(0);
      assertThat(select(root, "tstz = timestamp '2023-11-14 22:13:20'")).containsExactly(1);
      // a date literal is midnight UTC, as in Lance
      assertThat(select(root, "tstz < date '2023-11-15'")).containsExactly(0);
    }
  }
}
