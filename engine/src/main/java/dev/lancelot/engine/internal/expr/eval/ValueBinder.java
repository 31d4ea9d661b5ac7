package dev.lancelot.engine.internal.expr.eval;

import dev.lancelot.engine.expr.Arithmetic;
import dev.lancelot.engine.expr.ArithmeticOp;
import dev.lancelot.engine.expr.BinaryLiteral;
import dev.lancelot.engine.expr.BooleanLiteral;
import dev.lancelot.engine.expr.Call;
import dev.lancelot.engine.expr.Cast;
import dev.lancelot.engine.expr.CastType;
import dev.lancelot.engine.expr.Column;
import dev.lancelot.engine.expr.CompareOp;
import dev.lancelot.engine.expr.DateLiteral;
import dev.lancelot.engine.expr.DoubleLiteral;
import dev.lancelot.engine.expr.Expr;
import dev.lancelot.engine.expr.FilterFunction;
import dev.lancelot.engine.expr.Literal;
import dev.lancelot.engine.expr.LongLiteral;
import dev.lancelot.engine.expr.Negate;
import dev.lancelot.engine.expr.NullLiteral;
import dev.lancelot.engine.expr.StringLiteral;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Binds value expressions ({@link Expr}) and the predicates over them to {@link ValueNode}s and
 * kernels, with Lance's (DataFusion's) typing: the operands of arithmetic and comparisons meet in
 * the narrowest type holding both (any float wins over integers; {@code uint64} with a signed
 * integer is exact decimal arithmetic in Lance, which is refused here for arithmetic and compared
 * exactly). A column compared with a literal still goes to {@link Binder}'s kernels, which scalar
 * indexes understand.
 */
final class ValueBinder {
  private final Binder binder;
  private final String filter;

  ValueBinder(Binder binder, String filter) {
    this.binder = binder;
    this.filter = filter;
  }

  // ---- predicates ----

  Kernel compare(Expr l, CompareOp op, Expr r) {
    if (l instanceof Column c && r instanceof Literal lit) {
      return binder.compare(binder.column(c), op, lit);
    } else if (l instanceof Literal lit && r instanceof Column c) {
      return binder.compare(binder.column(c), op.flip(), lit);
    }
    Expr ul = unwrapIntegerCast(l, r);
    Expr ur = unwrapIntegerCast(r, l);
    if (ul != l || ur != r) {
      return compare(ul, op, ur);
    }
    return compareNodes(node(l), op, node(r));
  }

  /** {@code a op b} after bringing both to their common type. */
  private Kernel compareNodes(ValueNode a, CompareOp op, ValueNode b) {
    if (a.type().isNull() || b.type().isNull()) {
      return Logic.Const.UNKNOWN;
    }
    ValueType ta = a.type();
    ValueType tb = b.type();
    ValueCompareKernel.Order order;
    if (ta.isNumeric() && tb.isNumeric()) {
      boolean ua = ta.kind() == ColumnKind.UINT64;
      boolean ub = tb.kind() == ColumnKind.UINT64;
      if (ua && Numbers.isSigned(tb.kind())) {
        return new ValueCompareKernel(a, op, b, ValueCompareKernel.Order.UNSIGNED_SIGNED);
      } else if (ub && Numbers.isSigned(ta.kind())) {
        return new ValueCompareKernel(a, op, b, ValueCompareKernel.Order.SIGNED_UNSIGNED);
      }
      ValueType common = ValueType.of(commonNumeric(ta.kind(), tb.kind()));
      a = implicit(a, common);
      b = implicit(b, common);
      order =
          common.kind().isFloat()
              ? ValueCompareKernel.Order.FLOAT
              : common.kind() == ColumnKind.UINT64
                  ? ValueCompareKernel.Order.UNSIGNED
                  : ValueCompareKernel.Order.SIGNED;
    } else if (ta.isBytes() && tb.isBytes()) {
      order = ValueCompareKernel.Order.BYTES;
    } else if (ta.kind() == ColumnKind.BOOL && tb.kind() == ColumnKind.BOOL) {
      order = ValueCompareKernel.Order.SIGNED;
    } else if (ta.kind().isTemporal()
        && tb.kind().isTemporal()
        && (ta.arrow().equals(tb.arrow()) || bothDates(ta, tb))) {
      if (!ta.arrow().equals(tb.arrow())) {
        a = implicit(a, ValueType.of(ColumnKind.DATE64));
        b = implicit(b, ValueType.of(ColumnKind.DATE64));
      }
      order = ValueCompareKernel.Order.SIGNED;
    } else {
      throw binder.fail(
          a.sql()
              + " has type "
              + ta.name()
              + " and "
              + b.sql()
              + " has type "
              + tb.name()
              + ", which cannot be compared",
          "Compare values of the same kind (numbers"
              + " with numbers, strings with strings, equal date or timestamp types), or CAST one side");
    }
    return new ValueCompareKernel(a, op, b, order);
  }

