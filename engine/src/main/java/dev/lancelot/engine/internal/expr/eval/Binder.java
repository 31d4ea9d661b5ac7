package dev.lancelot.engine.internal.expr.eval;

import dev.lancelot.engine.expr.And;
import dev.lancelot.engine.expr.ArrayContains;
import dev.lancelot.engine.expr.Between;
import dev.lancelot.engine.expr.BinaryLiteral;
import dev.lancelot.engine.expr.BooleanColumn;
import dev.lancelot.engine.expr.BooleanLiteral;
import dev.lancelot.engine.expr.BooleanValue;
import dev.lancelot.engine.expr.Column;
import dev.lancelot.engine.expr.CompareOp;
import dev.lancelot.engine.expr.Comparison;
import dev.lancelot.engine.expr.Constant;
import dev.lancelot.engine.expr.FilterBindException;
import dev.lancelot.engine.expr.InList;
import dev.lancelot.engine.expr.IsNull;
import dev.lancelot.engine.expr.Like;
import dev.lancelot.engine.expr.Literal;
import dev.lancelot.engine.expr.Not;
import dev.lancelot.engine.expr.NullLiteral;
import dev.lancelot.engine.expr.Or;
import dev.lancelot.engine.expr.Predicate;
import dev.lancelot.engine.expr.StringLiteral;
import dev.lancelot.engine.expr.TruthTest;
import dev.lancelot.engine.expr.ValueBetween;
import dev.lancelot.engine.expr.ValueComparison;
import dev.lancelot.engine.expr.ValueInList;
import dev.lancelot.engine.expr.ValueIsNull;
import dev.lancelot.engine.expr.ValueLike;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Turns a predicate into a {@link Kernel} tree for a schema: resolves columns, checks that each
 * literal fits its column and converts it to the column's representation (keys, bytes). All type
 * errors surface here, before any data is read.
 */
public final class Binder {
  /** The kernel and the columns it reads ({@code columns.get(i).slot() == i}). */
  public record Result(Kernel kernel, List<BoundColumn> columns) {}

  private final Schema schema;
  private final Map<List<String>, BoundColumn> columns = new LinkedHashMap<>();
  private final ValueBinder values;
  private Predicate leaf; // the predicate being bound, for messages

  private Binder(Schema schema, Predicate root) {
    this.schema = schema;
    this.values = new ValueBinder(this, root.toSql());
  }

  /**
   * @throws FilterBindException if the predicate does not fit the schema
   */
  public static Result bind(Predicate predicate, Schema schema) {
    Binder b = new Binder(schema, predicate);
    Kernel kernel = b.kernel(predicate);
    return new Result(kernel, List.copyOf(b.columns.values()));
  }

