package dev.lancelot.engine.internal.index.scalar.btree;

import java.util.Arrays;
import java.util.List;

/**
 * A test on the values of one indexed column that a BTree answers exactly: the rows it selects
 * (TRUE rows in SQL's three-valued logic). Value tests never select NULL values. Each condition can
 * rule out whole pages from their lookup entry ({@link #mayMatch}) and tests single rows ({@link
 * #test}). Keys and bytes are compared as {@link ValueCodec} describes.
 */
public sealed interface Condition {
  /** False only if no row of the page can satisfy the condition. */
  boolean mayMatch(PageEntry page);

  /** Whether row {@code row} of {@code values} satisfies the condition. */
  boolean test(PageValues values, int row);

  /** Short text for explain output, e.g. {@code key in [3, 7]}. */
  String describe();

  /**
   * The part of {@code c} made of the leaves {@code kept} accepts, as a superset of its rows: an
   * AND keeps the terms that have such a part (none: null), an OR needs every term to have one
   * (else null), and a leaf is itself or null.
   */
  static Condition pruned(Condition c, java.util.function.Predicate<Condition> kept) {
    if (c instanceof AllOf all) {
      List<Condition> terms = new java.util.ArrayList<>();
      for (Condition t : all.terms()) {
        Condition k = pruned(t, kept);
        if (k != null) {
          terms.add(k);
        }
      }
      return terms.isEmpty() ? null : terms.size() == 1 ? terms.get(0) : new AllOf(terms);
    } else if (c instanceof AnyOf any) {
      List<Condition> terms = new java.util.ArrayList<>();
      for (Condition t : any.terms()) {
        Condition k = pruned(t, kept);
        if (k == null) {
          return null;
        }
        terms.add(k);
      }
      return new AnyOf(terms);
    }
    return kept.test(c) ? c : null;
  }

  /** Rows satisfying every condition (conditions on one column joined by AND). */
  record AllOf(List<Condition> terms) implements Condition {
    public AllOf {
      terms = List.copyOf(terms);
    }

    @Override
    public boolean mayMatch(PageEntry page) {
      for (Condition c : terms) {
        if (!c.mayMatch(page)) {
          return false;
        }
      }
      return true;
    }

    @Override
    public boolean test(PageValues values, int row) {
      for (Condition c : terms) {
        if (!c.test(values, row)) {
          return false;
        }
      }
      return true;
    }

    @Override
    public String describe() {
      return String.join(" and ", terms.stream().map(Condition::describe).toList());
    }
  }

  /** Rows satisfying at least one condition (conditions on one column joined by OR). */
  record AnyOf(List<Condition> terms) implements Condition {
    public AnyOf {
      terms = List.copyOf(terms);
    }

    @Override
    public boolean mayMatch(PageEntry page) {
      for (Condition c : terms) {
        if (c.mayMatch(page)) {
          return true;
        }
      }
      return false;
    }

    @Override
    public boolean test(PageValues values, int row) {
      for (Condition c : terms) {
        if (c.test(values, row)) {
          return true;
        }
      }
      return false;
    }

    @Override
    public String describe() {
      return "("
          + String.join(
              " or ",
              terms.stream()
                  .map(c -> c instanceof AllOf ? "(" + c.describe() + ")" : c.describe())
                  .toList())
          + ")";
    }
  }

  /** Every row, NULL or not. */
  record AllRows() implements Condition {
    @Override
    public boolean mayMatch(PageEntry page) {
      return true;
    }

    @Override
    public boolean test(PageValues values, int row) {
      return true;
    }

    @Override
    public String describe() {
      return "all rows";
    }
  }

  /**
   * Lists with an element {@code item} accepts (label-list indexes only: {@code array_has_any} and
   * the like). Not a per-value test: answered by {@link BitmapSegmentReader#searchLabels}.
   */
  record Element(Condition item) implements Condition {
    @Override
    public boolean mayMatch(PageEntry page) {
      return true;
    }

    @Override
    public boolean test(PageValues values, int row) {
      throw new UnsupportedOperationException("a list condition is answered by a label-list index");
    }

    @Override
    public String describe() {
      return "has an element " + item.describe();
    }
  }

  /**
   * Strings containing {@code part} (UTF-8; n-gram indexes only, from {@code contains(col,
   * 'part')}). Not a per-value test here: answered by the n-gram reader, as a superset.
   */
  record Substring(byte[] part) implements Condition {
    @Override
    public boolean mayMatch(PageEntry page) {
      return true;
    }