  /**
   * {@code value IN (items)}: as in Lance, literals compared with a column take the column's type
   * (the same rule as a {@link dev.lancelot.engine.expr.Comparison}), and the other numeric
   * operands meet in one common type for the whole list, not pair by pair.
   */
  Kernel in(Expr value, List<Expr> items, boolean negated) {
    List<Expr> all = new ArrayList<>(items);
    all.add(value);
    ValueType common = commonType(value, all);
    List<Kernel> equals = new ArrayList<>();
    for (Expr item : items) {
      equals.add(compareIn(value, CompareOp.EQ, item, common));
    }
    Kernel any = equals.size() == 1 ? equals.get(0) : new Logic.Or(equals);
    return negated ? new Logic.Not(any) : any;
  }

  /**
   * {@code value BETWEEN low AND high}: exactly {@code value >= low AND value <= high}, each
   * comparison typed on its own (Lance checks it so: a float16 low bound does not turn the high
   * comparison into float16).
   */
  Kernel between(Expr value, Expr low, Expr high, boolean negated) {
    Kernel range =
        new Logic.And(
            List.of(compare(value, CompareOp.GE, low), compare(value, CompareOp.LE, high)));
    return negated ? new Logic.Not(range) : range;
  }

  private Kernel compareIn(Expr value, CompareOp op, Expr other, ValueType common) {
    boolean literalForColumn = value instanceof Column && other instanceof Literal;
    if (common == null || literalForColumn) {
      return compare(value, op, other);
    }
    ValueNode a = node(value);
    ValueNode b = node(other);
    if (a.type().isNull() || b.type().isNull()) {
      return Logic.Const.UNKNOWN;
    }
    return compareNodes(implicit(a, common), op, implicit(b, common));
  }

  /**
   * The numeric type all of {@code operands} meet in, or null to compare pair by pair (any
   * non-numeric operand, or uint64 with a signed integer). A literal compared with a column {@code
   * value} counts with the column's type.
   */
  private ValueType commonType(Expr value, List<Expr> operands) {
    ColumnKind common = null;
    for (Expr e : operands) {
      if (value instanceof Column && e instanceof Literal && !(e instanceof NullLiteral)) {
        continue;
      }
      ValueType t = node(e).type();
      if (t.isNull()) {
        continue;
      } else if (!t.isNumeric()) {
        return null;
      }
      ColumnKind k = t.kind();
      if (common != null
          && ((common == ColumnKind.UINT64 && Numbers.isSigned(k))
              || (k == ColumnKind.UINT64 && Numbers.isSigned(common)))) {
        return null;
      }
      common = common == null ? k : commonNumeric(common, k);
    }
    return common == null ? null : ValueType.of(common);
  }

  Kernel isNull(Expr value, boolean negated) {
    ValueNode v = node(value);
    if (v.type().isNull()) {
      return negated ? Logic.Const.FALSE : Logic.Const.TRUE;
    }
    return new ValueTestKernel(
        v, negated ? ValueTestKernel.Test.IS_NOT_NULL : ValueTestKernel.Test.IS_NULL, null, null);
  }

  Kernel like(Expr value, String pattern, boolean negated, boolean ignoreCase) {
    ValueNode v = node(value);
    if (v.type().isNull()) {
      return Logic.Const.UNKNOWN;
    } else if (!v.type().kind().isString() || v.type().isNull()) {
      throw binder.fail(
          (ignoreCase ? "ILIKE" : "LIKE")
              + " applies to strings, but "
              + v.sql()
              + " has type "
              + v.type().name(),
          "Match a string column or expression");
    }
    Kernel k =
        ignoreCase
            ? new ValueTestKernel(v, ValueTestKernel.Test.ILIKE, null, ilike(pattern))
            : new ValueTestKernel(v, ValueTestKernel.Test.LIKE, LikePattern.compile(pattern), null);
    return negated ? new Logic.Not(k) : k;
  }

