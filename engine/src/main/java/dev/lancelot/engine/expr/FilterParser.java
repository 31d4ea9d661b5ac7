package dev.lancelot.engine.expr;

import dev.lancelot.engine.internal.expr.parse.Lexer;
import dev.lancelot.engine.internal.expr.parse.Token;
import dev.lancelot.engine.internal.expr.parse.TokenType;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Parses filter SQL (the dialect of Lance's {@code filter} strings; see {@code docs/filters.md})
 * into a {@link Predicate}. Hand-written recursive descent:
 *
 * <pre>
 * filter     := or END
 * or         := and (OR and)*
 * and        := not (AND not)*
 * not        := NOT not | predicate
 * predicate  := value [tail] (IS [NOT] (NULL | TRUE | FALSE))*
 * tail       := cmpop value
 *             | [NOT] IN '(' value (',' value)* ')'
 *             | [NOT] BETWEEN value AND value
 *             | [NOT] (LIKE | ILIKE) string
 * value      := term (('+' | '-') term)*
 * term       := unary (('*' | '/' | '%') unary)*
 * unary      := '-' unary | primary                 ('-' number is a literal)
 * primary    := '(' or ')' | CAST '(' value AS type ')' | function '(' args ')'
 *             | (ARRAY_HAS_ANY | ARRAY_HAS_ALL) '(' column ',' '[' literal (',' literal)* ']' ')'
 *             | (ARRAY_CONTAINS | ARRAY_HAS) '(' column ',' literal ')'
 *             | column | literal
 * column     := name ('.' name)*            name := word | `quoted`
 * literal    := ['-'] number | string | TRUE | FALSE | NULL | X'hex'
 *             | DATE string | TIMESTAMP string | DOUBLE string
 * cmpop      := = | == | != | &lt;&gt; | &lt; | &lt;= | &gt; | &gt;=
 * </pre>
 *
 * Keywords are case-insensitive. Each level returns a predicate or, when the text so far is a
 * value, the {@link Expr}; a value becomes a condition only where one is needed (a bool value). The
 * records built are canonical (see {@link Predicates#compareValues}). Instances are not needed: the
 * class is stateless and thread-safe.
 */
public final class FilterParser {
  private static final AtomicLong PARSES = new AtomicLong();

  /** Words that cannot be bare column names (backquote such a column: {@code `in`}). */
  private static final Set<String> NOT_A_NAME =
      Set.of("AND", "OR", "NOT", "IN", "IS", "LIKE", "ILIKE", "BETWEEN", "NULL", "TRUE", "FALSE");

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
    PARSES.incrementAndGet();
    FilterParser parser = new FilterParser(filter);
    Object p = parser.or();
    if (parser.peek().type() != TokenType.END) {
      throw parser.error("expected AND, OR or the end of the filter");
    }
    return parser.condition(p);
  }

  /**
   * How many filters this JVM has parsed. A filter is parsed once, where the user gives it (a scan,
   * a vector query, a DELETE, the Spark driver); plans, executors and Spark tasks receive it bound.
   * Tests use this count to check that nothing parses again.
   */
  public static long parseCount() {
    return PARSES.get();
  }

  // Each level returns a Predicate, or an Expr when the text so far is a value (which becomes a
  // condition only where one is needed: `(a + 1) * 2` and `(a = 1) AND b` both parse).

  private Object or() {
    Object first = and();
    if (!peek().is("OR")) {
      return first;
    }
    List<Predicate> terms = new ArrayList<>();
    terms.add(condition(first));
    while (accept("OR")) {
      terms.add(condition(and()));
    }
    return new Or(terms);
  }

  private Object and() {
    Object first = not();
    if (!peek().is("AND")) {
      return first;
    }
    List<Predicate> terms = new ArrayList<>();
    terms.add(condition(first));
    while (accept("AND")) {
      terms.add(condition(not()));
    }
    return new And(terms);
  }

  private Object not() {
    if (accept("NOT")) {
      return new Not(condition(not()));
    }
    return predicate();
  }

  /** A value, a predicate on it (comparison, IS, IN, BETWEEN, LIKE), or a parenthesized one. */
  private Object predicate() {
    Token start = peek();
    if (start.type() == TokenType.END
        || start.type() == TokenType.RPAREN
        || start.is("AND")
        || start.is("OR")) {
      throw error("expected a predicate");
    }
    Object operand = value();
    Token t = peek();
    CompareOp op = compareOp(t.type());
    if (op != null) {
      Expr left = requireValue(start, operand, "compared");
      index++;
      Token rightStart = peek();
      Expr right = requireValue(rightStart, value(), "compared");
      return Predicates.compareValues(left, op, right);
    }
    if (t.is("IS")) {
      Object result = operand;
      while (peek().is("IS")) {
        result = isTest(start, result);
      }
      return result;
    }
    boolean negated = false;
    if (t.is("NOT")) {
      Token after = tokens.get(index + 1);
      if (!(after.is("IN") || after.is("BETWEEN") || after.is("LIKE") || after.is("ILIKE"))) {
        index++;
        throw error("expected IN, BETWEEN, LIKE or ILIKE after NOT");
      }
      index++;
      negated = true;
      t = peek();
    }
    if (t.is("IN")) {
      Expr value = requireValue(start, operand, "tested with IN");
      index++;
      return in(value, negated);
    } else if (t.is("BETWEEN")) {
      Expr value = requireValue(start, operand, "tested with BETWEEN");
      index++;
      Expr low = requireValue(peek(), value(), "a bound of BETWEEN");
      if (!accept("AND")) {
        throw error("expected AND between the bounds of BETWEEN");
      }
      Expr high = requireValue(peek(), value(), "a bound of BETWEEN");
      return Predicates.betweenValues(value, low, high, negated);
    } else if (t.is("LIKE") || t.is("ILIKE")) {
      Expr value =
          requireValue(start, operand, "matched with " + t.text().toUpperCase(Locale.ROOT));
      boolean ignoreCase = t.is("ILIKE");
      index++;
      Token pattern = peek();
      if (pattern.type() != TokenType.STRING) {
        throw error("expected a string pattern after " + (ignoreCase ? "ILIKE" : "LIKE"));
      }
      index++;
      if (peek().is("ESCAPE")) {
        throw error(
            "LIKE ... ESCAPE is not supported (a backslash escapes, as in Lance);"
                + " expected AND, OR or the end of the filter");
      }
      return Predicates.likeValue(value, pattern.text(), negated, ignoreCase);
    }
    return operand;
  }

  /** {@code IS [NOT] NULL|TRUE|FALSE} after {@code operand}. */
  private Predicate isTest(Token start, Object operand) {
    index++;
    boolean negated = accept("NOT");
    if (accept("NULL")) {
      return operand instanceof Predicate p
          ? new TruthTest(p, TruthTest.Truth.NULL, negated)
          : Predicates.isNullValue((Expr) operand, negated);
    }
    boolean isTrue = peek().is("TRUE");
    if (isTrue || peek().is("FALSE")) {
      index++;
      return new TruthTest(
          condition(start, operand),
          isTrue ? TruthTest.Truth.TRUE : TruthTest.Truth.FALSE,
          negated);
    }
    throw error(
        negated
            ? "expected NULL, TRUE or FALSE after IS NOT"
            : "expected NULL, NOT NULL, TRUE or FALSE after IS");
  }

  private Predicate in(Expr value, boolean negated) {
    expect(TokenType.LPAREN, "expected '(' after IN");
    List<Expr> items = new ArrayList<>();
    do {
      Token itemStart = peek();
      if (itemStart.type() == TokenType.RPAREN || itemStart.type() == TokenType.END) {
        throw error("expected a value");
      }
      items.add(requireValue(itemStart, value(), "an item of IN"));
    } while (acceptType(TokenType.COMMA));
    expect(TokenType.RPAREN, "expected ',' or ')' in the IN list");
    return Predicates.inValues(value, items, negated);
  }

  // ---- values: additive > multiplicative > unary minus > primary ----

  private Object value() {
    Token start = peek();
    Object left = multiplicative();
    while (peek().type() == TokenType.PLUS || peek().type() == TokenType.MINUS) {
      ArithmeticOp op = peek().type() == TokenType.PLUS ? ArithmeticOp.ADD : ArithmeticOp.SUBTRACT;
      Expr l = requireValue(start, left, "used in arithmetic");
      index++;
      Token rightStart = peek();
      left =
          new Arithmetic(l, op, requireValue(rightStart, multiplicative(), "used in arithmetic"));
    }
    return left;
  }

  private Object multiplicative() {
    Token start = peek();
    Object left = unary();
    while (true) {
      ArithmeticOp op =
          switch (peek().type()) {
            case STAR -> ArithmeticOp.MULTIPLY;
            case SLASH -> ArithmeticOp.DIVIDE;
            case PERCENT -> ArithmeticOp.MODULO;
            default -> null;
          };
      if (op == null) {
        return left;
      }
      Expr l = requireValue(start, left, "used in arithmetic");
      index++;
      Token rightStart = peek();
      left = new Arithmetic(l, op, requireValue(rightStart, unary(), "used in arithmetic"));
    }
  }

  private Object unary() {
    Token t = peek();
    if (t.type() == TokenType.MINUS) {
      if (tokens.get(index + 1).type() == TokenType.NUMBER) {
        return literal("expected a value"); // -5 is a literal, as in Lance
      }
      index++;
      Token operand = peek();
      if (operand.type() == TokenType.END || operand.type() == TokenType.RPAREN) {
        throw error("expected a number after '-'");
      }
      return new Negate(requireValue(operand, unary(), "negated"));
    } else if (t.type() == TokenType.PLUS) {
      throw error("unary '+' is not supported (Lance refuses it too); expected a value");
    }
    return primary();
  }

  private Object primary() {
    Token t = peek();
    if (t.type() == TokenType.LPAREN) {
      index++;
      Object inner = or();
      expect(TokenType.RPAREN, "expected ')'");
      return inner;
    }
    boolean call = t.type() == TokenType.WORD && tokens.get(index + 1).type() == TokenType.LPAREN;
    if (call && ArrayContains.Mode.named(t.text()) != null) {
      return arrayContains(t, ArrayContains.Mode.named(t.text()));
    } else if (call) {
      return call(t);
    }
    boolean typedLiteral =
        (t.is("DATE") || t.is("TIMESTAMP") || t.is("DOUBLE"))
            && tokens.get(index + 1).type() == TokenType.STRING;
    boolean name =
        t.type() == TokenType.QUOTED_NAME
            || (t.type() == TokenType.WORD
                && !typedLiteral
                && !NOT_A_NAME.contains(t.text().toUpperCase(Locale.ROOT)));
    return name ? column() : literal(index == 0 ? "expected a predicate" : "expected a value");
  }

  /** {@code CAST(value AS type)} or {@code function(args)}; {@code name} is before the '('. */
  private Expr call(Token name) {
    if (name.is("CAST")) {
      index += 2;
      Expr value = requireValue(peek(), value(), "cast");
      if (!accept("AS")) {
        throw error("expected AS and a type in CAST");
      }
      Expr cast = new Cast(value, castType());
      expect(TokenType.RPAREN, "expected ')' after the type in CAST");
      return cast;
    }
    FilterFunction function = FilterFunction.named(name.text());
    if (function == null) {
      throw new FilterParseException(
          filter,
          name.position(),
          "the function "
              + name.text()
              + " is not supported; expected one of "
              + functionNames()
              + ", CAST, or LIKE for patterns");
    }
    index += 2;
    List<Expr> args = new ArrayList<>();
    if (peek().type() != TokenType.RPAREN) {
      do {
        args.add(requireValue(peek(), value(), "a function argument"));
      } while (acceptType(TokenType.COMMA));
    }
    expect(TokenType.RPAREN, "expected ',' or ')' after an argument of " + function.sql());
    if (args.size() != function.arity()) {
      throw new FilterParseException(
          filter,
          name.position(),
          function.sql()
              + " takes "
              + function.arity()
              + (function.arity() == 1 ? " argument" : " arguments")
              + ", not "
              + args.size());
    }
    return new Call(function, args);
  }

  /** {@code array_has_any(column, [v, ...])} and the other list containment tests. */
  private Predicate arrayContains(Token name, ArrayContains.Mode mode) {
    index += 2;
    Token at = peek();
    if (at.type() != TokenType.WORD && at.type() != TokenType.QUOTED_NAME) {
      throw error("expected a list column as the first argument of " + mode.sql());
    }
    Column column = column();
    expect(TokenType.COMMA, "expected ',' after the column of " + mode.sql());
    List<Literal> values = new ArrayList<>();
    if (mode.takesList()) {
      expect(TokenType.LBRACKET, "expected a list of values such as ['a', 'b'] in " + mode.sql());
      if (peek().type() != TokenType.RBRACKET) {
        do {
          values.add(literal("expected a value in the list of " + mode.sql()));
        } while (acceptType(TokenType.COMMA));
      }
      expect(TokenType.RBRACKET, "expected ',' or ']' in the list of " + mode.sql());
    } else {
      values.add(literal("expected a value as the second argument of " + mode.sql()));
    }
    expect(TokenType.RPAREN, "expected ')' after the arguments of " + mode.sql());
    try {
      return new ArrayContains(column, values, mode);
    } catch (IllegalArgumentException e) {
      throw new FilterParseException(filter, name.position(), e.getMessage());
    }
  }

  private CastType castType() {
    Token t = peek();
    if (t.type() != TokenType.WORD) {
      throw error("expected a type after AS");
    }
    index++;
    boolean unsigned = accept("UNSIGNED");
    CastType type = CastType.of(t.text(), unsigned);
    if (type == null) {
      StringBuilder supported = new StringBuilder();
      for (CastType c : CastType.values()) {
        supported.append(supported.length() == 0 ? "" : ", ").append(c.sql());
      }
      throw new FilterParseException(
          filter,
          t.position(),
          "CAST to "
              + t.text()
              + (unsigned ? " UNSIGNED" : "")
              + " is not supported; expected one of "
              + supported);
    }
    return type;
  }

  private static String functionNames() {
    StringBuilder sb = new StringBuilder();
    for (FilterFunction f : FilterFunction.values()) {
      sb.append(f.sql()).append(", ");
    }
    return sb.substring(0, sb.length() - 2);
  }

  /** The operand as a value; a condition (e.g. {@code (a = 1)}) where a value is needed fails. */
  private Expr requireValue(Token start, Object operand, String role) {
    if (operand instanceof Expr e) {
      return e;
    }
    throw new FilterParseException(
        filter, start.position(), "a condition cannot be " + role + " here; expected a value");
  }

  /** The parsed text as a condition: a bool column, true/false, or a bool-valued expression. */
  private Predicate condition(Object parsed) {
    return condition(null, parsed);
  }

  private Predicate condition(Token start, Object parsed) {
    if (parsed instanceof Predicate p) {
      return p;
    }
    Expr e = (Expr) parsed;
    if (e instanceof Literal && !(e instanceof BooleanLiteral)) {
      if (start != null) {
        throw new FilterParseException(
            filter,
            start.position(),
            "the literal " + e.toSql() + " is not a condition; expected a predicate");
      }
      throw error("expected an operator (=, !=, <, <=, >, >=, IN, BETWEEN, LIKE or IS)");
    }
    return Predicates.condition(e);
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
        return LiteralText.number(t.text(), false);
      case MINUS:
        index++;
        Token digits = peek();
        if (digits.type() != TokenType.NUMBER) {
          throw error("expected a number after '-'");
        }
        index++;
        return LiteralText.number(digits.text(), true);
      case STRING:
        index++;
        return new StringLiteral(t.text());
      case HEX:
        index++;
        try {
          return new BinaryLiteral(HexFormat.of().parseHex(t.text()));
        } catch (IllegalArgumentException e) {
          throw new FilterParseException(
              filter, t.position(), "expected an even number of hex digits in X'" + t.text() + "'");
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
            return LiteralText.typed(filter, t, text);
          }
        }
        break;
      default:
        break;
    }
    throw error(expected);
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
