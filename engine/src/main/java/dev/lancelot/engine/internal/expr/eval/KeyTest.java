package dev.lancelot.engine.internal.expr.eval;

import dev.lancelot.engine.expr.CompareOp;
import java.math.BigInteger;

/**
 * What {@code column op literal} means on a column's keys (see {@link Keys}): the same answer for
 * every non-NULL value, or a key range.
 */
sealed interface KeyTest {
  /** Every non-NULL value compares {@code value}. */
  record Always(boolean value) implements KeyTest {}

  /** Keys in {@code [lo, hi]} match (or, negated, those outside). */
  record Range(long lo, long hi, boolean negated) implements KeyTest {}

  /**
   * A comparison on an integer-valued column whose values are the integers in {@code [min, max]};
   * {@code flipTopBit} maps values to keys for uint64.
   */
  static KeyTest integral(
      CompareOp op, ExactNumber lit, BigInteger min, BigInteger max, boolean flipTopBit) {
    if (!lit.isFinite()) {
      boolean above = lit.infinity() > 0; // the literal is above (or below) every value
      return new Always(
          switch (op) {
            case EQ -> false;
            case NE -> true;
            case LT, LE -> above;
            case GT, GE -> !above;
          });
    }
    switch (op) {
      case EQ, NE -> {
        BigInteger value = lit.floor();
        boolean representable =
            lit.isInteger() && value.compareTo(min) >= 0 && value.compareTo(max) <= 0;
        if (!representable) {
          return new Always(op == CompareOp.NE);
        }
        long k = key(value, flipTopBit);
        return new Range(k, k, op == CompareOp.NE);
      }
      case LT, LE -> {
        // values v <= bound, where bound is the largest integer satisfying v op lit
        BigInteger bound = op == CompareOp.LE ? lit.floor() : lit.ceil().subtract(BigInteger.ONE);
        if (bound.compareTo(min) < 0) {
          return new Always(false);
        } else if (bound.compareTo(max) >= 0) {
          return new Always(true);
        }
        return new Range(key(min, flipTopBit), key(bound, flipTopBit), false);
      }
      default -> {
        // GT, GE: values v >= bound, the smallest integer satisfying v op lit
        BigInteger bound = op == CompareOp.GE ? lit.ceil() : lit.floor().add(BigInteger.ONE);
        if (bound.compareTo(max) > 0) {
          return new Always(false);
        } else if (bound.compareTo(min) <= 0) {
          return new Always(true);
        }
        return new Range(key(bound, flipTopBit), key(max, flipTopBit), false);
      }
    }
  }

  /** A comparison on a float column whose keys span all longs, against literal key {@code k}. */
  static KeyTest floating(CompareOp op, long k) {
    return switch (op) {
      case EQ -> new Range(k, k, false);
      case NE -> new Range(k, k, true);
      case LT -> k == Long.MIN_VALUE ? new Always(false) : new Range(Long.MIN_VALUE, k - 1, false);
      case LE -> new Range(Long.MIN_VALUE, k, false);
      case GT -> k == Long.MAX_VALUE ? new Always(false) : new Range(k + 1, Long.MAX_VALUE, false);
      case GE -> new Range(k, Long.MAX_VALUE, false);
    };
  }

  /** The key of an integer known to be in the column's range. */
  static long key(BigInteger value, boolean flipTopBit) {
    long raw = value.longValue(); // low 64 bits; exact for values in range
    return flipTopBit ? Keys.ofUnsigned64(raw) : raw;
  }
}