  Kernel condition(Expr value) {
    ValueNode v = node(value);
    if (v.type().isNull()) {
      return Logic.Const.UNKNOWN;
    } else if (v.type().kind() != ColumnKind.BOOL) {
      throw binder.fail(
          v.sql()
              + " has type "
              + v.type().name()
              + ", not bool, so it cannot be a filter by itself",
          "Compare it with a value, e.g. " + v.sql() + " = ...");
    }
    return new ValueTestKernel(v, ValueTestKernel.Test.BOOL, null, null);
  }

  // ---- values ----

  ValueNode node(Expr e) {
    if (e instanceof Column c) {
      BoundColumn bc = binder.column(c);
      if (bc.kind() == ColumnKind.OTHER) {
        throw binder.fail(
            "column "
                + bc.displayName()
                + " has type "
                + TypeNames.of(bc.field())
                + ", which filters cannot compute with",
            TypeNames.exampleFor(bc.kind()));
      }
      return new ColumnValueNode(bc, new ValueType(bc.kind(), bc.field().getType()));
    } else if (e instanceof Literal lit) {
      return constant(lit);
    } else if (e instanceof Negate n) {
      ValueNode child = node(n.value());
      ValueType t = child.type();
      if (!t.isNull() && !(t.kind().isFloat() || Numbers.isSigned(t.kind()))) {
        throw binder.fail(
            "cannot negate " + child.sql() + " of type " + t.name(),
            "Negate signed integers and floats only, e.g. CAST(x AS BIGINT)");
      }
      return new ArithmeticNode(ArithmeticOp.SUBTRACT, child, null, t, e.toSql(), filter);
    } else if (e instanceof Arithmetic a) {
      ValueNode l = node(a.left());
      ValueNode r = node(a.right());
      ValueType type = arithmeticType(l, r, a);
      if (l.type().isNull() || r.type().isNull()) {
        return new ConstantNode(ValueType.NULL, 0, 0, null, e.toSql());
      }
      return new ArithmeticNode(
          a.op(), implicit(l, type), implicit(r, type), type, e.toSql(), filter);
    } else if (e instanceof Cast c) {
      ValueNode child = node(c.value());
      ValueType to = castTarget(c.type());
      checkCast(child, to, c);
      return new CastNode(child, to, e.toSql(), filter);
    } else if (e instanceof Call call) {
      return call(call);
    }
    throw new IllegalStateException("unknown expression " + e.getClass());
  }

  private ValueNode constant(Literal lit) {
    String sql = lit.toSql();
    if (lit instanceof LongLiteral l) {
      return new ConstantNode(ValueType.INT64, l.value(), 0, null, sql);
    } else if (lit instanceof DoubleLiteral d) {
      return new ConstantNode(ValueType.FLOAT64, 0, d.value(), null, sql);
    } else if (lit instanceof StringLiteral s) {
      return new ConstantNode(
          ValueType.UTF8, 0, 0, s.value().getBytes(StandardCharsets.UTF_8), sql);
    } else if (lit instanceof BinaryLiteral b) {
      return new ConstantNode(ValueType.BINARY, 0, 0, b.value(), sql);
    } else if (lit instanceof BooleanLiteral b) {
      return new ConstantNode(ValueType.BOOL, b.value() ? 1 : 0, 0, null, sql);
    } else if (lit instanceof DateLiteral d) {
      return new ConstantNode(
          ValueType.of(ColumnKind.DATE32), d.value().toEpochDay(), 0, null, sql);
    } else if (lit instanceof NullLiteral) {
      return new ConstantNode(ValueType.NULL, 0, 0, null, sql);
    }
    throw binder.fail(
        "the literal " + sql + " can only be compared with a date or timestamp" + " column",
        "Compare a timestamp column with it directly, e.g. ts > " + sql);
  }

  private ValueType arithmeticType(ValueNode l, ValueNode r, Arithmetic a) {
    ValueType tl = l.type();
    ValueType tr = r.type();
    for (ValueNode side : List.of(l, r)) {
      if (!side.type().isNull() && !side.type().isNumeric()) {
        throw binder.fail(
            "arithmetic ("
                + a.op().sql()
                + ") needs numbers, but "
                + side.sql()
                + " has type "
                + side.type().name(),
            side.type().kind().isTemporal()
                ? "Date and timestamp arithmetic is not supported; compare with a literal instead"
                : "Use numeric columns or CAST the value to a number");
      }
    }
    if (tl.isNull() || tr.isNull()) {
      return tl.isNull() ? tr : tl;
    }
    boolean mixedUnsigned =
        (tl.kind() == ColumnKind.UINT64 && Numbers.isSigned(tr.kind()))
            || (tr.kind() == ColumnKind.UINT64 && Numbers.isSigned(tl.kind()));
    if (mixedUnsigned) {
      throw binder.fail(
          a.toSql()
              + " mixes uint64 with a signed integer, which Lance computes"
              + " as a 20-digit decimal; this engine does not",
          "CAST one side, e.g. CAST("
              + l.sql()
              + " AS BIGINT) or CAST("
              + r.sql()
              + " AS BIGINT UNSIGNED)");
    }
    return ValueType.of(commonNumeric(tl.kind(), tr.kind()));
  }

