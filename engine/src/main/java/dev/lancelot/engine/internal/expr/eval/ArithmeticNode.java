package dev.lancelot.engine.internal.expr.eval;

import dev.lancelot.engine.expr.ArithmeticOp;
import dev.lancelot.engine.expr.FilterEvaluationException;

/**
 * {@code left op right} on two values already cast to the result type (see {@link ValueBinder}), or
 * unary minus when {@code right} is null. Integer division or modulo by zero and an overflowing
 * integer division ({@code MIN / -1}) fail, as in Lance.
 */
record ArithmeticNode(
    ArithmeticOp op, ValueNode left, ValueNode right, ValueType type, String sql, String filter)
    implements ValueNode {

  @Override
  public Values evaluate(Batch batch) {
    int n = batch.rows();
    Values a = left.evaluate(batch);
    if (right == null) {
      return negate(a, n);
    }
    Values b = right.evaluate(batch);
    Values out = new Values(type, Values.and(a.valid, b.valid));
    ColumnKind kind = type.kind();
    if (type.isNull()) {
      return out;
    } else if (kind.isFloat()) {
      double[] x = a.doubles;
      double[] y = b.doubles;
      double[] r = new double[n];
      for (int i = 0; i < n; i++) {
        double v =
            switch (op) {
              case ADD -> x[i] + y[i];
              case SUBTRACT -> x[i] - y[i];
              case MULTIPLY -> x[i] * y[i];
              case DIVIDE -> x[i] / y[i];
              case MODULO -> x[i] % y[i];
            };
        r[i] = Numbers.nan(Numbers.round(kind, v), x[i], y[i]);
      }
      out.doubles = r;
      return out;
    }
    long[] x = a.longs;
    long[] y = b.longs;
    long[] r = new long[n];
    boolean signed = Numbers.isSigned(kind);
    for (int i = 0; i < n; i++) {
      if (!out.isValid(i)) {
        continue;
      }
      long v;
      switch (op) {
        case ADD -> v = x[i] + y[i];
        case SUBTRACT -> v = x[i] - y[i];
        case MULTIPLY -> v = x[i] * y[i];
        case DIVIDE -> {
          checkDivisor(y[i]);
          if (signed && y[i] == -1 && x[i] == Numbers.minSigned(kind)) {
            throw failure(
                "integer overflow in " + sql + ": " + x[i] + " / -1 does not fit " + type.name(),
                "Cast the dividend to a wider type, e.g. CAST(... AS BIGINT)");
          }
          v = kind == ColumnKind.UINT64 ? Long.divideUnsigned(x[i], y[i]) : x[i] / y[i];
        }
        default -> {
          checkDivisor(y[i]);
          v = kind == ColumnKind.UINT64 ? Long.remainderUnsigned(x[i], y[i]) : x[i] % y[i];
        }
      }
      r[i] = Numbers.wrap(kind, v);
    }
    out.longs = r;
    return out;
  }

  private Values negate(Values a, int n) {
    Values out = new Values(type, a.valid);
    if (type.isNull()) {
      return out;
    } else if (type.kind().isFloat()) {
      double[] r = new double[n];
      for (int i = 0; i < n; i++) {
        r[i] = Numbers.negate(a.doubles[i]);
      }
      out.doubles = r;
    } else {
      long[] r = new long[n];
      for (int i = 0; i < n; i++) {
        r[i] = Numbers.wrap(type.kind(), -a.longs[i]);
      }
      out.longs = r;
    }
    return out;
  }

  private void checkDivisor(long divisor) {
    if (divisor == 0) {
      throw failure(
          "division by zero in " + sql,
          "Lance fails on this filter too; make sure no row divides by zero, or divide floats"
              + " (x / 0.0 is Infinity or NaN)");
    }
  }

  private FilterEvaluationException failure(String reason, String fix) {
    return new FilterEvaluationException(
        "Cannot evaluate filter \"" + filter + "\": " + reason + ". " + fix + ".");
  }
}
