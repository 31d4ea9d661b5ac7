package dev.lancelot.engine.expr;

import static dev.lancelot.engine.expr.FilterParser.parse;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Parsing of value expressions: precedence, canonical records, rendering and round trips. */
class ValueExpressionParserTest {
  private static final Column A = Column.named("a");
  private static final Column B = Column.named("b");
  private static final Column C = Column.named("c");

  private static Expr n(long v) {
    return new LongLiteral(v);
  }

  private static Arithmetic op(Expr l, ArithmeticOp op, Expr r) {
    return new Arithmetic(l, op, r);
  }

  @Test
  void multiplicationBindsTighterThanAdditionAndBothAreLeftAssociative() {
    assertThat(parse("a + b * c = 1"))
        .isEqualTo(
            new ValueComparison(
                op(A, ArithmeticOp.ADD, op(B, ArithmeticOp.MULTIPLY, C)), CompareOp.EQ, n(1)));
    assertThat(parse("a * b + c = 1"))
        .isEqualTo(
            new ValueComparison(
                op(op(A, ArithmeticOp.MULTIPLY, B), ArithmeticOp.ADD, C), CompareOp.EQ, n(1)));
    assertThat(parse("a - b - c = 1"))
        .isEqualTo(
            new ValueComparison(
                op(op(A, ArithmeticOp.SUBTRACT, B), ArithmeticOp.SUBTRACT, C), CompareOp.EQ, n(1)));
    assertThat(parse("a / b % c = 1"))
        .isEqualTo(
            new ValueComparison(
                op(op(A, ArithmeticOp.DIVIDE, B), ArithmeticOp.MODULO, C), CompareOp.EQ, n(1)));
    assertThat(parse("(a + b) * c = 1"))
        .isEqualTo(
            new ValueComparison(
                op(op(A, ArithmeticOp.ADD, B), ArithmeticOp.MULTIPLY, C), CompareOp.EQ, n(1)));
    assertThat(parse("a - (b - c) = 1"))
        .isEqualTo(
            new ValueComparison(
                op(A, ArithmeticOp.SUBTRACT, op(B, ArithmeticOp.SUBTRACT, C)), CompareOp.EQ, n(1)));
  }

  @Test
  void unaryMinusBindsTightestAndNumberLiteralsStayLiterals() {
    assertThat(parse("-a * b = 1"))
        .isEqualTo(
            new ValueComparison(op(new Negate(A), ArithmeticOp.MULTIPLY, B), CompareOp.EQ, n(1)));
    assertThat(parse("a - -5 = 1"))
        .isEqualTo(new ValueComparison(op(A, ArithmeticOp.SUBTRACT, n(-5)), CompareOp.EQ, n(1)));
    assertThat(parse("-(5) = a")).isEqualTo(new ValueComparison(new Negate(n(5)), CompareOp.EQ, A));
    assertThat(parse("a = -5")).isEqualTo(new Comparison(A, CompareOp.EQ, new LongLiteral(-5)));
  }

  @Test
  void arithmeticBindsTighterThanComparisonsAndComparisonsThanNot() {
    assertThat(parse("NOT a % 7 = 3 AND b"))
        .isEqualTo(
            new And(
                List.of(
                    new Not(
                        new ValueComparison(op(A, ArithmeticOp.MODULO, n(7)), CompareOp.EQ, n(3))),
                    new BooleanColumn(B))));
    assertThat(parse("a + 1 BETWEEN b AND c * 2"))
        .isEqualTo(
            new ValueBetween(
                op(A, ArithmeticOp.ADD, n(1)), B, op(C, ArithmeticOp.MULTIPLY, n(2)), false));
  }

  @Test
  void columnAgainstLiteralStaysTheIndexableForm() {
    assertThat(parse("a = 5")).isInstanceOf(Comparison.class);
    assertThat(parse("5 < a")).isEqualTo(new Comparison(A, CompareOp.GT, new LongLiteral(5)));
    assertThat(parse("(a) = 5")).isInstanceOf(Comparison.class);
    assertThat(parse("a IN (1, 2)")).isInstanceOf(InList.class);
    assertThat(parse("a IN (1, b)")).isEqualTo(new ValueInList(A, List.of(n(1), B), false));
    assertThat(parse("a BETWEEN 1 AND 2")).isInstanceOf(Between.class);
    assertThat(parse("a IS NULL")).isInstanceOf(IsNull.class);
    assertThat(parse("a LIKE 'x%'")).isInstanceOf(Like.class);
    assertThat(parse("a ILIKE 'x%'")).isEqualTo(new ValueLike(A, "x%", false, true));
    assertThat(parse("a < b")).isEqualTo(new ValueComparison(A, CompareOp.LT, B));
    assertThat(parse("1 = 2")).isEqualTo(new ValueComparison(n(1), CompareOp.EQ, n(2)));
  }