  /**
   * DataFusion's numeric coercion: float64, float32, float16 win in that order; two integers meet
   * in the narrowest integer type holding both ranges (uint64 with a signed type excluded).
   */
  static ColumnKind commonNumeric(ColumnKind a, ColumnKind b) {
    if (a == b) {
      return a;
    }
    for (ColumnKind f : List.of(ColumnKind.FLOAT64, ColumnKind.FLOAT32, ColumnKind.FLOAT16)) {
      if (a == f || b == f) {
        return f;
      }
    }
    if (a == ColumnKind.UINT64 || b == ColumnKind.UINT64) {
      return ColumnKind.UINT64;
    }
    int signedBits = Math.max(signedWidth(a), signedWidth(b));
    int unsignedBits = Math.max(unsignedWidth(a), unsignedWidth(b));
    if (signedBits == 0) {
      return unsignedKind(unsignedBits);
    }
    // A signed type holds an unsigned one only if it is wider.
    int bits = unsignedBits >= signedBits ? unsignedBits * 2 : signedBits;
    return signedKind(Math.min(bits, 64));
  }

  private static int signedWidth(ColumnKind k) {
    return switch (k) {
      case INT8 -> 8;
      case INT16 -> 16;
      case INT32 -> 32;
      case INT64 -> 64;
      default -> 0;
    };
  }

  private static int unsignedWidth(ColumnKind k) {
    return switch (k) {
      case UINT8 -> 8;
      case UINT16 -> 16;
      case UINT32 -> 32;
      case UINT64 -> 64;
      default -> 0;
    };
  }

  private static ColumnKind signedKind(int bits) {
    return switch (bits) {
      case 8 -> ColumnKind.INT8;
      case 16 -> ColumnKind.INT16;
      case 32 -> ColumnKind.INT32;
      default -> ColumnKind.INT64;
    };
  }

  private static ColumnKind unsignedKind(int bits) {
    return switch (bits) {
      case 8 -> ColumnKind.UINT8;
      case 16 -> ColumnKind.UINT16;
      case 32 -> ColumnKind.UINT32;
      default -> ColumnKind.UINT64;
    };
  }

  private ValueNode implicit(ValueNode node, ValueType to) {
    if (node.type().kind() == to.kind()) {
      return node;
    }
    return new CastNode(node, to, node.sql(), filter);
  }

  private static boolean bothDates(ValueType a, ValueType b) {
    return (a.kind() == ColumnKind.DATE32 || a.kind() == ColumnKind.DATE64)
        && (b.kind() == ColumnKind.DATE32 || b.kind() == ColumnKind.DATE64);
  }

  /**
   * {@code CAST(int_expr AS int_type)} compared with an integer literal the type holds is the
   * comparison of {@code int_expr} itself: Lance's optimizer drops such casts (so no cast error is
   * raised), and this engine does the same.
   */
  private Expr unwrapIntegerCast(Expr e, Expr other) {
    if (!(e instanceof Cast c) || !(other instanceof LongLiteral lit)) {
      return e;
    }
    ColumnKind target = castTarget(c.type()).kind();
    if (!target.isInteger()) {
      return e;
    }
    IntegerRange range = IntegerRange.of(target);
    java.math.BigInteger v = java.math.BigInteger.valueOf(lit.value());
    if (v.compareTo(range.min()) < 0 || v.compareTo(range.max()) > 0) {
      return e;
    }
    ValueType inner = node(c.value()).type();
    return !inner.isNull() && inner.kind().isInteger() ? c.value() : e;
  }