    @Override
    public boolean test(PageValues values, int row) {
      throw new UnsupportedOperationException(
          "a substring condition is answered by an n-gram index");
    }

    @Override
    public String describe() {
      return "contains '" + text(part) + "'";
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Substring s && Arrays.equals(s.part, part);
    }

    @Override
    public int hashCode() {
      return Arrays.hashCode(part);
    }

    @Override
    public String toString() {
      return describe();
    }
  }

  /** NULL values ({@code negated}: non-NULL values). */
  record Nulls(boolean negated) implements Condition {
    @Override
    public boolean mayMatch(PageEntry page) {
      return negated ? page.hasValues() : page.nullCount() > 0;
    }

    @Override
    public boolean test(PageValues values, int row) {
      return values.isNull(row) != negated;
    }

    @Override
    public String describe() {
      return negated ? "is not null" : "is null";
    }
  }

  /** Non-NULL keys in {@code [lo, hi]}, or with {@code outside} those not in it. */
  record KeyRange(long lo, long hi, boolean outside) implements Condition {
    public KeyRange {
      if (lo > hi) {
        throw new IllegalArgumentException("empty key range [" + lo + ", " + hi + "]");
      }
    }

    @Override
    public boolean mayMatch(PageEntry page) {
      if (!page.hasValues()) {
        return false;
      }
      long low = page.lowKey();
      long high = page.maxKey();
      return outside ? low < lo || high > hi : high >= lo && low <= hi;
    }

    @Override
    public boolean test(PageValues values, int row) {
      if (values.isNull(row)) {
        return false;
      }
      long k = values.key(row);
      return (k >= lo && k <= hi) != outside;
    }

    @Override
    public String describe() {
      return (outside ? "key not in [" : "key in [") + lo + ", " + hi + "]";
    }
  }

  /** Non-NULL keys equal to one of {@code keys}, or with {@code outside} equal to none of them. */
  record KeySet(long[] keys, boolean outside) implements Condition {
    public KeySet {
      keys = Arrays.stream(keys).distinct().sorted().toArray();
      if (keys.length == 0) {
        throw new IllegalArgumentException("a key set needs at least one key");
      }
    }

    @Override
    public boolean mayMatch(PageEntry page) {
      if (!page.hasValues()) {
        return false;
      }
      long low = page.lowKey();
      long high = page.maxKey();
      if (outside) {
        return low != high || Arrays.binarySearch(keys, low) < 0;
      }
      int at = Arrays.binarySearch(keys, low);
      int ceiling = at >= 0 ? at : -at - 1;
      return ceiling < keys.length && keys[ceiling] <= high;
    }

    @Override
    public boolean test(PageValues values, int row) {
      return !values.isNull(row) && (Arrays.binarySearch(keys, values.key(row)) >= 0) != outside;
    }

    @Override
    public String describe() {
      return (outside ? "key not in {" : "key in {")
          + Arrays.stream(keys)
              .mapToObj(Long::toString)
              .collect(java.util.stream.Collectors.joining(", "))
          + "}";
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof KeySet k && k.outside == outside && Arrays.equals(k.keys, keys);
    }

    @Override
    public int hashCode() {
      return Arrays.hashCode(keys) * 31 + Boolean.hashCode(outside);
    }

    @Override
    public String toString() {
      return "KeySet[" + describe() + "]";
    }
  }

