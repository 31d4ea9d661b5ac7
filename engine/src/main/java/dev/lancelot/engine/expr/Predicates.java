package dev.lancelot.engine.expr;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;

/**
 * Programmatic construction of predicates, e.g. for translating Spark filters:
 *
 * <pre>{@code
 * Predicate p = and(eq("tenant_id", 42), startsWith("name", "ab"), isNotNull("score"));
 * }</pre>
 *
 * A {@code String} column argument is one top-level column name taken verbatim (a dot in it is part
 * of the name); use {@link Column#of(String...)} for nested fields. Values are converted with
 * {@link Literal#of(Object)}.
 */
public final class Predicates {
  private Predicates() {}

  public static Predicate eq(String column, Object value) {
    return compare(Column.named(column), CompareOp.EQ, value);
  }

  public static Predicate eq(Column column, Object value) {
    return compare(column, CompareOp.EQ, value);
  }

  public static Predicate ne(String column, Object value) {
    return compare(Column.named(column), CompareOp.NE, value);
  }

  public static Predicate ne(Column column, Object value) {
    return compare(column, CompareOp.NE, value);
  }

  public static Predicate lt(String column, Object value) {
    return compare(Column.named(column), CompareOp.LT, value);
  }

  public static Predicate lt(Column column, Object value) {
    return compare(column, CompareOp.LT, value);
  }

  public static Predicate le(String column, Object value) {
    return compare(Column.named(column), CompareOp.LE, value);
  }

  public static Predicate le(Column column, Object value) {
    return compare(column, CompareOp.LE, value);
  }

  public static Predicate gt(String column, Object value) {
    return compare(Column.named(column), CompareOp.GT, value);
  }

  public static Predicate gt(Column column, Object value) {
    return compare(column, CompareOp.GT, value);
  }

  public static Predicate ge(String column, Object value) {
    return compare(Column.named(column), CompareOp.GE, value);
  }

  public static Predicate ge(Column column, Object value) {
    return compare(column, CompareOp.GE, value);
  }

  public static Predicate compare(Column column, CompareOp op, Object value) {
    return new Comparison(column, op, Literal.of(value));
  }

  /**
   * Null-safe equality ({@code <=>} in Spark): with a NULL value it is {@code IS NULL}, else {@code
   * column IS NOT NULL AND column = value}; never unknown.
   */
  public static Predicate nullSafeEq(Column column, Object value) {
    Literal literal = Literal.of(value);
    if (literal instanceof NullLiteral) {
      return new IsNull(column, false);
    }
    return and(new IsNull(column, true), new Comparison(column, CompareOp.EQ, literal));
  }

  /**
   * {@code column IN (values)}. An empty list gives {@code false}: no row is in an empty set (as
   * Spark defines it; filter SQL has no empty list).
   */
  public static Predicate in(String column, Collection<?> values) {
    return in(Column.named(column), values);
  }

  public static Predicate in(Column column, Collection<?> values) {
    return values.isEmpty() ? Constant.FALSE : new InList(column, literals(values), false);
  }

  /** {@code column NOT IN (values)}; an empty list gives {@code true}. */
  public static Predicate notIn(String column, Collection<?> values) {
    return notIn(Column.named(column), values);
  }

  public static Predicate notIn(Column column, Collection<?> values) {
    return values.isEmpty() ? Constant.TRUE : new InList(column, literals(values), true);
  }

  public static Predicate between(String column, Object low, Object high) {
    return new Between(Column.named(column), Literal.of(low), Literal.of(high), false);
  }

  public static Predicate between(Column column, Object low, Object high) {
    return new Between(column, Literal.of(low), Literal.of(high), false);
  }

  public static Predicate isNull(String column) {
    return new IsNull(Column.named(column), false);
  }

  public static Predicate isNull(Column column) {
    return new IsNull(column, false);
  }

  public static Predicate isNotNull(String column) {
    return new IsNull(Column.named(column), true);
  }

  public static Predicate isNotNull(Column column) {
    return new IsNull(column, true);
  }

  public static Predicate like(String column, String pattern) {
    return new Like(Column.named(column), pattern, false);
  }

  public static Predicate like(Column column, String pattern) {
    return new Like(column, pattern, false);
  }

  public static Predicate notLike(Column column, String pattern) {
    return new Like(column, pattern, true);
  }

  /** Strings starting with {@code prefix} (Spark's {@code StringStartsWith}). */
  public static Predicate startsWith(String column, String prefix) {
    return startsWith(Column.named(column), prefix);
  }

  public static Predicate startsWith(Column column, String prefix) {
    return new Like(column, escapeLike(prefix) + "%", false);
  }

  /** Strings ending with {@code suffix} (Spark's {@code StringEndsWith}). */
  public static Predicate endsWith(Column column, String suffix) {
    return new Like(column, "%" + escapeLike(suffix), false);
  }

