package dev.lancelot.engine.expr;

import dev.lancelot.engine.expr.parse.Lexer;
import dev.lancelot.engine.expr.parse.Token;
import dev.lancelot.engine.expr.parse.TokenType;
import java.math.BigInteger;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoField;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Parses filter SQL (the dialect of Lance's {@code filter} strings; see {@code docs/filters.md})
 * into a {@link Predicate}. Hand-written recursive descent:
 *
 * <pre>
 * filter     := or END
 * or         := and (OR and)*
 * and        := not (AND not)*
 * not        := NOT not | primary
 * primary    := '(' or ')' | operand [tail]
 * tail       := cmpop operand
 *             | IS [NOT] NULL
 *             | [NOT] IN '(' literal (',' literal)* ')'
 *             | [NOT] BETWEEN literal AND literal
 *             | [NOT] LIKE string
 * operand    := column | literal
 * column     := name ('.' name)*            name := word | `quoted`
 * literal    := ['-'] number | string | TRUE | FALSE | NULL | X'hex'
 *             | DATE string | TIMESTAMP string | DOUBLE string
 * cmpop      := = | == | != | &lt;&gt; | &lt; | &lt;= | &gt; | &gt;=
 * </pre>
 *
 * Keywords are case-insensitive; precedence is NOT &gt; AND &gt; OR. An operand without a tail
 * must be a boolean column or {@code true}/{@code false}. Instances are not needed: the class is
 * stateless and thread-safe.
 */
public final class FilterParser {
  /** Words that cannot be bare column names (backquote such a column: {@code `in`}). */
  private static final Set<String> NOT_A_NAME = Set.of(
      "AND", "OR", "NOT", "IN", "IS", "LIKE", "BETWEEN", "NULL", "TRUE", "FALSE");

  private static final DateTimeFormatter TIMESTAMP = new DateTimeFormatterBuilder()
      .append(DateTimeFormatter.ISO_LOCAL_DATE)
      .optionalStart().appendLiteral(' ').optionalEnd()
      .optionalStart().appendLiteral('T').optionalEnd()
      .appendValue(ChronoField.HOUR_OF_DAY, 2).appendLiteral(':')
      .appendValue(ChronoField.MINUTE_OF_HOUR, 2)
      .optionalStart().appendLiteral(':').appendValue(ChronoField.SECOND_OF_MINUTE, 2)
      .optionalStart().appendFraction(ChronoField.NANO_OF_SECOND, 1, 9, true).optionalEnd()
      .optionalEnd()
      .toFormatter(Locale.ROOT);

  private final String filter;
  private final List<Token> tokens;
  private int index;

  private FilterParser(String filter) {
    this.filter = filter;
    this.tokens = Lexer.tokenize(filter);
  }

  /**
   * Parses a filter such as {@code tenant_id = 42 AND name LIKE 'a%'}.
   *
   * @throws FilterParseException if the text is not valid filter SQL; the message names the
   *     position and what was expected there
   */
  public static Predicate parse(String filter) {
    FilterParser parser = new FilterParser(filter);
    Predicate p = parser.or();
    if (parser.peek().type() != TokenType.END) {
      throw parser.error("expected AND, OR or the end of the filter");
    }
    return p;
  }

  private Predicate or() {
    List<Predicate> terms = new ArrayList<>();
    terms.add(and());
    while (peek().is("OR")) {
      index++;
      terms.add(and());
    }
    return terms.size() == 1 ? terms.get(0) : new Or(terms);
  }

  private Predicate and() {
    List<Predicate> terms = new ArrayList<>();
    terms.add(not());
    while (peek().is("AND")) {
      index++;
      terms.add(not());
    }
    return terms.size() == 1 ? terms.get(0) : new And(terms);
  }

  private Predicate not() {
    if (peek().is("NOT")) {
      index++;
      return new Not(not());
    }
    return primary();
  }

  private Predicate primary() {
    if (peek().type() == TokenType.LPAREN) {
      index++;
      Predicate inner = or();
      expect(TokenType.RPAREN, "expected ')'");
      return inner;
    }
    Token start = peek();
    Object operand = operand("expected a predicate");
    Token t = peek();
    if (t.type() == TokenType.LPAREN && operand instanceof Column) {
      throw error("functions are not supported (for " + start.text()
          + "(...) use LIKE, e.g. name LIKE 'prefix%'); expected an operator");
    }
    CompareOp op = compareOp(t.type());
    if (op != null) {
      index++;
      Token rightStart = peek();
      Object right = operand("expected a value");
      return comparison(start, operand, op, rightStart, right);
    }
    if (t.is("IS")) {
      Column column = requireColumn(start, operand, "IS NULL");
      index++;
      boolean negated = accept("NOT");
      if (!accept("NULL")) {
        throw error(negated ? "expected NULL after IS NOT" : "expected NULL or NOT NULL after IS");
      }
      return new IsNull(column, negated);
    }
    boolean negated = false;
    if (t.is("NOT")) {
      Token after = tokens.get(index + 1);
      if (!(after.is("IN") || after.is("BETWEEN") || after.is("LIKE"))) {
        index++;
        throw error("expected IN, BETWEEN or LIKE after NOT");
      }
      index++;
      negated = true;
      t = peek();
    }
    if (t.is("IN")) {
      Column column = requireColumn(start, operand, "IN");
      index++;
      return in(column, negated);
    } else if (t.is("BETWEEN")) {
      Column column = requireColumn(start, operand, "BETWEEN");
      index++;
      Literal low = literal("expected a value");
      if (!accept("AND")) {
        throw error("expected AND between the bounds of BETWEEN");
      }
      Literal high = literal("expected a value");
      return new Between(column, low, high, negated);
    } else if (t.is("LIKE")) {
      Column column = requireColumn(start, operand, "LIKE");
      index++;
      Token pattern = peek();
      if (pattern.type() != TokenType.STRING) {
        throw error("expected a string pattern after LIKE");
      }
      index++;
      return new Like(column, pattern.text(), negated);
    }
    if (operand instanceof Column column) {
      return new BooleanColumn(column);
    } else if (operand instanceof BooleanLiteral b) {
      return Constant.of(b.value());
    }
    throw error("expected an operator (=, !=, <, <=, >, >=, IN, BETWEEN, LIKE or IS)");
  }

  private Predicate comparison(Token leftStart, Object left, CompareOp op, Token rightStart,
      Object right) {
    if (left instanceof Column column && right instanceof Literal value) {
      return new Comparison(column, op, value);
    } else if (left instanceof Literal value && right instanceof Column column) {
      return new Comparison(column, op.flip(), value);
    } else if (left instanceof Column) {
      throw new FilterParseException(filter, rightStart.position(),
          "comparing two columns is not supported; expected a value");
    }
    throw new FilterParseException(filter, leftStart.position(),
        "a comparison needs a column on one side; expected a column");
  }

  private Predicate in(Column column, boolean negated) {
    expect(TokenType.LPAREN, "expected '(' after IN");
    List<Literal> values = new ArrayList<>();
    do {
      values.add(literal("expected a value"));
    } while (acceptType(TokenType.COMMA));
    expect(TokenType.RPAREN, "expected ',' or ')' in the IN list");
    return new InList(column, values, negated);
  }

  /** A {@link Column} or a {@link Literal}. */
  private Object operand(String expected) {
    Token t = peek();
    boolean typedLiteral = (t.is("DATE") || t.is("TIMESTAMP") || t.is("DOUBLE"))
        && tokens.get(index + 1).type() == TokenType.STRING;
    boolean name = t.type() == TokenType.QUOTED_NAME
        || (t.type() == TokenType.WORD && !typedLiteral
            && !NOT_A_NAME.contains(t.text().toUpperCase(Locale.ROOT)));
    return name ? column() : literal(expected);
  }

  private Column column() {
    List<String> path = new ArrayList<>();
    path.add(peek().text());
    index++;
    while (peek().type() == TokenType.DOT) {
      index++;
      Token part = peek();
      if (part.type() != TokenType.WORD && part.type() != TokenType.QUOTED_NAME) {
        throw error("expected a field name after '.'");
      }
      path.add(part.text());
      index++;
    }
    for (String part : path) {
      if (part.isEmpty()) {
        throw new FilterParseException(filter, peek().position(), "column names cannot be empty");
      }
    }
    return new Column(path);
  }

  private Literal literal(String expected) {
    Token t = peek();
    switch (t.type()) {
      case NUMBER:
        index++;
        return number(t.text(), false);
      case MINUS:
        index++;
        Token digits = peek();
        if (digits.type() != TokenType.NUMBER) {
          throw error("expected a number after '-'");
        }
        index++;
        return number(digits.text(), true);
      case STRING:
        index++;
        return new StringLiteral(t.text());
      case HEX:
        index++;
        try {
          return new BinaryLiteral(HexFormat.of().parseHex(t.text()));
        } catch (IllegalArgumentException e) {
          throw new FilterParseException(filter, t.position(),
              "expected an even number of hex digits in X'" + t.text() + "'");
        }
      case WORD:
        if (t.is("TRUE") || t.is("FALSE")) {
          index++;
          return BooleanLiteral.of(t.is("TRUE"));
        } else if (t.is("NULL")) {
          index++;
          return NullLiteral.INSTANCE;
        } else if (t.is("DATE") || t.is("TIMESTAMP") || t.is("DOUBLE")) {
          Token text = tokens.get(index + 1);
          if (text.type() == TokenType.STRING) {
            index += 2;
            return typed(t, text);
          }
        }
        break;
      default:
        break;
    }
    throw error(expected);
  }

  private Literal typed(Token type, Token text) {
    String s = text.text().trim();
    try {
      if (type.is("DATE")) {
        return new DateLiteral(LocalDate.parse(s));
      } else if (type.is("TIMESTAMP")) {
        return new TimestampLiteral(LocalDateTime.parse(s, TIMESTAMP));
      }
      return new DoubleLiteral(parseDouble(s));
    } catch (DateTimeParseException | NumberFormatException e) {
      String form = type.is("DATE") ? "'YYYY-MM-DD'"
          : type.is("TIMESTAMP") ? "'YYYY-MM-DD HH:MM:SS[.fraction]' (no time zone)"
          : "a number, 'NaN', 'Infinity' or '-Infinity'";
      throw new FilterParseException(filter, text.position(),
          "expected " + form + " in the " + type.text().toLowerCase(Locale.ROOT) + " literal");
    }
  }

  private static double parseDouble(String s) {
    String lower = s.toLowerCase(Locale.ROOT);
    String unsigned = lower.startsWith("-") || lower.startsWith("+") ? lower.substring(1) : lower;
    boolean negative = lower.startsWith("-");
    if (unsigned.equals("nan")) {
      return Double.NaN;
    } else if (unsigned.equals("inf") || unsigned.equals("infinity")) {
      return negative ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
    } else if (!s.matches("[+-]?(\\d+\\.?\\d*|\\.\\d+)([eE][+-]?\\d+)?")) {
      throw new NumberFormatException(s);
    }
    return Double.parseDouble(s);
  }

  /** Integers that fit a long are {@link LongLiteral}s; anything else is a double (as Lance). */
  private static Literal number(String text, boolean negative) {
    boolean integral = text.chars().allMatch(c -> c >= '0' && c <= '9');
    if (integral) {
      BigInteger value = new BigInteger(text);
      if (negative) {
        value = value.negate();
      }
      if (value.bitLength() < 64) {
        return new LongLiteral(value.longValue());
      }
    }
    double d = Double.parseDouble(text);
    return new DoubleLiteral(negative ? -d : d);
  }

  private static CompareOp compareOp(TokenType type) {
    return switch (type) {
      case EQ -> CompareOp.EQ;
      case NE -> CompareOp.NE;
      case LT -> CompareOp.LT;
      case LE -> CompareOp.LE;
      case GT -> CompareOp.GT;
      case GE -> CompareOp.GE;
      default -> null;
    };
  }

  private Column requireColumn(Token start, Object operand, String construct) {
    if (operand instanceof Column column) {
      return column;
    }
    throw new FilterParseException(filter, start.position(),
        construct + " applies to a column; expected a column");
  }

  private Token peek() {
    return tokens.get(index);
  }

  private boolean accept(String keyword) {
    if (peek().is(keyword)) {
      index++;
      return true;
    }
    return false;
  }

  private boolean acceptType(TokenType type) {
    if (peek().type() == type) {
      index++;
      return true;
    }
    return false;
  }

  private void expect(TokenType type, String expected) {
    if (!acceptType(type)) {
      throw error(expected);
    }
  }

  private FilterParseException error(String expected) {
    Token t = peek();
    String found = t.type() == TokenType.END ? "" : " but found " + t.describe();
    // The position comes last in the message, so "found" goes into the problem text.
    return new FilterParseException(filter, t.position(), expected + found);
  }
}
