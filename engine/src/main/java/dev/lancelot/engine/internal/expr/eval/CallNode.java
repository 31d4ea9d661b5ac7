package dev.lancelot.engine.internal.expr.eval;

import dev.lancelot.engine.expr.FilterEvaluationException;
import dev.lancelot.engine.expr.FilterFunction;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;

/**
 * A call of a {@link FilterFunction} on bound arguments; NULL in any argument gives NULL. String
 * functions work on UTF-8 and count characters as code points, as Lance (DataFusion) does.
 */
record CallNode(
    FilterFunction function, List<ValueNode> arguments, ValueType type, String sql, String filter)
    implements ValueNode {

  @Override
  public Values evaluate(Batch batch) {
    int n = batch.rows();
    Values a = arguments.get(0).evaluate(batch);
    Values b = arguments.size() > 1 ? arguments.get(1).evaluate(batch) : null;
    Values out = new Values(type, b == null ? a.valid : Values.and(a.valid, b.valid));
    if (a.type.isNull() || (b != null && b.type.isNull())) {
      return new Values(type, new long[batch.words()]);
    }
    switch (function) {
      case LOWER, UPPER -> {
        byte[][] r = new byte[n][];
        for (int i = 0; i < n; i++) {
          if (out.isValid(i)) {
            String s = new String(a.bytes[i], StandardCharsets.UTF_8);
            s =
                function == FilterFunction.LOWER
                    ? s.toLowerCase(Locale.ROOT)
                    : s.toUpperCase(Locale.ROOT);
            r[i] = s.getBytes(StandardCharsets.UTF_8);
          }
        }
        out.bytes = r;
      }
      case STARTS_WITH, ENDS_WITH, CONTAINS -> {
        long[] r = new long[n];
        for (int i = 0; i < n; i++) {
          if (out.isValid(i)) {
            r[i] = test(a.bytes[i], b.bytes[i]) ? 1 : 0;
          }
        }
        out.longs = r;
      }
      case LENGTH, CHAR_LENGTH, CHARACTER_LENGTH, OCTET_LENGTH -> {
        long[] r = new long[n];
        for (int i = 0; i < n; i++) {
          if (out.isValid(i)) {
            r[i] =
                function == FilterFunction.OCTET_LENGTH
                    ? a.bytes[i].length
                    : codePoints(a.bytes[i]);
          }
        }
        out.longs = r;
      }
      case ABS -> abs(a, out, n);
      default -> throw new IllegalStateException("unknown function " + function);
    }
    return out;
  }

  private boolean test(byte[] s, byte[] part) {
    return switch (function) {
      case STARTS_WITH -> regionEquals(s, 0, part);
      case ENDS_WITH -> s.length >= part.length && regionEquals(s, s.length - part.length, part);
      default -> indexOf(s, part) >= 0;
    };
  }

  private void abs(Values a, Values out, int n) {
    ColumnKind kind = type.kind();
    if (kind.isFloat()) {
      double[] r = new double[n];
      for (int i = 0; i < n; i++) {
        r[i] = Numbers.abs(a.doubles[i]);
      }
      out.doubles = r;
      return;
    }
    long[] r = new long[n];
    boolean signed = Numbers.isSigned(kind);
    for (int i = 0; i < n; i++) {
      long v = a.longs[i];
      if (signed && out.isValid(i) && v == Numbers.minSigned(kind)) {
        throw new FilterEvaluationException(
            "Cannot evaluate filter \""
                + filter
                + "\": "
                + sql
                + " overflows: abs("
                + v
                + ") does not fit "
                + type.name()
                + ". Lance fails on this filter too; cast the argument to a wider type first,"
                + " e.g. abs(CAST(x AS BIGINT))");
      }
      r[i] = signed && v < 0 ? -v : v;
    }
    out.longs = r;
  }

  private static boolean regionEquals(byte[] s, int from, byte[] part) {
    if (from < 0 || from + part.length > s.length) {
      return false;
    }
    for (int j = 0; j < part.length; j++) {
      if (s[from + j] != part[j]) {
        return false;
      }
    }
    return true;
  }

  private static int indexOf(byte[] s, byte[] part) {
    for (int i = 0; i + part.length <= s.length; i++) {
      if (regionEquals(s, i, part)) {
        return i;
      }
    }
    return -1;
  }

  /** Characters of valid UTF-8: every byte that is not a continuation byte starts one. */
  private static int codePoints(byte[] utf8) {
    int count = 0;
    for (byte b : utf8) {
      if ((b & 0xC0) != 0x80) {
        count++;
      }
    }
    return count;
  }
}
