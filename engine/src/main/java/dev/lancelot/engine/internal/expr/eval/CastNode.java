package dev.lancelot.engine.internal.expr.eval;

import dev.lancelot.engine.expr.FilterEvaluationException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Converts a value to another type, as Arrow's cast (which Lance uses) does with errors on:
 * integers out of the target's range, floats that are NaN, infinite or out of range for an integer
 * target (others truncate toward zero), strings that are not numbers or bools. Which conversions
 * exist is decided by {@link ValueBinder}; implicit conversions (to a common type) never fail.
 */
record CastNode(ValueNode child, ValueType type, String sql, String filter) implements ValueNode {
  /** Rust's float syntax: no spaces, no hex, optional exponent; inf, infinity and nan. */
  private static final Pattern FLOAT =
      Pattern.compile(
          "[+-]?(\\d+\\.?\\d*|\\.\\d+)([eE][+-]?\\d+)?|[+-]?(inf|infinity|nan)",
          Pattern.CASE_INSENSITIVE);

  private static final Pattern INTEGER = Pattern.compile("[+-]?\\d+");

  @Override
  public Values evaluate(Batch batch) {
    Values in = child.evaluate(batch);
    int n = batch.rows();
    Values out = new Values(type, in.valid);
    ValueType from = in.type;
    ColumnKind to = type.kind();
    if (from.isNull()) {
      return new Values(type, new long[batch.words()]);
    }
    if (to.isInteger()) {
      long[] r = new long[n];
      for (int i = 0; i < n; i++) {
        if (in.isValid(i)) {
          r[i] = toInteger(in, i, to);
        }
      }
      out.longs = r;
    } else if (to.isFloat()) {
      double[] r = new double[n];
      for (int i = 0; i < n; i++) {
        if (in.isValid(i)) {
          r[i] = toFloat(in, i, to);
        }
      }
      out.doubles = r;
    } else if (to == ColumnKind.BOOL) {
      long[] r = new long[n];
      for (int i = 0; i < n; i++) {
        if (in.isValid(i)) {
          r[i] = toBool(in, i) ? 1 : 0;
        }
      }
      out.longs = r;
    } else if (to.isString() || to.isBinary()) {
      byte[][] r = new byte[n][];
      for (int i = 0; i < n; i++) {
        if (in.isValid(i)) {
          r[i] = from.isBytes() ? in.bytes[i] : text(in, i).getBytes(StandardCharsets.UTF_8);
        }
      }
      out.bytes = r;
    } else if (to.isTemporal() && from.kind().isTemporal()) {
      long[] r = new long[n];
      for (int i = 0; i < n; i++) { // only date32 -> date64 is implicit
        r[i] =
            from.kind() == ColumnKind.DATE32 && to == ColumnKind.DATE64
                ? in.longs[i] * 86_400_000L
                : in.longs[i];
      }
      out.longs = r;
    } else {
      throw new IllegalStateException("no cast from " + from.name() + " to " + type.name());
    }
    return out;
  }

  private long toInteger(Values in, int i, ColumnKind to) {
    ColumnKind from = in.type.kind();
    if (from.isFloat()) {
      double d = in.doubles[i];
      if (Double.isNaN(d) || Double.isInfinite(d)) {
        throw failure("the value " + d, to);
      }
      BigInteger truncated = new java.math.BigDecimal(d).toBigInteger(); // toward zero
      return checked(truncated, "the value " + d, to);
    } else if (from.isString()) {
      String s = new String(in.bytes[i], StandardCharsets.UTF_8);
      if (!INTEGER.matcher(s).matches()) {
        throw failure("the string '" + s + "'", to);
      }
      return checked(
          new BigInteger(s.startsWith("+") ? s.substring(1) : s), "the string '" + s + "'", to);
    } else if (from == ColumnKind.BOOL) {
      return in.longs[i];
    }
    long v = in.longs[i];
    BigInteger exact =
        from == ColumnKind.UINT64
            ? new BigInteger(Long.toUnsignedString(v))
            : BigInteger.valueOf(v);
    return checked(exact, "the value " + exact, to);
  }

  private long checked(BigInteger v, String what, ColumnKind to) {
    IntegerRange range = IntegerRange.of(to);
    if (v.compareTo(range.min()) < 0 || v.compareTo(range.max()) > 0) {
      throw failure(what, to);
    }
    return v.longValue(); // uint64 above 2^63 wraps to its raw bits
  }

  private double toFloat(Values in, int i, ColumnKind to) {
    ColumnKind from = in.type.kind();
    if (from.isFloat()) {
      return Numbers.round(to, in.doubles[i]);
    } else if (from.isString()) {
      String s = new String(in.bytes[i], StandardCharsets.UTF_8);
      if (!FLOAT.matcher(s).matches()) {
        throw failure("the string '" + s + "'", to);
      }
      String lower = s.toLowerCase(Locale.ROOT);
      boolean negative = lower.startsWith("-");
      String body = lower.replaceFirst("^[+-]", "");
      double d;
      if (body.startsWith("inf")) {
        d = Double.POSITIVE_INFINITY;
      } else if (body.equals("nan")) {
        d = Double.NaN;
      } else {
        // Parsed straight to the target precision: rounding once, as Rust's parse does.
        d =
            to == ColumnKind.FLOAT64
                ? Double.parseDouble(body)
                : Numbers.round(to, Float.parseFloat(body));
      }
      return negative ? Numbers.negate(d) : d;
    } else if (from == ColumnKind.BOOL) {
      return in.longs[i];
    } else if (to == ColumnKind.FLOAT32) {
      return Numbers.toFloat(from, in.longs[i]);
    }
    return Numbers.round(to, Numbers.toDouble(from, in.longs[i]));
  }

  private boolean toBool(Values in, int i) {
    ColumnKind from = in.type.kind();
    if (from.isFloat()) {
      return in.doubles[i] != 0.0; // NaN is true, -0.0 false
    } else if (from.isString()) {
      String s = new String(in.bytes[i], StandardCharsets.UTF_8);
      switch (s.trim().toLowerCase(Locale.ROOT)) {
        case "t", "tr", "tru", "true", "y", "ye", "yes", "on", "1":
          return true;
        case "f", "fa", "fal", "fals", "false", "n", "no", "of", "off", "0":
          return false;
        default:
          throw failure("the string '" + s + "'", ColumnKind.BOOL);
      }
    }
    return in.longs[i] != 0;
  }

  private String text(Values in, int i) {
    ColumnKind from = in.type.kind();
    if (from == ColumnKind.BOOL) {
      return in.longs[i] != 0 ? "true" : "false";
    }
    return Numbers.toString(from, in.longs[i]);
  }

  private FilterEvaluationException failure(String what, ColumnKind to) {
    return new FilterEvaluationException(
        "Cannot evaluate filter \""
            + filter
            + "\": "
            + sql
            + " cannot convert "
            + what
            + " to "
            + ValueType.of(to).name()
            + ". Lance fails on this filter too; cast to a type that holds every value");
  }
}