  private Kernel kernel(Predicate p) {
    if (p instanceof And and) {
      return new Logic.And(and.terms().stream().map(this::kernel).toList());
    } else if (p instanceof Or or) {
      return new Logic.Or(or.terms().stream().map(this::kernel).toList());
    } else if (p instanceof Not not) {
      return new Logic.Not(kernel(not.child()));
    } else if (p instanceof Constant c) {
      return c.value() ? Logic.Const.TRUE : Logic.Const.FALSE;
    } else if (p instanceof TruthTest t) {
      return new TruthKernel(kernel(t.condition()), t.truth(), t.negated());
    }
    leaf = p;
    if (p instanceof ValueComparison c) {
      return values.compare(c.left(), c.op(), c.right());
    } else if (p instanceof ValueInList in) {
      return values.in(in.value(), in.items(), in.negated());
    } else if (p instanceof ValueBetween b) {
      return values.between(b.value(), b.low(), b.high(), b.negated());
    } else if (p instanceof ValueIsNull n) {
      return values.isNull(n.value(), n.negated());
    } else if (p instanceof ValueLike l) {
      return values.like(l.value(), l.pattern(), l.negated(), l.ignoreCase());
    } else if (p instanceof BooleanValue b) {
      return values.condition(b.value());
    }
    if (p instanceof Comparison c) {
      return compare(column(c.column()), c.op(), c.value());
    } else if (p instanceof Between b) {
      BoundColumn c = column(b.column());
      Kernel range =
          new Logic.And(
              List.of(compare(c, CompareOp.GE, b.low()), compare(c, CompareOp.LE, b.high())));
      return b.negated() ? new Logic.Not(range) : range;
    } else if (p instanceof InList in) {
      Kernel k = in(column(in.column()), in.values());
      return in.negated() ? new Logic.Not(k) : k;
    } else if (p instanceof IsNull n) {
      return new IsNullKernel(column(n.column()).slot(), n.negated());
    } else if (p instanceof Like like) {
      BoundColumn c = column(like.column());
      if (!c.kind().isString()) {
        throw fail(
            "LIKE applies to string columns, but column "
                + c.displayName()
                + " has type "
                + TypeNames.of(c.field()),
            TypeNames.exampleFor(c.kind()));
      }
      Kernel k = new LikeKernel(c.slot(), LikePattern.compile(like.pattern()));
      return like.negated() ? new Logic.Not(k) : k;
    } else if (p instanceof ArrayContains a) {
      return arrayContains(column(a.column()), a);
    } else if (p instanceof BooleanColumn b) {
      BoundColumn c = column(b.column());
      if (c.kind() != ColumnKind.BOOL) {
        throw fail(
            "column "
                + c.displayName()
                + " has type "
                + TypeNames.of(c.field())
                + ", not bool, so it cannot be a filter by itself",
            "Compare it with a value, e.g. " + b.column().toSql() + " = ...");
      }
      return new BoolKernel(c.slot(), true, false);
    }
    throw new IllegalStateException("unknown predicate " + p.getClass());
  }

  // ---- comparisons ----

  Kernel compare(BoundColumn c, CompareOp op, Literal lit) {
    ColumnKind kind = c.kind();
    if (kind == ColumnKind.OTHER) {
      throw fail(
          "column "
              + c.displayName()
              + " has type "
              + TypeNames.of(c.field())
              + ", which filters cannot compare",
          TypeNames.exampleFor(kind));
    }
    if (lit instanceof NullLiteral) {
      return Logic.Const.UNKNOWN; // any comparison with NULL is unknown, even for NULL values
    }
    if (kind.hasKeys()) {
      return keyKernel(c, keyTest(c, op, lit));
    } else if (kind == ColumnKind.BOOL) {
      boolean b = bool(c, lit);
      boolean acceptFalse = op.test(Boolean.compare(false, b));
      boolean acceptTrue = op.test(Boolean.compare(true, b));
      if (acceptFalse == acceptTrue) {
        return new ValidRowsKernel(c.slot(), acceptTrue);
      }
      return new BoolKernel(c.slot(), acceptTrue, false);
    }
    return new BytesCompareKernel(c.slot(), bytes(c, lit), op);
  }

  private KeyTest keyTest(BoundColumn c, CompareOp op, Literal lit) {
    ColumnKind kind = c.kind();
    if (kind.isFloat()) {
      return KeyTest.floating(op, floatKey(c, lit));
    }
    ExactNumber value =
        kind.isInteger()
            ? Coercions.number(c, lit, this::mismatch)
            : Coercions.temporal(c, lit, this::mismatch);
    IntegerRange range = IntegerRange.of(kind);
    return KeyTest.integral(op, value, range.min(), range.max(), kind == ColumnKind.UINT64);
  }

  private long floatKey(BoundColumn c, Literal lit) {
    if (!Coercions.isNumber(lit)) {
      throw mismatch(c, lit);
    }
    // As Lance: the literal is rounded to the column's float type, then compared in total order.
    return switch (c.kind()) {
      case FLOAT64 -> Keys.ofDouble(Coercions.toDouble(lit));
      case FLOAT32 -> Keys.ofFloat(Coercions.toFloat(lit));
      default ->
          Keys.ofHalf(org.apache.arrow.memory.util.Float16.toFloat16(Coercions.toFloat(lit)));
    };
  }