  /**
   * Non-NULL byte strings between {@code lo} and {@code hi} (either null = unbounded; each bound
   * inclusive or not), compared unsigned; with {@code outside} those not between them.
   */
  record BytesRange(byte[] lo, boolean loInclusive, byte[] hi, boolean hiInclusive, boolean outside)
      implements Condition {
    public BytesRange {
      lo = lo == null ? null : lo.clone();
      hi = hi == null ? null : hi.clone();
    }

    @Override
    public boolean mayMatch(PageEntry page) {
      if (!page.hasValues()) {
        return false;
      }
      byte[] low = page.lowBytes();
      byte[] high = page.maxBytes();
      if (outside) {
        boolean lowInside = low == null ? lo == null : inside(low);
        return !lowInside || !inside(high);
      }
      boolean highReachesLo =
          lo == null || cmp(high, lo) > 0 || (loInclusive && cmp(high, lo) == 0);
      boolean lowBelowHi =
          hi == null || low == null || cmp(low, hi) < 0 || (hiInclusive && cmp(low, hi) == 0);
      return highReachesLo && lowBelowHi;
    }

    @Override
    public boolean test(PageValues values, int row) {
      return !values.isNull(row) && inside(values.bytes(row)) != outside;
    }

    private boolean inside(byte[] v) {
      if (lo != null) {
        int c = cmp(v, lo);
        if (c < 0 || (c == 0 && !loInclusive)) {
          return false;
        }
      }
      if (hi != null) {
        int c = cmp(v, hi);
        return c < 0 || (c == 0 && hiInclusive);
      }
      return true;
    }

    @Override
    public String describe() {
      return (outside ? "bytes not in " : "bytes in ")
          + (loInclusive ? "[" : "(")
          + text(lo)
          + ", "
          + text(hi)
          + (hiInclusive ? "]" : ")");
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof BytesRange b
          && b.loInclusive == loInclusive
          && b.hiInclusive == hiInclusive
          && b.outside == outside
          && Arrays.equals(b.lo, lo)
          && Arrays.equals(b.hi, hi);
    }

    @Override
    public int hashCode() {
      return Arrays.hashCode(lo) * 31 + Arrays.hashCode(hi);
    }

    @Override
    public String toString() {
      return "BytesRange[" + describe() + "]";
    }
  }

  /**
   * Non-NULL byte strings equal to one of {@code values}, or with {@code outside} to none of them.
   */
  record BytesSet(List<byte[]> values, boolean outside) implements Condition {
    public BytesSet {
      byte[][] sorted =
          values.stream().map(byte[]::clone).sorted(Arrays::compareUnsigned).toArray(byte[][]::new);
      values = List.of(sorted);
      if (values.isEmpty()) {
        throw new IllegalArgumentException("a set of byte strings needs at least one value");
      }
    }

    @Override
    public boolean mayMatch(PageEntry page) {
      if (!page.hasValues()) {
        return false;
      }
      byte[] low = page.lowBytes();
      byte[] high = page.maxBytes();
      if (outside) {
        return low == null || cmp(low, high) != 0 || !contains(low);
      }
      for (byte[] v : values) {
        if ((low == null || cmp(v, low) >= 0) && cmp(v, high) <= 0) {
          return true;
        }
      }
      return false;
    }

    @Override
    public boolean test(PageValues values, int row) {
      return !values.isNull(row) && contains(values.bytes(row)) != outside;
    }

    private boolean contains(byte[] v) {
      int lo = 0;
      int hi = values.size() - 1;
      while (lo <= hi) {
        int mid = (lo + hi) >>> 1;
        int c = cmp(values.get(mid), v);
        if (c == 0) {
          return true;
        } else if (c < 0) {
          lo = mid + 1;
        } else {
          hi = mid - 1;
        }
      }
      return false;
    }

    @Override
    public String describe() {
      return (outside ? "bytes not in {" : "bytes in {")
          + values.stream().map(Condition::text).collect(java.util.stream.Collectors.joining(", "))
          + "}";
    }

    @Override
    public boolean equals(Object o) {
      if (!(o instanceof BytesSet b) || b.outside != outside || b.values.size() != values.size()) {
        return false;
      }
      for (int i = 0; i < values.size(); i++) {
        if (!Arrays.equals(values.get(i), b.values.get(i))) {
          return false;
        }
      }
      return true;
    }

    @Override
    public int hashCode() {
      return values.size() * 31 + Boolean.hashCode(outside);
    }

    @Override
    public String toString() {
      return "BytesSet[" + describe() + "]";
    }
  }

  private static int cmp(byte[] a, byte[] b) {
    return Arrays.compareUnsigned(a, b);
  }

  /** Bytes as text for explain output: UTF-8 when printable, else hex. */
  private static String text(byte[] v) {
    if (v == null) {
      return "unbounded";
    }
    String s = new String(v, java.nio.charset.StandardCharsets.UTF_8);
    if (java.util.Arrays.equals(s.getBytes(java.nio.charset.StandardCharsets.UTF_8), v)
        && s.chars().noneMatch(Character::isISOControl)) {
      return "'" + s + "'";
    }
    StringBuilder sb = new StringBuilder("X'");
    for (byte b : v) {
      sb.append(String.format("%02X", b));
    }
    return sb.append('\'').toString();
  }
}
