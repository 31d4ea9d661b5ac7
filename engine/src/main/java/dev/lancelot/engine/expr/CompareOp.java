package dev.lancelot.engine.expr;

/** A comparison operator. {@code <>} and {@code ==} are read as {@link #NE} and {@link #EQ}. */
public enum CompareOp {
  EQ("="),
  NE("!="),
  LT("<"),
  LE("<="),
  GT(">"),
  GE(">=");

  private final String sql;

  CompareOp(String sql) {
    this.sql = sql;
  }

  public String sql() {
    return sql;
  }

  /** The operator with its operands swapped: {@code 3 < x} is {@code x > 3}. */
  public CompareOp flip() {
    return switch (this) {
      case EQ, NE -> this;
      case LT -> GT;
      case LE -> GE;
      case GT -> LT;
      case GE -> LE;
    };
  }

  /** The complement for non-null operands: {@code NOT (x < 3)} is {@code x >= 3}. */
  public CompareOp negate() {
    return switch (this) {
      case EQ -> NE;
      case NE -> EQ;
      case LT -> GE;
      case LE -> GT;
      case GT -> LE;
      case GE -> LT;
    };
  }

  /** Whether this operator holds for operands whose comparison gave {@code cmp} (sign only). */
  public boolean test(int cmp) {
    return switch (this) {
      case EQ -> cmp == 0;
      case NE -> cmp != 0;
      case LT -> cmp < 0;
      case LE -> cmp <= 0;
      case GT -> cmp > 0;
      case GE -> cmp >= 0;
    };
  }
}
