package dev.lancelot.engine.expr;

import static dev.lancelot.engine.expr.Predicates.and;
import static dev.lancelot.engine.expr.Predicates.or;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class FilterParserTest {
  private static final Column X = Column.named("x");

  private static Predicate parse(String s) {
    return FilterParser.parse(s);
  }

  private static Comparison cmp(String column, CompareOp op, Literal value) {
    return new Comparison(Column.named(column), op, value);
  }

  private static LongLiteral n(long v) {
    return new LongLiteral(v);
  }

  @Test
  void comparisonOperators() {
    assertThat(parse("x = 1")).isEqualTo(cmp("x", CompareOp.EQ, n(1)));
    assertThat(parse("x == 1")).isEqualTo(cmp("x", CompareOp.EQ, n(1)));
    assertThat(parse("x != 1")).isEqualTo(cmp("x", CompareOp.NE, n(1)));
    assertThat(parse("x <> 1")).isEqualTo(cmp("x", CompareOp.NE, n(1)));
    assertThat(parse("x < 1")).isEqualTo(cmp("x", CompareOp.LT, n(1)));
    assertThat(parse("x <= 1")).isEqualTo(cmp("x", CompareOp.LE, n(1)));
    assertThat(parse("x > 1")).isEqualTo(cmp("x", CompareOp.GT, n(1)));
    assertThat(parse("x>=1")).isEqualTo(cmp("x", CompareOp.GE, n(1)));
  }

  @Test
  void literalOnTheLeftIsFlipped() {
    assertThat(parse("3 < x")).isEqualTo(cmp("x", CompareOp.GT, n(3)));
    assertThat(parse("3 >= x")).isEqualTo(cmp("x", CompareOp.LE, n(3)));
    assertThat(parse("'a' = x")).isEqualTo(cmp("x", CompareOp.EQ, new StringLiteral("a")));
  }

  @Test
  void numbers() {
    assertThat(parse("x = -5")).isEqualTo(cmp("x", CompareOp.EQ, n(-5)));
    assertThat(parse("x = - 5")).isEqualTo(cmp("x", CompareOp.EQ, n(-5)));
    assertThat(parse("x = 1.5")).isEqualTo(cmp("x", CompareOp.EQ, new DoubleLiteral(1.5)));
    assertThat(parse("x = -1.5e3")).isEqualTo(cmp("x", CompareOp.EQ, new DoubleLiteral(-1500)));
    assertThat(parse("x = 1E2")).isEqualTo(cmp("x", CompareOp.EQ, new DoubleLiteral(100)));
    assertThat(parse("x = 2.5E-3")).isEqualTo(cmp("x", CompareOp.EQ, new DoubleLiteral(0.0025)));
    assertThat(parse("x = .5")).isEqualTo(cmp("x", CompareOp.EQ, new DoubleLiteral(0.5)));
    assertThat(parse("x = 5.")).isEqualTo(cmp("x", CompareOp.EQ, new DoubleLiteral(5)));
    assertThat(parse("x = -0.0")).isEqualTo(cmp("x", CompareOp.EQ, new DoubleLiteral(-0.0)));
    assertThat(parse("x = -9223372036854775808"))
        .isEqualTo(cmp("x", CompareOp.EQ, n(Long.MIN_VALUE)));
    assertThat(parse("x = 9223372036854775807"))
        .isEqualTo(cmp("x", CompareOp.EQ, n(Long.MAX_VALUE)));
    // Integers beyond the long range become doubles, as in Lance.
    assertThat(parse("x = 9223372036854775808"))
        .isEqualTo(cmp("x", CompareOp.EQ, new DoubleLiteral(9.223372036854775808E18)));
  }

  @Test
  void stringsAndOtherLiterals() {
    assertThat(parse("x = 'it''s'")).isEqualTo(cmp("x", CompareOp.EQ, new StringLiteral("it's")));
    assertThat(parse("x = ''")).isEqualTo(cmp("x", CompareOp.EQ, new StringLiteral("")));
    assertThat(parse("x = 'a\\b'")).isEqualTo(cmp("x", CompareOp.EQ, new StringLiteral("a\\b")));
    assertThat(parse("x = \"dq\"")).isEqualTo(cmp("x", CompareOp.EQ, new StringLiteral("dq")));
    assertThat(parse("x = 'é😀'")).isEqualTo(cmp("x", CompareOp.EQ, new StringLiteral("é😀")));
    assertThat(parse("x = TRUE")).isEqualTo(cmp("x", CompareOp.EQ, BooleanLiteral.TRUE));
    assertThat(parse("x = false")).isEqualTo(cmp("x", CompareOp.EQ, BooleanLiteral.FALSE));
    assertThat(parse("x = null")).isEqualTo(cmp("x", CompareOp.EQ, NullLiteral.INSTANCE));
    assertThat(parse("x = X'00fF'"))
        .isEqualTo(cmp("x", CompareOp.EQ, new BinaryLiteral(new byte[] {0, -1})));
    assertThat(parse("x = date '2024-01-31'"))
        .isEqualTo(cmp("x", CompareOp.EQ, new DateLiteral(LocalDate.of(2024, 1, 31))));
    assertThat(parse("x < TIMESTAMP '2024-01-31 10:00:00'"))
        .isEqualTo(
            cmp("x", CompareOp.LT, new TimestampLiteral(LocalDateTime.of(2024, 1, 31, 10, 0))));
    assertThat(parse("x < timestamp '2024-01-31T10:00:01.000000123'"))
        .isEqualTo(
            cmp(
                "x",
                CompareOp.LT,
                new TimestampLiteral(LocalDateTime.of(2024, 1, 31, 10, 0, 1, 123))));
    assertThat(parse("x < timestamp '2024-01-31 10:00'"))
        .isEqualTo(
            cmp("x", CompareOp.LT, new TimestampLiteral(LocalDateTime.of(2024, 1, 31, 10, 0))));
    assertThat(parse("x = double 'NaN'"))
        .isEqualTo(cmp("x", CompareOp.EQ, new DoubleLiteral(Double.NaN)));
    assertThat(parse("x = DOUBLE '-Infinity'"))
        .isEqualTo(cmp("x", CompareOp.EQ, new DoubleLiteral(Double.NEGATIVE_INFINITY)));
    assertThat(parse("x = double '2.5'")).isEqualTo(cmp("x", CompareOp.EQ, new DoubleLiteral(2.5)));
  }

  @Test
  void columnNames() {
    assertThat(parse("`weird name` = 1")).isEqualTo(cmp("weird name", CompareOp.EQ, n(1)));
    assertThat(parse("`a.b` = 1")).isEqualTo(cmp("a.b", CompareOp.EQ, n(1)));
    assertThat(parse("`back``tick` = 1")).isEqualTo(cmp("back`tick", CompareOp.EQ, n(1)));
    assertThat(parse("a.b = 1")).isEqualTo(new Comparison(Column.of("a", "b"), CompareOp.EQ, n(1)));
    assertThat(parse("a.`b c`.d = 1"))
        .isEqualTo(new Comparison(Column.of("a", "b c", "d"), CompareOp.EQ, n(1)));
    assertThat(parse("`in` = 1")).isEqualTo(cmp("in", CompareOp.EQ, n(1)));
    assertThat(parse("date = 1")).isEqualTo(cmp("date", CompareOp.EQ, n(1)));
    assertThat(parse("Tenant_ID = 1")).isEqualTo(cmp("Tenant_ID", CompareOp.EQ, n(1)));
    assertThat(parse("straße = 1")).isEqualTo(cmp("straße", CompareOp.EQ, n(1)));
  }

  @Test
  void predicatesOtherThanComparisons() {
    assertThat(parse("x IN (1, 2, NULL)"))
        .isEqualTo(new InList(X, List.of(n(1), n(2), NullLiteral.INSTANCE), false));
    assertThat(parse("x not in ('a')"))
        .isEqualTo(new InList(X, List.of(new StringLiteral("a")), true));
    assertThat(parse("x BETWEEN -1 AND 2.5"))
        .isEqualTo(new Between(X, n(-1), new DoubleLiteral(2.5), false));
    assertThat(parse("x NOT BETWEEN 1 AND 2")).isEqualTo(new Between(X, n(1), n(2), true));
    assertThat(parse("x IS NULL")).isEqualTo(new IsNull(X, false));
    assertThat(parse("x is not null")).isEqualTo(new IsNull(X, true));
    assertThat(parse("x LIKE 'ab%'")).isEqualTo(new Like(X, "ab%", false));
    assertThat(parse("x NOT LIKE '%\\_'")).isEqualTo(new Like(X, "%\\_", true));
    assertThat(parse("flag")).isEqualTo(new BooleanColumn(Column.named("flag")));
    assertThat(parse("NOT flag")).isEqualTo(new Not(new BooleanColumn(Column.named("flag"))));
    assertThat(parse("true")).isEqualTo(Constant.TRUE);
    assertThat(parse("FALSE")).isEqualTo(Constant.FALSE);
  }

  @Test
  void precedenceIsNotThenAndThenOr() {
    Predicate a = parse("a = 1");
    Predicate b = parse("b = 2");
    Predicate c = parse("c = 3");
    assertThat(parse("a = 1 OR b = 2 AND c = 3")).isEqualTo(or(a, and(b, c)));
    assertThat(parse("a = 1 AND b = 2 OR c = 3")).isEqualTo(or(and(a, b), c));
    assertThat(parse("(a = 1 OR b = 2) AND c = 3")).isEqualTo(and(or(a, b), c));
    assertThat(parse("NOT a = 1 AND b = 2")).isEqualTo(and(new Not(a), b));
    assertThat(parse("NOT (a = 1 AND b = 2)")).isEqualTo(new Not(and(a, b)));
    assertThat(parse("NOT NOT a = 1")).isEqualTo(new Not(new Not(a)));
    assertThat(parse("a = 1 AND b = 2 AND c = 3")).isEqualTo(new And(List.of(a, b, c)));
    assertThat(parse("a = 1 AND (b = 2 AND c = 3)")).isEqualTo(new And(List.of(a, b, c)));
    assertThat(parse("((a = 1))")).isEqualTo(a);
    assertThat(parse("x BETWEEN 1 AND 2 AND a = 1"))
        .isEqualTo(and(new Between(X, n(1), n(2), false), a));
  }

  @Test
  void keywordsAreCaseInsensitive() {
    assertThat(parse("x iS nOt NuLl aNd x nOt BeTwEeN 1 AnD 2 Or x LiKe 'a'"))
        .isEqualTo(parse("x IS NOT NULL AND x NOT BETWEEN 1 AND 2 OR x LIKE 'a'"));
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '"',
      value = {
        "tenant_id =|expected a value at position 11",
        "|expected a predicate at position 0",
        "x = 1 AND|expected a predicate at position 9",
        "x = 1 x = 2|expected AND, OR or the end of the filter but found \"x\" at position 6",
        "(x = 1|expected ')' at position 6",
        "x = 1)|expected AND, OR or the end of the filter but found \")\" at position 5",
        "x IN 1|expected '(' after IN but found \"1\" at position 5",
        "x IN ()|expected a value but found \")\" at position 6",
        "x IN (1 2)|expected ',' or ')' in the IN list but found \"2\" at position 8",
        "x IS 1|expected NULL, NOT NULL, TRUE or FALSE after IS but found \"1\" at position 5",
        "x IS NOT 1|expected NULL, TRUE or FALSE after IS NOT but found \"1\" at position 9",
        "x NOT 1|expected IN, BETWEEN, LIKE or ILIKE after NOT but found \"1\" at position 6",
        "x BETWEEN 1 OR 2|expected AND between the bounds of BETWEEN but found \"OR\" at position 12",
        "x LIKE y|expected a string pattern after LIKE but found \"y\" at position 7",
        "x = 'abc|unterminated string literal (missing closing ') at position 4",
        "`x = 1|unterminated quoted name (missing closing `) at position 0",
        "x # 1|unexpected character '#' at position 2",
        "x = --1|unexpected character '-' at position 4",
        "x = -|expected a number after '-' at position 5",
        "1 IS TRUE|the literal 1 is not a condition; expected a predicate at position 0",
        "5|expected an operator (=, !=, <, <=, >, >=, IN, BETWEEN, LIKE or IS) at position 1",
        "x = date '2024-13-01'|expected 'YYYY-MM-DD' in the date literal at position 9",
        "x = double 'abc'|expected a number, 'NaN', 'Infinity' or '-Infinity' in the double literal at position 11",
        "x = X'abc'|expected an even number of hex digits in X'abc' at position 4",
        "a. = 1|expected a field name after '.' but found \"=\" at position 3",
        "x = AND|expected a value but found \"AND\" at position 4",
        "substr(name, 1) = 'a'|the function substr is not supported; expected one of lower, upper, starts_with, ends_with, contains, length, char_length, character_length, octet_length, abs, CAST, or LIKE for patterns at position 0",
        "lower(x, y) = 'a'|lower takes 1 argument, not 2 at position 0",
        "CAST(x AS VARCHAR) = 'a'|CAST to VARCHAR is not supported; expected one of TINYINT, SMALLINT, INT, BIGINT, TINYINT UNSIGNED, SMALLINT UNSIGNED, INT UNSIGNED, BIGINT UNSIGNED, FLOAT, DOUBLE, STRING, BOOLEAN at position 10",
        "CAST(x INT) = 1|expected AS and a type in CAST but found \"INT\" at position 7",
        "(x = 1) + 1 > 2|a condition cannot be used in arithmetic here; expected a value at position 0",
        "x = (y = 1)|a condition cannot be compared here; expected a value at position 4",
        "+x = 1|unary '+' is not supported (Lance refuses it too); expected a value but found \"+\" at position 0",
        "x * = 1|expected a value but found \"=\" at position 4",
        "x LIKE 'a' ESCAPE '!'|LIKE ... ESCAPE is not supported (a backslash escapes, as in Lance); expected AND, OR or the end of the filter but found \"ESCAPE\" at position 11",
        "x /* c */ = 1|unexpected character '/' at position 2",
        "x ^ 1 > 2|unexpected character '^' at position 2",
      })
  void errorsNameThePositionAndWhatWasExpected(String filter, String problem) {
    String text = filter == null ? "" : filter;
    assertThatThrownBy(() -> FilterParser.parse(text))
        .isInstanceOf(FilterParseException.class)
        .isInstanceOf(dev.lancelot.engine.LancelotException.class)
        .hasMessage("Cannot parse filter \"" + text + "\": " + problem);
  }

  @Test
  void exceptionCarriesFilterAndPosition() {
    FilterParseException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            FilterParseException.class, () -> FilterParser.parse("tenant_id = "));
    assertThat(e.getMessage())
        .isEqualTo("Cannot parse filter \"tenant_id = \": expected a value at position 12");
    assertThat(e.filter()).isEqualTo("tenant_id = ");
    assertThat(e.position()).isEqualTo(12);
  }

  @Test
  void timestampWithZoneIsRefused() {
    assertThatThrownBy(() -> FilterParser.parse("ts = timestamp '2024-01-01 10:00:00Z'"))
        .hasMessageContaining("(no time zone) in the timestamp literal at position 15");
  }
}
