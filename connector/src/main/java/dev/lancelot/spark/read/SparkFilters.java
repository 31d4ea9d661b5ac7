package dev.lancelot.spark.read;

import dev.lancelot.engine.expr.Column;
import dev.lancelot.engine.expr.Predicate;
import dev.lancelot.engine.expr.Predicates;
import java.math.BigDecimal;
import java.sql.Date;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Map;
import java.time.ZoneId;
import java.time.ZoneOffset;
import dev.lancelot.engine.expr.TimestampLiteral;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.spark.sql.sources.AlwaysFalse;
import org.apache.spark.sql.sources.AlwaysTrue;
import org.apache.spark.sql.sources.And;
import org.apache.spark.sql.sources.EqualNullSafe;
import org.apache.spark.sql.sources.EqualTo;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.sources.GreaterThan;
import org.apache.spark.sql.sources.GreaterThanOrEqual;
import org.apache.spark.sql.sources.In;
import org.apache.spark.sql.sources.IsNotNull;
import org.apache.spark.sql.sources.IsNull;
import org.apache.spark.sql.sources.LessThan;
import org.apache.spark.sql.sources.LessThanOrEqual;
import org.apache.spark.sql.sources.Not;
import org.apache.spark.sql.sources.Or;
import org.apache.spark.sql.sources.StringContains;
import org.apache.spark.sql.sources.StringEndsWith;
import org.apache.spark.sql.sources.StringStartsWith;

/**
 * Translates Spark data source filters into engine predicates. A filter that cannot be translated
 * exactly (an unknown filter type, a literal type the engine does not compare, a column the scan
 * cannot evaluate such as a vector) yields empty and stays with Spark.
 */
public final class SparkFilters {
  private SparkFilters() {}

  /**
   * The top-level columns of {@code schema} the engine can filter on: scalar columns it evaluates
   * (no vectors, lists or structs), by name.
   */
  public static Map<String, Field> filterableColumns(org.apache.arrow.vector.types.pojo.Schema schema) {
    Map<String, Field> filterable = new java.util.HashMap<>();
    for (Field f : schema.getFields()) {
      if (dev.lancelot.engine.expr.BoundPredicate.canEvaluate(Predicates.isNotNull(f.getName()), schema)
          && !(f.getType() instanceof ArrowType.FixedSizeList || f.getType() instanceof ArrowType.List
              || f.getType() instanceof ArrowType.LargeList || f.getType() instanceof ArrowType.Struct)) {
        filterable.put(f.getName(), f);
      }
    }
    return filterable;
  }

  /**
   * @param filterable top-level columns the engine can filter on (scalar columns), with their Arrow fields
   */
  public static Optional<Predicate> translate(Filter filter, Map<String, Field> filterable) {
    try {
      return Optional.ofNullable(convert(filter, filterable));
    } catch (RuntimeException e) {
      return Optional.empty();
    }
  }

  private static Predicate convert(Filter f, Map<String, Field> cols) {
    if (f instanceof EqualTo e) {
      return Predicates.eq(column(e.attribute(), cols), literal(e.attribute(), e.value(), cols));
    } else if (f instanceof EqualNullSafe e) {
      return Predicates.nullSafeEq(column(e.attribute(), cols), literal(e.attribute(), e.value(), cols));
    } else if (f instanceof GreaterThan g) {
      return Predicates.gt(column(g.attribute(), cols), literal(g.attribute(), g.value(), cols));
    } else if (f instanceof GreaterThanOrEqual g) {
      return Predicates.ge(column(g.attribute(), cols), literal(g.attribute(), g.value(), cols));
    } else if (f instanceof LessThan l) {
      return Predicates.lt(column(l.attribute(), cols), literal(l.attribute(), l.value(), cols));
    } else if (f instanceof LessThanOrEqual l) {
      return Predicates.le(column(l.attribute(), cols), literal(l.attribute(), l.value(), cols));
    } else if (f instanceof In in) {
      List<Object> values = new ArrayList<>();
      for (Object v : in.values()) {
        values.add(literal(in.attribute(), v, cols));
      }
      return Predicates.in(column(in.attribute(), cols), values);
    } else if (f instanceof IsNull n) {
      return Predicates.isNull(column(n.attribute(), cols));
    } else if (f instanceof IsNotNull n) {
      return Predicates.isNotNull(column(n.attribute(), cols));
    } else if (f instanceof StringStartsWith s) {
      return Predicates.startsWith(column(s.attribute(), cols), s.value());
    } else if (f instanceof StringEndsWith s) {
      return Predicates.endsWith(column(s.attribute(), cols), s.value());
    } else if (f instanceof StringContains s) {
      return Predicates.contains(column(s.attribute(), cols), s.value());
    } else if (f instanceof And a) {
      Predicate l = convert(a.left(), cols);
      Predicate r = convert(a.right(), cols);
      return l == null || r == null ? null : Predicates.and(l, r);
    } else if (f instanceof Or o) {
      Predicate l = convert(o.left(), cols);
      Predicate r = convert(o.right(), cols);
      return l == null || r == null ? null : Predicates.or(l, r);
    } else if (f instanceof Not n) {
      Predicate c = convert(n.child(), cols);
      return c == null ? null : Predicates.not(c);
    } else if (f instanceof AlwaysTrue) {
      return Predicates.and(List.of());
    } else if (f instanceof AlwaysFalse) {
      return Predicates.or(List.of());
    }
    return null;
  }

  private static Column column(String attribute, Map<String, Field> cols) {
    // Spark quotes names containing dots with backticks, so an unquoted dot separates a struct from
    // its field: a nested field, which is not pushed, even when a top-level column has that name.
    boolean quoted = attribute.length() > 1 && attribute.startsWith("`") && attribute.endsWith("`");
    String name = quoted ? attribute.substring(1, attribute.length() - 1).replace("``", "`") : attribute;
    if (!quoted && attribute.contains(".")) {
      throw new IllegalArgumentException("nested field: " + attribute);
    }
    if (!cols.containsKey(name)) {
      throw new IllegalArgumentException("not filterable: " + attribute);
    }
    return Column.named(name);
  }

  private static Object literal(String attribute, Object v, Map<String, Field> cols) {
    if (v instanceof Timestamp t) {
      return TimestampLiteral.of(t.toInstant(), zoneOf(attribute, cols));
    } else if (v instanceof Instant i) {
      return TimestampLiteral.of(i, zoneOf(attribute, cols));
    }
    return plainLiteral(v);
  }

  /** The time zone a timestamp column's wall-clock values are in (UTC when it has none). */
  private static ZoneId zoneOf(String attribute, Map<String, Field> cols) {
    Field f = cols.get(column(attribute, cols).topLevelName());
    if (f.getType() instanceof ArrowType.Timestamp ts && ts.getTimezone() != null) {
      return ZoneId.of(ts.getTimezone());
    }
    return ZoneOffset.UTC;
  }

  private static Object plainLiteral(Object v) {
    if (v == null || v instanceof String || v instanceof Boolean || v instanceof Byte || v instanceof Short
        || v instanceof Integer || v instanceof Long || v instanceof Float || v instanceof Double) {
      return v;
    } else if (v instanceof Date d) {
      return d.toLocalDate();
    } else if (v instanceof LocalDate d) {
      return d;
    } else if (v instanceof LocalDateTime t) {
      return t;
    } else if (v instanceof BigDecimal d) {
      return d;
    } else if (v instanceof byte[] b) {
      return Arrays.copyOf(b, b.length);
    }
    throw new IllegalArgumentException("unsupported literal " + v.getClass());
  }
}