  private static Kernel keyKernel(BoundColumn c, KeyTest test) {
    if (test instanceof KeyTest.Always a) {
      return new ValidRowsKernel(c.slot(), a.value());
    }
    KeyTest.Range r = (KeyTest.Range) test;
    return new KeyRangeKernel(c.slot(), r.lo(), r.hi(), r.negated());
  }

  // ---- list containment ----

  private Kernel arrayContains(BoundColumn c, ArrayContains a) {
    ArrowType type = c.field().getType();
    ColumnKind itemKind =
        type instanceof ArrowType.List || type instanceof ArrowType.LargeList
            ? ColumnKind.of(c.field().getChildren().get(0).getType())
            : ColumnKind.OTHER;
    if ((!itemKind.hasKeys() && !itemKind.isString() && !itemKind.isBinary())
        || itemKind == ColumnKind.UTF8_VIEW
        || itemKind == ColumnKind.BINARY_VIEW) {
      throw fail(
          "column "
              + c.displayName()
              + " has type "
              + TypeNames.of(c.field())
              + "; "
              + a.mode().sql()
              + " applies to lists (list or large_list) of numbers, dates, timestamps, strings"
              + " or binaries",
          "Use a list column");
    }
    BoundColumn item =
        new BoundColumn(c.slot(), c.path(), c.field().getChildren().get(0), itemKind);
    int unmatchable = 0;
    if (itemKind.hasKeys()) {
      List<Long> keys = new ArrayList<>();
      for (Literal v : a.values()) {
        KeyTest t = keyTest(item, CompareOp.EQ, v);
        if (t instanceof KeyTest.Range r) {
          keys.add(r.lo());
        } else {
          unmatchable++;
        }
      }
      return new ArrayContainsKernel(
          c.slot(),
          itemKind,
          keys.stream().mapToLong(Long::longValue).toArray(),
          null,
          unmatchable,
          a.all());
    }
    List<byte[]> bytes = new ArrayList<>();
    for (Literal v : a.values()) {
      byte[] b = bytes(item, v);
      if (bytes.stream().noneMatch(x -> java.util.Arrays.equals(x, b))) {
        bytes.add(b);
      }
    }
    return new ArrayContainsKernel(c.slot(), itemKind, null, bytes, 0, a.all());
  }

  // ---- IN lists ----

  private Kernel in(BoundColumn c, List<Literal> values) {
    ColumnKind kind = c.kind();
    if (kind == ColumnKind.OTHER) {
      throw fail(
          "column "
              + c.displayName()
              + " has type "
              + TypeNames.of(c.field())
              + ", which filters cannot compare",
          TypeNames.exampleFor(kind));
    }
    boolean hasNull = false;
    List<Literal> present = new ArrayList<>();
    for (Literal v : values) {
      if (v instanceof NullLiteral) {
        hasNull = true;
      } else {
        present.add(v);
      }
    }
    if (kind.hasKeys()) {
      long[] keys =
          present.stream()
              .map(v -> keyTest(c, CompareOp.EQ, v))
              .filter(t -> t instanceof KeyTest.Range) // Always(false): equal to no value
              .mapToLong(t -> ((KeyTest.Range) t).lo())
              .distinct()
              .toArray();
      return keys.length == 0
          ? nothingMatches(c, hasNull)
          : new KeySetKernel(c.slot(), keys, hasNull);
    } else if (kind == ColumnKind.BOOL) {
      boolean anyTrue = false;
      boolean anyFalse = false;
      for (Literal v : present) {
        boolean b = bool(c, v);
        anyTrue |= b;
        anyFalse |= !b;
      }
      if (anyTrue && anyFalse) {
        return new ValidRowsKernel(c.slot(), true);
      } else if (anyTrue || anyFalse) {
        return new BoolKernel(c.slot(), anyTrue, hasNull);
      }
      return nothingMatches(c, hasNull);
    }
    List<byte[]> bytes = present.stream().map(v -> bytes(c, v)).toList();
    return bytes.isEmpty()
        ? nothingMatches(c, hasNull)
        : new BytesSetKernel(c.slot(), bytes, hasNull);
  }