  /** Strings containing {@code infix} (Spark's {@code StringContains}). */
  public static Predicate contains(Column column, String infix) {
    return new Like(column, "%" + escapeLike(infix) + "%", false);
  }

  /** {@code text} as a LIKE pattern matching exactly itself: {@code % _ \} get a backslash. */
  public static String escapeLike(String text) {
    StringBuilder sb = new StringBuilder(text.length() + 4);
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '%' || c == '_' || c == '\\') {
        sb.append('\\');
      }
      sb.append(c);
    }
    return sb.toString();
  }

  /** A boolean column as a predicate. */
  public static Predicate isTrue(String column) {
    return new BooleanColumn(Column.named(column));
  }

  public static Predicate isTrue(Column column) {
    return new BooleanColumn(column);
  }

  // ---- predicates over arbitrary values; each returns the canonical record for its shape ----

  /**
   * {@code left op right} over any values: a {@link Comparison} when one side is a column and the
   * other a literal (the form scalar indexes answer), else a {@link ValueComparison}.
   */
  public static Predicate compareValues(Expr left, CompareOp op, Expr right) {
    if (left instanceof Column c && right instanceof Literal l) {
      return new Comparison(c, op, l);
    } else if (left instanceof Literal l && right instanceof Column c) {
      return new Comparison(c, op.flip(), l);
    }
    return new ValueComparison(left, op, right);
  }

  /** {@code value [NOT] IN (items)}: an {@link InList} for a column and literals. */
  public static Predicate inValues(Expr value, List<? extends Expr> items, boolean negated) {
    if (value instanceof Column c && items.stream().allMatch(i -> i instanceof Literal)) {
      return new InList(c, items.stream().map(i -> (Literal) i).toList(), negated);
    }
    return new ValueInList(value, new ArrayList<>(items), negated);
  }

  /** {@code value [NOT] BETWEEN low AND high}: a {@link Between} for a column and literals. */
  public static Predicate betweenValues(Expr value, Expr low, Expr high, boolean negated) {
    if (value instanceof Column c && low instanceof Literal l && high instanceof Literal h) {
      return new Between(c, l, h, negated);
    }
    return new ValueBetween(value, low, high, negated);
  }

  /** {@code value IS [NOT] NULL}: an {@link IsNull} for a column. */
  public static Predicate isNullValue(Expr value, boolean negated) {
    return value instanceof Column c ? new IsNull(c, negated) : new ValueIsNull(value, negated);
  }

  /** {@code value [NOT] LIKE|ILIKE pattern}: a {@link Like} for a column and LIKE. */
  public static Predicate likeValue(
      Expr value, String pattern, boolean negated, boolean ignoreCase) {
    if (value instanceof Column c && !ignoreCase) {
      return new Like(c, pattern, negated);
    }
    return new ValueLike(value, pattern, negated, ignoreCase);
  }

  /**
   * A bool value as a condition: a {@link BooleanColumn} for a column, a {@link Constant} for
   * {@code true}/{@code false}, else a {@link BooleanValue}.
   *
   * @throws IllegalArgumentException for a literal other than true or false
   */
  public static Predicate condition(Expr value) {
    if (value instanceof Column c) {
      return new BooleanColumn(c);
    } else if (value instanceof BooleanLiteral b) {
      return Constant.of(b.value());
    } else if (value instanceof Literal l) {
      throw new IllegalArgumentException("the literal " + l.toSql() + " is not a condition");
    }
    return new BooleanValue(value);
  }

  public static Predicate not(Predicate p) {
    return new Not(p);
  }

  /** Conjunction; {@code and()} is {@code true} and {@code and(p)} is {@code p}. */
  public static Predicate and(Predicate... terms) {
    return and(Arrays.asList(terms));
  }

  public static Predicate and(List<? extends Predicate> terms) {
    return switch (terms.size()) {
      case 0 -> Constant.TRUE;
      case 1 -> terms.get(0);
      default -> new And(new ArrayList<>(terms));
    };
  }

  /** Disjunction; {@code or()} is {@code false} and {@code or(p)} is {@code p}. */
  public static Predicate or(Predicate... terms) {
    return or(Arrays.asList(terms));
  }

  public static Predicate or(List<? extends Predicate> terms) {
    return switch (terms.size()) {
      case 0 -> Constant.FALSE;
      case 1 -> terms.get(0);
      default -> new Or(new ArrayList<>(terms));
    };
  }

  /**
   * The parts of a conjunction: the terms of an {@link And}, else the predicate alone. Each part
   * can be pushed down, bound or evaluated on its own; their conjunction is {@code p} again.
   */
  public static List<Predicate> conjuncts(Predicate p) {
    return p instanceof And and ? and.terms() : List.of(p);
  }

  private static List<Literal> literals(Collection<?> values) {
    List<Literal> out = new ArrayList<>(values.size());
    for (Object v : values) {
      out.add(Literal.of(v));
    }
    return out;
  }
}
