package dev.lancelot.engine.internal.file.repdef;

import java.util.Arrays;

/**
 * Growable canonical repetition and definition levels of one leaf column within one batch. The
 * assembler rewrites them in place while unravelling lists (see {@link Unraveler}).
 */
public final class LevelBuffer {
  private static final short[] EMPTY = new short[0];
  private final boolean withRep;
  private final int initialCapacity;
  private short[] rep;
  private short[] def;
  private int size;

  /**
   * Levels for about {@code capacity} entries; the arrays are allocated on first use, at that size
   * or at the size {@link #reserve} asks for.
   */
  public LevelBuffer(boolean withRep, int capacity) {
    this.withRep = withRep;
    this.initialCapacity = Math.max(capacity, 16);
    this.rep = withRep ? EMPTY : null;
    this.def = EMPTY;
  }

  /**
   * Appends levels {@code [from, from + n)}; a null {@code rep} or {@code def} stands for zeros (no
   * lists in the page, or no nulls).
   */
  public void append(short[] repLevels, short[] defLevels, int from, int n) {
    ensure(size + n);
    if (withRep) {
      if (repLevels == null) {
        Arrays.fill(rep, size, size + n, (short) 0);
      } else {
        System.arraycopy(repLevels, from, rep, size, n);
      }
    }
    if (defLevels == null) {
      Arrays.fill(def, size, size + n, (short) 0);
    } else {
      System.arraycopy(defLevels, from, def, size, n);
    }
    size += n;
  }

  /** Makes room for {@code n} more entries at once (an estimate; appending grows as needed). */
  public void reserve(int n) {
    long needed = (long) size + n;
    if (needed > def.length && needed <= Integer.MAX_VALUE - 8) {
      resize((int) needed);
    }
  }

  private void ensure(int needed) {
    if (needed > def.length) {
      if (def.length == 0) {
        resize(Math.max(needed, initialCapacity));
        return;
      }
      resize((int) Math.min(Integer.MAX_VALUE - 8, Math.max((long) needed, 2L * def.length)));
    }
  }

  private void resize(int c) {
    if (size == 0) {
      def = new short[c];
      rep = withRep ? new short[c] : null;
    } else {
      def = Arrays.copyOf(def, c);
      if (withRep) {
        rep = Arrays.copyOf(rep, c);
      }
    }
  }

  public boolean withRep() {
    return withRep;
  }

  /** Repetition levels (null without lists); valid up to {@link #size()}. */
  public short[] rep() {
    return rep;
  }

  public short[] def() {
    return def;
  }

  public int size() {
    return size;
  }

  /** Keeps only the first {@code n} entries (after an in-place rewrite). */
  void truncate(int n) {
    size = n;
  }
}
