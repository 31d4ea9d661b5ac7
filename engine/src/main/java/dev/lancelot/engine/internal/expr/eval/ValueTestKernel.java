package dev.lancelot.engine.internal.expr.eval;

/**
 * Row tests on a computed value: {@code IS [NOT] NULL} (never UNKNOWN), {@code [NOT] LIKE} / {@code
 * ILIKE} on strings, or a bool value used as a condition; the latter two are UNKNOWN on NULL.
 */
record ValueTestKernel(ValueNode value, Test test, LikePattern like, java.util.regex.Pattern ilike)
    implements Kernel {

  /** Which test. NOT LIKE wraps a LIKE test in {@link Logic.Not}. */
  enum Test {
    IS_NULL,
    IS_NOT_NULL,
    LIKE,
    ILIKE,
    BOOL
  }

  @Override
  public void evaluate(Batch batch, long[] isTrue, long[] isUnknown) {
    Values v = value.evaluate(batch);
    int n = batch.rows();
    if (test == Test.IS_NULL || test == Test.IS_NOT_NULL) {
      for (int w = 0; w < isTrue.length; w++) {
        isTrue[w] = test == Test.IS_NULL ? ~v.valid[w] : v.valid[w];
      }
      Bits.clearTail(isTrue, n);
      return;
    }
    for (int i = 0; i < n; i++) {
      if (v.isValid(i) && matches(v, i)) {
        isTrue[i >>> 6] |= 1L << i;
      }
    }
    for (int w = 0; w < isUnknown.length; w++) {
      isUnknown[w] = ~v.valid[w];
    }
    Bits.clearTail(isUnknown, n);
  }

  @Override
  public String toString() {
    return switch (test) {
      case IS_NULL -> value.sql() + " IS NULL";
      case IS_NOT_NULL -> value.sql() + " IS NOT NULL";
      case LIKE -> value.sql() + " LIKE ...";
      case ILIKE -> value.sql() + " ILIKE ...";
      case BOOL -> value.sql();
    };
  }

  private boolean matches(Values v, int i) {
    return switch (test) {
      case LIKE -> like.matches(v.bytes[i], v.bytes[i].length);
      case ILIKE ->
          ilike.matcher(new String(v.bytes[i], java.nio.charset.StandardCharsets.UTF_8)).matches();
      default -> v.longs[i] != 0;
    };
  }
}