  static ValueType castTarget(CastType type) {
    return ValueType.of(
        switch (type) {
          case TINYINT -> ColumnKind.INT8;
          case SMALLINT -> ColumnKind.INT16;
          case INT -> ColumnKind.INT32;
          case BIGINT -> ColumnKind.INT64;
          case TINYINT_UNSIGNED -> ColumnKind.UINT8;
          case SMALLINT_UNSIGNED -> ColumnKind.UINT16;
          case INT_UNSIGNED -> ColumnKind.UINT32;
          case BIGINT_UNSIGNED -> ColumnKind.UINT64;
          case FLOAT -> ColumnKind.FLOAT32;
          case DOUBLE -> ColumnKind.FLOAT64;
          case STRING -> ColumnKind.UTF8;
          case BOOLEAN -> ColumnKind.BOOL;
        });
  }

  private void checkCast(ValueNode child, ValueType to, Cast c) {
    ValueType from = child.type();
    if (from.isNull()) {
      return;
    }
    ColumnKind f = from.kind();
    boolean ok;
    String why = "";
    if (to.kind().isInteger()) {
      ok = from.isNumeric() || f == ColumnKind.BOOL || f.isString() || f.isTemporal();
    } else if (to.kind().isFloat() || to.kind() == ColumnKind.BOOL) {
      ok = from.isNumeric() || f == ColumnKind.BOOL || f.isString();
    } else {
      ok = f.isInteger() || f == ColumnKind.BOOL || f.isString();
      if (f.isFloat()) {
        why = " (Lance prints floats its own way, e.g. 1e300; compare the number instead)";
      }
    }
    if (!ok) {
      throw binder.fail(
          c.toSql()
              + " converts "
              + from.name()
              + " to "
              + c.type().sql()
              + ", which is not supported"
              + why,
          "See docs/filters.md for the supported casts");
    }
  }

  private ValueNode call(Call call) {
    FilterFunction f = call.function();
    List<ValueNode> args = new ArrayList<>();
    for (Expr a : call.arguments()) {
      args.add(node(a));
    }
    ValueType type;
    switch (f) {
      case LOWER, UPPER -> {
        requireArgs(call, args, true, false);
        type = ValueType.UTF8;
      }
      case STARTS_WITH, ENDS_WITH, CONTAINS -> {
        requireArgs(call, args, true, false);
        type = ValueType.BOOL;
      }
      case LENGTH, CHAR_LENGTH, CHARACTER_LENGTH, OCTET_LENGTH -> {
        requireArgs(call, args, true, f == FilterFunction.OCTET_LENGTH);
        ColumnKind k = args.get(0).type().kind();
        boolean large = k == ColumnKind.LARGE_UTF8 || k == ColumnKind.LARGE_BINARY;
        type = large ? ValueType.INT64 : ValueType.INT32;
      }
      case ABS -> {
        ValueType t = args.get(0).type();
        if (!t.isNull() && !t.isNumeric()) {
          throw binder.fail(
              "abs needs a number, but " + args.get(0).sql() + " has type " + t.name(),
              "Pass a numeric column or expression");
        }
        type = t.isNull() ? ValueType.INT64 : t;
      }
      default -> throw new IllegalStateException("unknown function " + f);
    }
    return new CallNode(f, args, type, call.toSql(), filter);
  }

  private void requireArgs(Call call, List<ValueNode> args, boolean strings, boolean binaries) {
    for (ValueNode a : args) {
      ValueType t = a.type();
      boolean ok =
          t.isNull()
              || (strings && t.kind().isString() && !t.isNull())
              || (binaries && t.kind().isBinary() && !t.isNull());
      if (!ok) {
        throw binder.fail(
            call.function().sql()
                + " needs "
                + (binaries ? "strings or binaries" : "strings")
                + ", but "
                + a.sql()
                + " has type "
                + t.name(),
            "CAST it to STRING first, e.g. " + call.function().sql() + "(CAST(x AS STRING))");
      }
    }
  }

  /** An ILIKE pattern as a regex: {@code %}, {@code _} and backslash escapes as for LIKE. */
  static Pattern ilike(String pattern) {
    StringBuilder regex = new StringBuilder();
    int i = 0;
    while (i < pattern.length()) {
      int c = pattern.codePointAt(i);
      i += Character.charCount(c);
      if (c == '\\' && i < pattern.length()) {
        int next = pattern.codePointAt(i);
        i += Character.charCount(next);
        regex.append(Pattern.quote(new String(Character.toChars(next))));
      } else if (c == '%') {
        regex.append(".*");
      } else if (c == '_') {
        regex.append('.');
      } else {
        regex.append(Pattern.quote(new String(Character.toChars(c))));
      }
    }
    return Pattern.compile(
        regex.toString(), Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE | Pattern.DOTALL);
  }
}