  /** An IN list no value can equal: FALSE for values, or UNKNOWN everywhere if it holds NULL. */
  private static Kernel nothingMatches(BoundColumn c, boolean hasNull) {
    return hasNull ? Logic.Const.UNKNOWN : new ValidRowsKernel(c.slot(), false);
  }

  // ---- literal conversion ----

  private boolean bool(BoundColumn c, Literal lit) {
    if (lit instanceof BooleanLiteral b) {
      return b.value();
    }
    throw mismatch(c, lit);
  }

  private byte[] bytes(BoundColumn c, Literal lit) {
    if (c.kind().isString() && lit instanceof StringLiteral s) {
      return s.value().getBytes(StandardCharsets.UTF_8);
    } else if (c.kind().isBinary() && lit instanceof BinaryLiteral b) {
      return b.value();
    }
    throw mismatch(c, lit);
  }

  FilterBindException mismatch(BoundColumn c, Literal lit) {
    return fail(
        "column "
            + c.displayName()
            + " has type "
            + TypeNames.of(c.field())
            + " and cannot be compared with "
            + TypeNames.of(lit),
        TypeNames.exampleFor(c.kind()));
  }

  FilterBindException fail(String reason, String fix) {
    return new FilterBindException(
        "Cannot apply filter \"" + leaf.toSql() + "\": " + reason + ". " + fix + ".");
  }

  // ---- columns ----

  BoundColumn column(Column column) {
    List<String> path = column.path();
    Field field = find(schema.getFields(), path.get(0), null, column);
    List<String> actual = new ArrayList<>();
    actual.add(field.getName());
    for (int i = 1; i < path.size(); i++) {
      if (!(field.getType() instanceof ArrowType.Struct)) {
        throw fail(
            "column "
                + String.join(".", actual)
                + " has type "
                + TypeNames.of(field)
                + ", which has no fields, so "
                + column.toSql()
                + " does not exist",
            "Refer to the column itself as " + String.join(".", actual));
      }
      field = find(field.getChildren(), path.get(i), String.join(".", actual), column);
      actual.add(field.getName());
    }
    BoundColumn existing = columns.get(actual);
    if (existing != null) {
      return existing;
    }
    BoundColumn bound =
        new BoundColumn(columns.size(), actual, field, ColumnKind.of(field.getType()));
    columns.put(actual, bound);
    return bound;
  }

  /** Exact name first, then the one name equal ignoring case (as Lance resolves columns). */
  private Field find(List<Field> fields, String name, String parent, Column column) {
    for (Field f : fields) {
      if (f.getName().equals(name)) {
        return f;
      }
    }
    List<Field> loose = fields.stream().filter(f -> f.getName().equalsIgnoreCase(name)).toList();
    if (loose.size() == 1) {
      return loose.get(0);
    }
    String where =
        parent == null
            ? "the schema has no column " + name
            : "struct column " + parent + " has no field " + name;
    if (loose.size() > 1) {
      throw fail(
          where
              + "; "
              + loose.stream().map(Field::getName).collect(Collectors.joining(", "))
              + " differ from it only in case",
          "Write the name with its exact case");
    }
    List<String> names = fields.stream().map(Field::getName).toList();
    String listed =
        names.size() <= 50
            ? String.join(", ", names)
            : String.join(", ", names.subList(0, 50)) + ", ... (" + (names.size() - 50) + " more)";
    String fix = (parent == null ? "Available columns: " : "Its fields: ") + listed;
    if (column.isNested()
        && parent == null
        && schema.getFields().stream()
            .anyMatch(f -> f.getName().equals(String.join(".", column.path())))) {
      fix =
          "A column named "
              + String.join(".", column.path())
              + " exists; write it in backquotes: `"
              + String.join(".", column.path())
              + "`";
    }
    throw fail(where, fix);
  }
}
