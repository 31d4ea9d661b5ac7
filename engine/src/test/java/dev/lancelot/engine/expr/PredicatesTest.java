package dev.lancelot.engine.expr;

import static dev.lancelot.engine.expr.Predicates.and;
import static dev.lancelot.engine.expr.Predicates.eq;
import static dev.lancelot.engine.expr.Predicates.gt;
import static dev.lancelot.engine.expr.Predicates.in;
import static dev.lancelot.engine.expr.Predicates.isNotNull;
import static dev.lancelot.engine.expr.Predicates.notIn;
import static dev.lancelot.engine.expr.Predicates.or;
import static dev.lancelot.engine.expr.Predicates.startsWith;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.junit.jupiter.api.Test;

class PredicatesTest {
  @Test
  void buildersMatchTheParser() {
    assertThat(eq("tenant_id", 42)).isEqualTo(FilterParser.parse("tenant_id = 42"));
    assertThat(and(eq("a", 1), gt("b", 2.5), isNotNull("c")))
        .isEqualTo(FilterParser.parse("a = 1 AND b > 2.5 AND c IS NOT NULL"));
    assertThat(or(eq("a", "x"), in("b", List.of(1, 2L, (short) 3))))
        .isEqualTo(FilterParser.parse("a = 'x' OR b IN (1, 2, 3)"));
    assertThat(notIn("b", List.of(true, false)))
        .isEqualTo(FilterParser.parse("b NOT IN (true, false)"));
    assertThat(Predicates.between("d", LocalDate.of(2024, 1, 1), LocalDate.of(2024, 2, 1)))
        .isEqualTo(FilterParser.parse("d BETWEEN date '2024-01-01' AND date '2024-02-01'"));
    assertThat(Predicates.lt(Column.of("s", "t"), LocalDateTime.of(2024, 1, 1, 10, 0)))
        .isEqualTo(FilterParser.parse("s.t < timestamp '2024-01-01 10:00:00'"));
    assertThat(eq("b", new byte[] {1, 2})).isEqualTo(FilterParser.parse("b = X'0102'"));
    assertThat(eq("x", null)).isEqualTo(FilterParser.parse("x = NULL"));
    assertThat(eq("x", new BigDecimal("2.50"))).isEqualTo(FilterParser.parse("x = 2.5"));
    assertThat(eq("x", new BigDecimal("20"))).isEqualTo(FilterParser.parse("x = 20"));
    assertThat(eq("a.b", 1)).isEqualTo(FilterParser.parse("`a.b` = 1"));
    assertThat(Predicates.isTrue("flag")).isEqualTo(FilterParser.parse("flag"));
    assertThat(Predicates.not(eq("a", 1))).isEqualTo(FilterParser.parse("NOT a = 1"));
  }

