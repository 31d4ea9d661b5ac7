package dev.lancelot.spark.read;

import dev.lancelot.engine.expr.Arithmetic;
import dev.lancelot.engine.expr.ArithmeticOp;
import dev.lancelot.engine.expr.BoundPredicate;
import dev.lancelot.engine.expr.Cast;
import dev.lancelot.engine.expr.CastType;
import dev.lancelot.engine.expr.Column;
import dev.lancelot.engine.expr.CompareOp;
import dev.lancelot.engine.expr.DoubleLiteral;
import dev.lancelot.engine.expr.Expr;
import dev.lancelot.engine.expr.Literal;
import dev.lancelot.engine.expr.Negate;
import dev.lancelot.engine.expr.Predicate;
import dev.lancelot.engine.expr.Predicates;
import dev.lancelot.engine.expr.TimestampLiteral;
import dev.lancelot.spark.SparkTypes;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.connector.expressions.Expression;
import org.apache.spark.sql.connector.expressions.GeneralScalarExpression;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Translates Spark's V2 predicates ({@code org.apache.spark.sql.connector.expressions.filter}) into
 * engine predicates, keeping Spark's meaning in three-valued logic (so a translated predicate may
 * sit under {@code NOT}).
 *
 * <p>Where the engine's rules differ from Spark's the translation rewrites the predicate: Spark
 * orders floats with every NaN above +Infinity and {@code -0.0 = 0.0}, the engine uses IEEE total
 * order (a NaN with its sign bit set sorts below -Infinity, {@code -0.0 < 0.0}); so {@code x > 1}
 * becomes {@code x > 1 OR x < DOUBLE '-Infinity'} and {@code x = 0} becomes {@code x = 0.0 OR x =
 * -0.0}. A conjunction of which only some parts translate is pushed as those parts and marked
 * inexact: the engine then returns a superset and Spark filters again.
 *
 * <p>Not translated (Spark evaluates them): nested fields, columns the engine cannot filter
 * (vectors, lists, structs, decimals), comparisons of two float values, float16 columns (the engine
 * rounds literals to float16), arithmetic on anything but integers, casts other than integer
 * widening and integer or float to double, functions, and any predicate whose engine form {@link
 * BoundPredicate#canEvaluate} refuses.
 */
public final class SparkPredicates {
  /**
   * An engine predicate for a Spark predicate: {@code exact} when it selects the same rows,
   * otherwise a superset of them that Spark must filter again.
   */
  public record Translation(Predicate predicate, boolean exact) {}

  private static final DoubleLiteral NEG_INFINITY = new DoubleLiteral(Double.NEGATIVE_INFINITY);
  private static final DoubleLiteral POS_INFINITY = new DoubleLiteral(Double.POSITIVE_INFINITY);

  private final Map<String, Field> filterable;
  private final StructType sparkSchema;
  private final boolean arithmetic;

  private SparkPredicates(Schema arrowSchema, boolean arithmetic) {
    this.filterable = SparkFilters.filterableColumns(arrowSchema);
    this.sparkSchema = SparkTypes.toSpark(arrowSchema);
    this.arithmetic = arithmetic;
  }

  /** The engine form of {@code predicate} over a table with this Arrow schema, if it has one. */
  public static Optional<Translation> translate(
      org.apache.spark.sql.connector.expressions.filter.Predicate predicate, Schema arrowSchema) {
    return translate(predicate, arrowSchema, true);
  }

  /**
   * As {@link #translate(org.apache.spark.sql.connector.expressions.filter.Predicate, Schema)};
   * without {@code arithmetic} a predicate computing with {@code + - * %} or unary minus has no
   * engine form (DELETE: there an integer overflow, which Spark's ANSI mode refuses and the engine
   * wraps, must not decide which rows go).
   */
  public static Optional<Translation> translate(
      org.apache.spark.sql.connector.expressions.filter.Predicate predicate,
      Schema arrowSchema,
      boolean arithmetic) {
    Translation t;
    try {
      t = new SparkPredicates(arrowSchema, arithmetic).predicate(predicate);
    } catch (RuntimeException e) {
      return Optional.empty(); // a literal or shape the engine has no form for: Spark evaluates it
    }
    if (t == null || !BoundPredicate.canEvaluate(t.predicate(), arrowSchema)) {
      return Optional.empty();
    }
    return Optional.of(t);
  }

  /**
   * A value: its engine expression and Spark type; {@code literal} holds a literal's Spark value.
   */
  private record Value(Expr expr, DataType type, boolean isLiteral, Object literal) {
    boolean isColumn() {
      return expr instanceof Column;
    }
  }

  private Translation predicate(Expression e) {
    if (!(e instanceof org.apache.spark.sql.connector.expressions.filter.Predicate p)) {
      return null;
    }
    Expression[] c = p.children();
    switch (p.name()) {
      case "ALWAYS_TRUE":
        return exact(Predicates.and(List.of()));
      case "ALWAYS_FALSE":
        return exact(Predicates.or(List.of()));
      case "AND":
        {
          Translation l = predicate(c[0]);
          Translation r = predicate(c[1]);
          if (l == null || r == null) {
            // The translated part selects a superset; Spark keeps the whole predicate.
            Translation one = l == null ? r : l;
            return one == null ? null : new Translation(one.predicate(), false);
          }
          return new Translation(
              Predicates.and(l.predicate(), r.predicate()), l.exact() && r.exact());
        }
      case "OR":
        {
          Translation l = predicate(c[0]);
          Translation r = predicate(c[1]);
          return l == null || r == null
              ? null
              : new Translation(
                  Predicates.or(l.predicate(), r.predicate()), l.exact() && r.exact());
        }
      case "NOT":
        {
          Translation child = predicate(c[0]);
          // The negation of a superset is not a superset.
          return child == null || !child.exact() ? null : exact(Predicates.not(child.predicate()));
        }
      case "IS_NULL":
      case "IS_NOT_NULL":
        {
          Value v = value(c[0]);
          return v == null || v.isLiteral()
              ? null
              : exact(Predicates.isNullValue(v.expr(), p.name().equals("IS_NOT_NULL")));
        }
      case "=":
        return comparison(CompareOp.EQ, c[0], c[1]);
      case "<>":
        return comparison(CompareOp.NE, c[0], c[1]);
      case "<":
        return comparison(CompareOp.LT, c[0], c[1]);
      case "<=":
        return comparison(CompareOp.LE, c[0], c[1]);
      case ">":
        return comparison(CompareOp.GT, c[0], c[1]);
      case ">=":
        return comparison(CompareOp.GE, c[0], c[1]);
      case "<=>":
        return nullSafeEquals(c[0], c[1]);
      case "IN":
        return in(c);
      case "STARTS_WITH":
      case "ENDS_WITH":
      case "CONTAINS":
        return stringMatch(p.name(), c[0], c[1]);
      default:
        return null;
    }
  }

  private static Translation exact(Predicate p) {
    return new Translation(p, true);
  }

  private Translation comparison(CompareOp op, Expression left, Expression right) {
    Value a = value(left);
    Value b = value(right);
    if (a == null || b == null || (a.isLiteral() && b.isLiteral())) {
      return null;
    }
    if (a.isLiteral()) { // keep the value on the left
      Value t = a;
      a = b;
      b = t;
      op = op.flip();
    }
    if (isFloat(a.type()) || isFloat(b.type())) {
      return b.isLiteral() && !isHalfFloatColumn(a)
          ? exact(floatComparison(a.expr(), op, floatValue(b)))
          : null;
    }
    return exact(Predicates.compareValues(a.expr(), op, operand(b, a)));
  }

  /**
   * {@code x op c} for a float value {@code x} with Spark's float order: every NaN is equal to
   * every other and greater than +Infinity, {@code -0.0 = 0.0}. The engine's total order puts a
   * sign-bit NaN below -Infinity ({@code x < -Infinity} selects exactly those) and a positive NaN
   * above +Infinity. Each form is unknown exactly where Spark's is (a NULL {@code x}).
   */
  private static Predicate floatComparison(Expr x, CompareOp op, double c) {
    Predicate negativeNaN = Predicates.compareValues(x, CompareOp.LT, NEG_INFINITY);
    Predicate notNaN =
        Predicates.and(
            Predicates.compareValues(x, CompareOp.GE, NEG_INFINITY),
            Predicates.compareValues(x, CompareOp.LE, POS_INFINITY));
    if (Double.isNaN(c)) {
      Predicate isNaN =
          Predicates.or(Predicates.compareValues(x, CompareOp.GT, POS_INFINITY), negativeNaN);
      return switch (op) {
        case EQ, GE -> isNaN;
        case NE, LT -> notNaN;
        case LE -> Predicates.or(notNaN, isNaN); // every non-NULL value
        case GT ->
            Predicates.and(
                negativeNaN, Predicates.compareValues(x, CompareOp.GT, NEG_INFINITY)); // none
      };
    }
    boolean zero = c == 0.0;
    DoubleLiteral low =
        new DoubleLiteral(zero ? -0.0 : c); // the smallest engine value Spark calls equal to c
    DoubleLiteral high = new DoubleLiteral(zero ? 0.0 : c); // the largest
    Predicate equal =
        zero
            ? Predicates.or(
                Predicates.compareValues(x, CompareOp.EQ, low),
                Predicates.compareValues(x, CompareOp.EQ, high))
            : Predicates.compareValues(x, CompareOp.EQ, high);
    return switch (op) {
      case EQ -> equal;
      case NE -> Predicates.not(equal);
      case LT ->
          Predicates.and(
              Predicates.compareValues(x, CompareOp.LT, low),
              Predicates.compareValues(x, CompareOp.GE, NEG_INFINITY));
      case LE ->
          Predicates.and(
              Predicates.compareValues(x, CompareOp.LE, high),
              Predicates.compareValues(x, CompareOp.GE, NEG_INFINITY));
      case GT -> Predicates.or(Predicates.compareValues(x, CompareOp.GT, high), negativeNaN);
      case GE -> Predicates.or(Predicates.compareValues(x, CompareOp.GE, low), negativeNaN);
    };
  }

  /** {@code a <=> b}: true when both are NULL or both equal, never unknown. */
  private Translation nullSafeEquals(Expression left, Expression right) {
    Value a = value(left);
    Value b = value(right);
    if (a == null || b == null || (a.isLiteral() && b.isLiteral())) {
      return null;
    }
    if (a.isLiteral()) {
      Value t = a;
      a = b;
      b = t;
    }
    if (!b.isLiteral()) {
      return null; // value <=> value: no engine form that stays exact
    }
    Predicate isNull = Predicates.isNullValue(a.expr(), false);
    if (b.literal() == null) {
      return exact(isNull);
    }
    Predicate equal;
    if (isFloat(a.type()) || isFloat(b.type())) {
      if (isHalfFloatColumn(a)) {
        return null;
      }
      equal = floatComparison(a.expr(), CompareOp.EQ, floatValue(b));
    } else {
      equal = Predicates.compareValues(a.expr(), CompareOp.EQ, operand(b, a));
    }
    // NOT NULL AND equal: false (not unknown) for a NULL value, as <=> is.
    return exact(Predicates.and(Predicates.isNullValue(a.expr(), true), equal));
  }

  private Translation in(Expression[] c) {
    Value v = value(c[0]);
    if (v == null || v.isLiteral() || c.length < 2) {
      return null; // an empty IN list keeps Spark's own NULL handling
    }
    List<Value> items = new ArrayList<>();
    for (int i = 1; i < c.length; i++) {
      Value item = value(c[i]);
      if (item == null || !item.isLiteral()) {
        return null;
      }
      items.add(item);
    }
    if (isFloat(v.type())) {
      if (isHalfFloatColumn(v)) {
        return null;
      }
      // x IN (a, b) is x = a OR x = b, also for NULL items (unknown either way).
      List<Predicate> equals = new ArrayList<>();
      for (Value item : items) {
        equals.add(
            item.literal() == null
                ? Predicates.compareValues(v.expr(), CompareOp.EQ, Literal.of(null))
                : floatComparison(v.expr(), CompareOp.EQ, floatValue(item)));
      }
      return exact(Predicates.or(equals));
    }
    List<Expr> literals = new ArrayList<>();
    for (Value item : items) {
      literals.add(operand(item, v));
    }
    return exact(Predicates.inValues(v.expr(), literals, false));
  }

  private Translation stringMatch(String name, Expression left, Expression right) {
    Value v = value(left);
    Value s = value(right);
    if (v == null
        || s == null
        || !v.isColumn()
        || !s.isLiteral()
        || !(s.literal() instanceof String text)) {
      return null;
    }
    Column col = (Column) v.expr();
    return exact(
        switch (name) {
          case "STARTS_WITH" -> Predicates.startsWith(col, text);
          case "ENDS_WITH" -> Predicates.endsWith(col, text);
          default -> Predicates.contains(col, text);
        });
  }

  // ---------------------------------------------------------------- values

  private Value value(Expression e) {
    if (e instanceof NamedReference ref) {
      String[] names = ref.fieldNames();
      if (names.length != 1 || !filterable.containsKey(names[0])) {
        return null; // nested fields and columns the engine cannot filter stay with Spark
      }
      return new Value(Column.named(names[0]), sparkSchema.apply(names[0]).dataType(), false, null);
    } else if (e instanceof org.apache.spark.sql.connector.expressions.Literal<?> l) {
      return new Value(null, l.dataType(), true, javaValue(l.value(), l.dataType()));
    } else if (e instanceof org.apache.spark.sql.connector.expressions.Cast cast) {
      return cast(cast);
    } else if (e instanceof GeneralScalarExpression g
        && !(e instanceof org.apache.spark.sql.connector.expressions.filter.Predicate)) {
      return arithmetic(g);
    }
    return null;
  }

  /**
   * Integer widening ({@code CAST(int_col AS BIGINT)}) and integer or float to double, which Spark
   * adds when a comparison's sides differ in type; both are exact and never fail.
   */
  private Value cast(org.apache.spark.sql.connector.expressions.Cast cast) {
    Value v = value(cast.expression());
    DataType to = cast.dataType();
    if (v == null || v.isLiteral()) {
      return null;
    }
    int from = integerWidth(v.type());
    if (from > 0 && integerWidth(to) >= from) {
      return new Value(new Cast(v.expr(), integerCast(to)), to, false, null);
    } else if (to instanceof DoubleType
        && (from > 0 || v.type() instanceof FloatType)
        && !isHalfFloatColumn(v)) {
      return new Value(new Cast(v.expr(), CastType.DOUBLE), to, false, null);
    }
    return null;
  }

  /**
   * {@code + - * %} and unary minus on integers of one type (Spark coerces both sides first). Only
   * ANSI mode gives these to a source; where Spark would fail on an overflow the engine wraps.
   */
  private Value arithmetic(GeneralScalarExpression g) {
    if (!arithmetic) {
      return null;
    }
    Expression[] c = g.children();
    if (g.name().equals("-") && c.length == 1) {
      Value v = value(c[0]);
      return v == null || v.isLiteral() || integerWidth(v.type()) == 0
          ? null
          : new Value(new Negate(v.expr()), v.type(), false, null);
    }
    ArithmeticOp op =
        switch (g.name()) {
          case "+" -> ArithmeticOp.ADD;
          case "-" -> ArithmeticOp.SUBTRACT;
          case "*" -> ArithmeticOp.MULTIPLY;
          case "%" -> ArithmeticOp.MODULO;
          default -> null; // "/" is a float or decimal division in Spark
        };
    if (op == null || c.length != 2) {
      return null;
    }
    Value a = value(c[0]);
    Value b = value(c[1]);
    if (a == null
        || b == null
        || (a.isLiteral() && b.isLiteral())
        || integerWidth(a.type()) == 0
        || integerWidth(b.type()) == 0
        || (a.isLiteral() && a.literal() == null)
        || (b.isLiteral() && b.literal() == null)) {
      return null;
    }
    return new Value(new Arithmetic(operand(a, b), op, operand(b, a)), a.type(), false, null);
  }

  /**
   * The engine expression of {@code v}; a literal takes the time zone of the column {@code other}.
   */
  private Expr operand(Value v, Value other) {
    if (!v.isLiteral()) {
      return v.expr();
    }
    Object value = v.literal();
    if (value instanceof Instant instant) {
      if (!other.isColumn()) {
        throw new IllegalArgumentException("a timestamp literal is only pushed against a column");
      }
      return TimestampLiteral.of(instant, zoneOf((Column) other.expr()));
    }
    return Literal.of(value);
  }

  /** The time zone a timestamp column's wall-clock values are in (UTC when it has none). */
  private ZoneId zoneOf(Column column) {
    Field f = filterable.get(column.topLevelName());
    if (f.getType() instanceof ArrowType.Timestamp ts && ts.getTimezone() != null) {
      return ZoneId.of(ts.getTimezone());
    }
    return ZoneOffset.UTC;
  }

  /** A Spark literal's internal value as the Java value the engine's literals take. */
  static Object javaValue(Object v, DataType type) {
    if (v == null) {
      return null;
    } else if (type instanceof StringType) {
      return ((UTF8String) v).toString();
    } else if (type instanceof DateType) {
      return LocalDate.ofEpochDay((Integer) v);
    } else if (type instanceof TimestampType) {
      long micros = (Long) v;
      return Instant.ofEpochSecond(
          Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1000L);
    } else if (type instanceof TimestampNTZType) {
      long micros = (Long) v;
      return LocalDateTime.ofEpochSecond(
          Math.floorDiv(micros, 1_000_000L),
          (int) Math.floorMod(micros, 1_000_000L) * 1000,
          ZoneOffset.UTC);
    } else if (type instanceof BooleanType
        || type instanceof ByteType
        || type instanceof ShortType
        || type instanceof IntegerType
        || type instanceof LongType
        || type instanceof FloatType
        || type instanceof DoubleType) {
      return v;
    } else if (type instanceof BinaryType) {
      return ((byte[]) v).clone();
    }
    throw new IllegalArgumentException("no engine literal for Spark type " + type);
  }

  private static double floatValue(Value literal) {
    if (!(literal.literal() instanceof Number n)) {
      throw new IllegalArgumentException("not a number: " + literal.literal());
    }
    return n.doubleValue();
  }

  private static boolean isFloat(DataType t) {
    return t instanceof FloatType || t instanceof DoubleType;
  }

  /** float16 columns read as Spark floats, but the engine rounds literals to float16. */
  private boolean isHalfFloatColumn(Value v) {
    if (!v.isColumn()) {
      return false;
    }
    Field f = filterable.get(((Column) v.expr()).topLevelName());
    return f.getType() instanceof ArrowType.FloatingPoint fp
        && fp.getPrecision() == FloatingPointPrecision.HALF;
  }

  /** Bytes of a Spark integer type; 0 for any other type. */
  private static int integerWidth(DataType t) {
    if (t instanceof ByteType) {
      return 1;
    } else if (t instanceof ShortType) {
      return 2;
    } else if (t instanceof IntegerType) {
      return 4;
    } else if (t instanceof LongType) {
      return 8;
    }
    return 0;
  }

  private static CastType integerCast(DataType t) {
    return switch (integerWidth(t)) {
      case 1 -> CastType.TINYINT;
      case 2 -> CastType.SMALLINT;
      case 4 -> CastType.INT;
      default -> CastType.BIGINT;
    };
  }
}
