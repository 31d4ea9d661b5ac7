package dev.lancelot.engine.internal.file.repdef;

import java.util.Arrays;

/**
 * The canonical definition levels of a nested leaf column: every layer gets the levels it could
 * need, whatever a given page uses. Innermost layer first; level 0 means valid; an item layer (the
 * leaf, or a struct) {@code k} has one level, {@code base(k)} = null; a list layer two, {@code
 * base(k)} = null list and {@code base(k) + 1} = empty list.
 *
 * <p>Example, {@code list<struct<x: int>>}, layers x, struct, list: 0 valid, 1 null x, 2 null
 * struct, 3 null list, 4 empty list. Entries at levels 3 and 4 are special (no item).
 */
public final class CanonicalLevels {
  private final boolean[] isList;
  private final int[] base;
  private final int[] levelToLayer;
  private final int[] levelsToRep;
  private final int firstListBase;
  private final int numLists;

  /**
   * {@code seenBelow[k]}: entries below this level are seen once {@code k} lists are unravelled.
   */
  private final int[] seenBelow;

  private CanonicalLevels(boolean[] isList) {
    this.isList = isList.clone();
    int n = isList.length;
    this.base = new int[n + 1];
    base[0] = 1;
    for (int k = 0; k < n; k++) {
      base[k + 1] = base[k] + (isList[k] ? 2 : 1);
    }
    int maxLevel = base[n] - 1;
    this.levelToLayer = new int[maxLevel + 1];
    this.levelsToRep = new int[maxLevel + 1];
    levelToLayer[0] = -1;
    int lists = 0;
    int first = Integer.MAX_VALUE;
    for (int k = 0; k < n; k++) {
      if (isList[k]) {
        lists++;
        first = Math.min(first, base[k]);
      }
      for (int l = base[k]; l < base[k + 1]; l++) {
        levelToLayer[l] = k;
        levelsToRep[l] = lists;
      }
    }
    this.numLists = lists;
    this.firstListBase = first;
    this.seenBelow = new int[lists + 1];
    for (int k = 0; k <= lists; k++) {
      int level = 0;
      while (level <= maxLevel && levelsToRep[level] <= k) {
        level++;
      }
      seenBelow[k] = level;
    }
  }

  /** The canonical scheme for layers of these kinds (innermost first; true = list). */
  public static CanonicalLevels of(boolean[] isList) {
    return new CanonicalLevels(isList);
  }

  public int numLayers() {
    return isList.length;
  }

  public boolean isList(int layer) {
    return isList[layer];
  }

  /** First (null) level of {@code layer}. */
  public int base(int layer) {
    return base[layer];
  }

  /** Highest canonical level. */
  public int maxLevel() {
    return base[isList.length] - 1;
  }

  /** Number of list layers (the repetition level that starts a row). */
  public int numLists() {
    return numLists;
  }

  /**
   * Whether an entry at {@code level} has an item behind it (it lies inside the innermost list).
   */
  public boolean visible(int level) {
    return level < firstListBase;
  }

  /**
   * The lowest level with an item behind it no more: entries below it lie inside the innermost list
   * (or every level, without lists). Same as {@link #visible}.
   */
  public int firstListBase() {
    return Math.min(firstListBase, maxLevel() + 1);
  }

  /**
   * Entries at levels below the returned one are seen once {@code listsDone} lists are unravelled
   * ({@code levelToRep(level) <= listsDone}, which grows with the level).
   */
  public int seenBelow(int listsDone) {
    return seenBelow[Math.min(listsDone, numLists)];
  }

  /** The number of lists that must be unravelled before an entry at {@code level} is seen. */
  public int levelToRep(int level) {
    return levelsToRep[level];
  }

  /** The layer a non-zero level belongs to. */
  public int layerOf(int level) {
    return levelToLayer[level];
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof CanonicalLevels c && Arrays.equals(c.isList, isList);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(isList);
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder();
    for (boolean l : isList) {
      sb.append(sb.length() == 0 ? "" : "/").append(l ? "list" : "item");
    }
    return sb.toString();
  }
}