  @Test
  void degenerateConjunctionsAndLists() {
    assertThat(and()).isEqualTo(Constant.TRUE);
    assertThat(or()).isEqualTo(Constant.FALSE);
    assertThat(and(eq("a", 1))).isEqualTo(eq("a", 1));
    assertThat(in("a", List.of())).isEqualTo(Constant.FALSE);
    assertThat(notIn("a", List.of())).isEqualTo(Constant.TRUE);
    assertThat(and(and(eq("a", 1), eq("b", 2)), eq("c", 3)))
        .isEqualTo(new And(List.of(eq("a", 1), eq("b", 2), eq("c", 3))));
    assertThatThrownBy(() -> new And(List.of(eq("a", 1))))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> eq("a", new Object()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("no filter literal for a value of type java.lang.Object");
  }

  @Test
  void literalConversions() {
    assertThatThrownBy(() -> Literal.of(java.time.Instant.EPOCH))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("use TimestampLiteral.of(instant, zone)");
    assertThat(
            TimestampLiteral.of(
                    java.time.Instant.parse("2023-11-14T22:13:20.5Z"),
                    java.time.ZoneId.of("America/New_York"))
                .toSql())
        .isEqualTo("timestamp '2023-11-14 17:13:20.5'");
    assertThatThrownBy(() -> Literal.of(new BigDecimal("18446744073709551615")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("integers must fit a signed 64-bit long");
    assertThat(Literal.of(java.math.BigInteger.valueOf(-5))).isEqualTo(new LongLiteral(-5));
    assertThat(Literal.of(1.5f)).isEqualTo(new DoubleLiteral(1.5));
    assertThat(Literal.of((byte) 7)).isEqualTo(new LongLiteral(7));
  }

  @Test
  void conjunctsSplitTheTopLevelAnd() {
    Predicate p = FilterParser.parse("a = 1 AND (b = 2 OR c = 3) AND NOT d = 4");
    assertThat(Predicates.conjuncts(p))
        .containsExactly(eq("a", 1), or(eq("b", 2), eq("c", 3)), Predicates.not(eq("d", 4)));
    assertThat(Predicates.and(Predicates.conjuncts(p))).isEqualTo(p);
    assertThat(Predicates.conjuncts(eq("a", 1))).containsExactly(eq("a", 1));
  }

  @Test
  void columnsAreListedInOrderOfAppearance() {
    assertThat(FilterParser.parse("b = 1 AND (a.x = 2 OR b > 3) AND c IS NULL").columns())
        .containsExactly(Column.named("b"), Column.of("a", "x"), Column.named("c"));
  }

  @Test
  void stringMatchHelpersEscapeWildcards() {
    assertThat(startsWith("s", "a_%\\").toSql()).isEqualTo("s LIKE 'a\\_\\%\\\\%'");
    assertThat(Predicates.escapeLike("100%_\\")).isEqualTo("100\\%\\_\\\\");
    String[] values = {"a_%\\x", "a_%x", "abc", "xa_%\\", "a_%\\", null};
    try (BufferAllocator allocator = new RootAllocator();
        VectorSchemaRoot root =
            TestBatch.with(allocator)
                .<VarCharVector, String>column(
                    "s",
                    ArrowType.Utf8.INSTANCE,
                    (c, v) -> c.vector().setSafe(c.index(), TestBatch.utf8(v)),
                    values)
                .build()) {
      assertThat(rows(root, startsWith("s", "a_%\\"))).containsExactly(0, 4);
      assertThat(rows(root, Predicates.endsWith(Column.named("s"), "a_%\\"))).containsExactly(3, 4);
      assertThat(rows(root, Predicates.contains(Column.named("s"), "_%\\")))
          .containsExactly(0, 3, 4);
      assertThat(rows(root, Predicates.like("s", "a%"))).containsExactly(0, 1, 2, 4);
      assertThat(rows(root, Predicates.notLike(Column.named("s"), "a%"))).containsExactly(3);
    }
  }

  @Test
  void nullSafeEqualityIsNeverUnknown() {
    assertThat(Predicates.nullSafeEq(Column.named("x"), null))
        .isEqualTo(FilterParser.parse("x IS NULL"));
    Predicate p = Predicates.nullSafeEq(Column.named("x"), 2);
    assertThat(p).isEqualTo(FilterParser.parse("x IS NOT NULL AND x = 2"));
    try (BufferAllocator allocator = new RootAllocator();
        VectorSchemaRoot root =
            TestBatch.with(allocator)
                .<IntVector, Integer>column(
                    "x",
                    new ArrowType.Int(32, true),
                    (c, v) -> c.vector().setSafe(c.index(), v),
                    1,
                    2,
                    null)
                .build()) {
      assertThat(rows(root, Predicates.not(p))).containsExactly(0, 2);
    }
  }

  private static int[] rows(VectorSchemaRoot root, Predicate p) {
    return BoundPredicate.bind(p, root.getSchema()).evaluate(root).toRowIndexes();
  }
}
