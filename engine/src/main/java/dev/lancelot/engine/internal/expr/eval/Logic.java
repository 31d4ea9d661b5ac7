package dev.lancelot.engine.internal.expr.eval;

import java.util.List;

/** Kleene logic on (TRUE, UNKNOWN) bitsets. */
public final class Logic {
  private Logic() {}

  /** The same answer for every row. */
  public enum Const implements Kernel {
    TRUE,
    FALSE,
    UNKNOWN;

    @Override
    public void evaluate(Batch batch, long[] isTrue, long[] isUnknown) {
      if (this != FALSE) {
        long[] target = this == TRUE ? isTrue : isUnknown;
        java.util.Arrays.fill(target, -1L);
        Bits.clearTail(target, batch.rows());
      }
    }
  }

  /** TRUE where TRUE was FALSE; UNKNOWN stays UNKNOWN. */
  public record Not(Kernel child) implements Kernel {
    @Override
    public void evaluate(Batch batch, long[] isTrue, long[] isUnknown) {
      child.evaluate(batch, isTrue, isUnknown);
      for (int w = 0; w < isTrue.length; w++) {
        isTrue[w] = ~(isTrue[w] | isUnknown[w]);
      }
      Bits.clearTail(isTrue, batch.rows());
    }
  }

  /** TRUE if all terms are TRUE; FALSE if any is FALSE; else UNKNOWN. */
  public record And(List<Kernel> terms) implements Kernel {
    @Override
    public void evaluate(Batch batch, long[] isTrue, long[] isUnknown) {
      terms.get(0).evaluate(batch, isTrue, isUnknown);
      long[] t = new long[isTrue.length];
      long[] u = new long[isTrue.length];
      for (int i = 1; i < terms.size(); i++) {
        java.util.Arrays.fill(t, 0L);
        java.util.Arrays.fill(u, 0L);
        terms.get(i).evaluate(batch, t, u);
        for (int w = 0; w < t.length; w++) {
          long notFalse = (isTrue[w] | isUnknown[w]) & (t[w] | u[w]);
          isTrue[w] &= t[w];
          isUnknown[w] = notFalse & ~isTrue[w];
        }
      }
    }
  }

  /** TRUE if any term is TRUE; FALSE if all are FALSE; else UNKNOWN. */
  public record Or(List<Kernel> terms) implements Kernel {
    @Override
    public void evaluate(Batch batch, long[] isTrue, long[] isUnknown) {
      terms.get(0).evaluate(batch, isTrue, isUnknown);
      long[] t = new long[isTrue.length];
      long[] u = new long[isTrue.length];
      for (int i = 1; i < terms.size(); i++) {
        java.util.Arrays.fill(t, 0L);
        java.util.Arrays.fill(u, 0L);
        terms.get(i).evaluate(batch, t, u);
        for (int w = 0; w < t.length; w++) {
          isTrue[w] |= t[w];
          isUnknown[w] = (isUnknown[w] | u[w]) & ~isTrue[w];
        }
      }
    }
  }
}
