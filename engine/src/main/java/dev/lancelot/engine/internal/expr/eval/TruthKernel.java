package dev.lancelot.engine.internal.expr.eval;

import dev.lancelot.engine.expr.TruthTest;

/** {@code condition IS [NOT] TRUE|FALSE|NULL}: never UNKNOWN. */
record TruthKernel(Kernel condition, TruthTest.Truth truth, boolean negated) implements Kernel {
  @Override
  public void evaluate(Batch batch, long[] isTrue, long[] isUnknown) {
    long[] t = new long[isTrue.length];
    long[] u = new long[isTrue.length];
    condition.evaluate(batch, t, u);
    for (int w = 0; w < isTrue.length; w++) {
      long hit =
          switch (truth) {
            case TRUE -> t[w];
            case FALSE -> ~(t[w] | u[w]);
            case NULL -> u[w];
          };
      isTrue[w] = negated ? ~hit : hit;
    }
    Bits.clearTail(isTrue, batch.rows());
  }

  @Override
  public String toString() {
    return "(" + condition + ") IS " + (negated ? "NOT " : "") + truth;
  }
}
