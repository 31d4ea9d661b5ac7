package dev.lancelot.engine.internal.index.scalar.btree;

/**
 * One row of page_lookup.lance: where a page's values start and end. A NULL {@code min} means the
 * page begins with NULLs, so its smallest non-NULL value is unknown (treated as unbounded below); a
 * NULL {@code max} means the page holds only NULLs. Values are keys or bytes as {@link ValueCodec}
 * says for the column kind (the unused form is 0 / null).
 */
public record PageEntry(
    int page,
    int nullCount,
    boolean minNull,
    boolean maxNull,
    long minKey,
    long maxKey,
    byte[] minBytes,
    byte[] maxBytes) {

  /** Whether the page holds at least one non-NULL value. */
  public boolean hasValues() {
    return !maxNull;
  }

  /** Lower bound of the page's non-NULL keys. */
  public long lowKey() {
    return minNull ? Long.MIN_VALUE : minKey;
  }

  /** Lower bound of the page's non-NULL bytes; null when unbounded. */
  public byte[] lowBytes() {
    return minNull ? null : minBytes;
  }
}
