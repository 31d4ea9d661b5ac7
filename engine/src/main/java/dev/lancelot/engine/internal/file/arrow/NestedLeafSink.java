package dev.lancelot.engine.internal.file.arrow;

import dev.lancelot.engine.internal.file.codec.DecodeException;
import dev.lancelot.engine.internal.file.codec.Values;
import dev.lancelot.engine.internal.file.repdef.CanonicalLevels;
import dev.lancelot.engine.internal.file.repdef.LevelBuffer;
import org.apache.arrow.vector.FieldVector;

/** The leaf of a nested field: items go to the leaf vector's sink, levels to a buffer. */
final class NestedLeafSink implements ColumnSink {
  private final ColumnSink values;
  private final CanonicalLevels scheme;
  private final LevelBuffer levels;

  /** Non-null for the items of a top-level list: its offsets are built as levels arrive. */
  private final DirectList direct;

  /** The last page scheme found equal to {@link #scheme}. */
  private CanonicalLevels lastScheme;

  NestedLeafSink(ColumnSink values, CanonicalLevels scheme, int capacity) {
    this.values = values;
    this.scheme = scheme;
    this.direct = DirectList.applies(scheme) ? new DirectList(capacity) : null;
    this.levels = direct == null ? new LevelBuffer(scheme.numLists() > 0, capacity) : null;
  }

  /**
   * The list built directly from the levels, or null when they are buffered in {@link #levels()}.
   */
  DirectList direct() {
    return direct;
  }

  CanonicalLevels scheme() {
    return scheme;
  }

  LevelBuffer levels() {
    return levels;
  }

  @Override
  public boolean nested() {
    return true;
  }

  @Override
  public void appendLevels(CanonicalLevels pageScheme, short[] rep, short[] def, int from, int n) {
    checkScheme(pageScheme);
    if (direct != null) {
      direct.levels(rep, def, from, n);
    } else {
      levels.append(rep, def, from, n);
    }
  }

  /**
   * Fails unless the page's scheme is the column's (pages hand over the same instance each time).
   */
  @SuppressWarnings("ReferenceEquality") // identity is the fast path; equals() decides
  private void checkScheme(CanonicalLevels pageScheme) {
    if (pageScheme != lastScheme) {
      if (!pageScheme.equals(scheme)) {
        throw DecodeException.corrupt(
            "page layers " + pageScheme + " do not match the column's nesting " + scheme);
      }
      lastScheme = pageScheme;
    }
  }

  @Override
  public boolean appendListRows(
      CanonicalLevels pageScheme,
      short[] def,
      int[] rowStarts,
      int[] rowItems,
      int firstStart,
      int endStart,
      int fromItem,
      int toItem) {
    if (direct == null) {
      return false;
    }
    checkScheme(pageScheme);
    direct.rows(def, rowStarts, rowItems, firstStart, endStart, fromItem, toItem);
    return true;
  }

  @Override
  public void reserveNested(int rows, int numLevels, int items) {
    if (direct != null) {
      direct.reserve(rows);
    } else {
      levels.reserve(numLevels);
    }
    values.reserve(items);
  }

  /** Appends {@code n} null items (the items of all-null pages). */
  @Override
  public void appendNulls(int n) {
    values.appendNulls(n);
  }

  @Override
  public void append(Values v, int from, int n, short[] defs, int defFrom) {
    values.append(v, from, n, defs, defFrom);
  }

  @Override
  public int size() {
    return values.size();
  }

  @Override
  public FieldVector finish() {
    return values.finish();
  }

  @Override
  public void abort() {
    values.abort();
  }
}