  @Test
  void castsFunctionsAndTruthTests() {
    assertThat(parse("CAST(a AS bigint unsigned) = 1"))
        .isEqualTo(new ValueComparison(new Cast(A, CastType.BIGINT_UNSIGNED), CompareOp.EQ, n(1)));
    assertThat(parse("cast(a as Integer) = 1"))
        .isEqualTo(new ValueComparison(new Cast(A, CastType.INT), CompareOp.EQ, n(1)));
    assertThat(parse("Starts_With(a, 'x')"))
        .isEqualTo(
            new BooleanValue(
                new Call(FilterFunction.STARTS_WITH, List.of(A, new StringLiteral("x")))));
    assertThat(parse("a IS NOT TRUE"))
        .isEqualTo(new TruthTest(new BooleanColumn(A), TruthTest.Truth.TRUE, true));
    assertThat(parse("(a > 1) IS NULL"))
        .isEqualTo(
            new TruthTest(
                new Comparison(A, CompareOp.GT, new LongLiteral(1)), TruthTest.Truth.NULL, false));
    assertThat(parse("a IS NULL IS FALSE"))
        .isEqualTo(new TruthTest(new IsNull(A, false), TruthTest.Truth.FALSE, false));
    assertThat(parse("lower(a) IS NULL"))
        .isEqualTo(new ValueIsNull(new Call(FilterFunction.LOWER, List.of(A)), false));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "a + b * c = 1",
        "(a + b) * c = 1",
        "a - (b - c) = 1",
        "a - b - c = 1",
        "a / (b * c) = 1",
        "a % 7 = 3",
        "-a = 1",
        "-(a + 1) = 1",
        "-(-a) = 1",
        "-(5) = a",
        "a - -5 = 1",
        "a * -1.5 > b",
        "-CAST(a AS INT) = 1",
        "CAST(a + 1 AS DOUBLE) / 2 = 1.5",
        "CAST(a AS TINYINT UNSIGNED) IN (1, b)",
        "lower(a) = upper(b)",
        "length(a) % 2 = 0",
        "abs(a - b) BETWEEN 1 AND c",
        "contains(a, 'x') AND NOT ends_with(b, 'y')",
        "a NOT ILIKE 'x\\_%'",
        "lower(a) NOT LIKE 'x%'",
        "a IS NOT FALSE",
        "(a = 1) IS NULL",
        "(a = 1 OR b = 2) IS NOT TRUE",
        "a IS NULL IS TRUE",
        "true IS FALSE",
        "NULL IS NULL",
        "a + NULL IS NOT NULL",
        "a = b",
        "1 < 2",
        "date '2024-01-01' = a + 1",
        "a * double 'NaN' = a",
        "`weird name` * 2 = a",
        "s.x + s.y = 0",
      })
  void renderingParsesBackToAnEqualPredicate(String filter) {
    Predicate p = parse(filter);
    assertThat(parse(p.toSql())).as(p.toSql()).isEqualTo(p);
    assertThat(p.toSql()).isEqualTo(parse(p.toSql()).toSql());
  }

  @Test
  void recordsRefuseShapesThatHaveACanonicalForm() {
    assertThatThrownBy(() -> new ValueComparison(A, CompareOp.EQ, n(1)))
        .hasMessageContaining("is a Comparison");
    assertThatThrownBy(() -> new ValueInList(A, List.of(n(1)), false))
        .hasMessageContaining("is an InList");
    assertThatThrownBy(() -> new ValueIsNull(A, false)).hasMessageContaining("IsNull");
    assertThatThrownBy(() -> new TruthTest(new BooleanColumn(A), TruthTest.Truth.NULL, false))
        .hasMessageContaining("IsNull");
    assertThat(Predicates.compareValues(n(1), CompareOp.LT, A))
        .isEqualTo(new Comparison(A, CompareOp.GT, new LongLiteral(1)));
    assertThat(Predicates.condition(new Call(FilterFunction.CONTAINS, List.of(A, B))))
        .isInstanceOf(BooleanValue.class);
  }

  @Test
  void columnsAreCollectedFromExpressions() {
    assertThat(parse("a + lower(b) = CAST(c AS INT) OR (a IS NULL) IS TRUE").columns())
        .containsExactly(A, B, C);
  }
}
