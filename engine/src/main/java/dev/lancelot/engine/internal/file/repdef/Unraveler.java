package dev.lancelot.engine.internal.file.repdef;

import dev.lancelot.engine.internal.file.codec.DecodeException;

/**
 * Turns the canonical levels of one leaf column back into the validity and offsets of its
 * ancestors, layer by layer from the innermost outwards (the reverse of how a writer zips them).
 *
 * <p>The state is the layer about to be unravelled: entries whose definition level is at most
 * {@code validUpTo} are valid at that layer, and only entries whose level belongs to a list already
 * unravelled ({@code levelToRep(level) <= listsDone}) are seen. Unravelling a list rewrites the
 * levels in place, keeping one entry per list of that layer (and the entries of outer special
 * lists, still to be seen by outer layers), and decrements their repetition levels.
 */
public final class Unraveler {
  private final LevelBuffer levels;
  private final CanonicalLevels canonical;
  private int layer;
  private int validUpTo;
  private int listsDone;

  /** Validity of one layer: one bit per entry (1 = valid, LSB first) and the null count. */
  public record Validity(int count, byte[] bits, int nullCount) {}

  /** Offsets and validity of one list layer: {@code count + 1} offsets. */
  public record Offsets(int count, int[] offsets, byte[] bits, int nullCount) {}

  public Unraveler(LevelBuffer levels, CanonicalLevels canonical) {
    this.levels = levels;
    this.canonical = canonical;
  }

  public int layer() {
    return layer;
  }

  /** Moves past the leaf layer, whose validity the leaf's values carry already. */
  public void skipLeaf() {
    checkLayer(false);
    layer++;
    validUpTo += 1;
  }

  /** Number of entries visible at the current (item) layer. */
  public int countItems() {
    short[] def = levels.def();
    int size = levels.size();
    int seenBelow = canonical.seenBelow(listsDone);
    int n = 0;
    for (int i = 0; i < size; i++) {
      n += def[i] < seenBelow ? 1 : 0;
    }
    return n;
  }

  /** The validity of the current struct layer, and moves past it. */
  public Validity structValidity() {
    checkLayer(false);
    short[] def = levels.def();
    int size = levels.size();
    int count = countItems();
    byte[] bits = new byte[(count + 7) / 8];
    int seenBelow = canonical.seenBelow(listsDone);
    int out = 0;
    int nulls = 0;
    for (int i = 0; i < size; i++) {
      int d = def[i];
      if (d < seenBelow) {
        if (d <= validUpTo) {
          bits[out >>> 3] |= (byte) (1 << (out & 7));
        } else {
          nulls++;
        }
        out++;
      }
    }
    layer++;
    validUpTo += 1;
    return new Validity(count, bits, nulls);
  }

  /**
   * Skips the current struct layer (for leaves other than the one a struct's validity comes from).
   */
  public void skipStruct() {
    checkLayer(false);
    layer++;
    validUpTo += 1;
  }

  /**
   * The offsets and validity of the current list layer, and moves past it. {@code childCount} is
   * the number of entries of the child layer; the last offset must equal it.
   */
  public Offsets listOffsets(int childCount) {
    checkLayer(true);
    if (!levels.withRep()) {
      throw DecodeException.corrupt("list layer without repetition levels");
    }
    int nullLevel = canonical.base(layer);
    int emptyLevel = nullLevel + 1;
    int upperNull = emptyLevel;
    int maxLevel = emptyLevel;
    for (int k = layer + 1; k < canonical.numLayers() && !canonical.isList(k); k++) {
      maxLevel++;
    }
    short[] rep = levels.rep();
    short[] def = levels.def();
    int size = levels.size();
    // entries with a repetition level start a list of this layer or a special entry of an outer one
    int starts = 0;
    for (int i = 0; i < size; i++) {
      starts += rep[i] != 0 ? 1 : 0;
    }
    // the outermost layer's levels are not looked at again: no need to rewrite them
    boolean rewrite = layer + 1 < canonical.numLayers();
    int[] offsets = new int[starts + 1];
    byte[] valid = new byte[starts + 1];
    int lists = 0;
    int current = 0;
    int w = 0;
    // Branch-free (row lengths are unpredictable): every entry stores at the next free slot, and
    // only the counters decide what is kept. An entry continuing a list (rep 0) adds an item; one
    // with a repetition level starts a list of this layer (def up to maxLevel: null, empty or
    // with a first item) or is a special entry of an outer list (def above maxLevel).
    for (int i = 0; i < size; i++) {
      int r = rep[i];
      int d = def[i];
      if (rewrite) {
        rep[w] = (short) (r - 1);
        def[w] = (short) d;
      }
      int start = 1 - isZero(r);
      w += start;
      int seen = start & (1 - below(maxLevel, d));
      int isNull = isZero(d - nullLevel) | below(upperNull, d);
      int firstItem = seen & (1 - isNull) & (1 - isZero(d - emptyLevel));
      offsets[lists] = current;
      valid[lists] = (byte) (1 - isNull);
      lists += seen;
      current += (1 - start) | firstItem;
    }
    byte[] bits = new byte[(lists + 8) / 8];
    int nulls = 0;
    for (int j = 0; j < lists; j++) {
      bits[j >>> 3] |= (byte) (valid[j] << (j & 7));
      nulls += 1 - valid[j];
    }
    if (current != childCount) {
      throw DecodeException.corrupt(
          "list levels describe " + current + " items but " + childCount + " were decoded");
    }
    offsets[lists] = current;
    levels.truncate(w);
    layer++;
    validUpTo += 2;
    listsDone++;
    return new Offsets(lists, offsets, bits, nulls);
  }

  /** Skips the current list layer (same rewrite, results dropped). */
  public void skipList(int childCount) {
    listOffsets(childCount);
  }

  /** 1 if {@code x == 0}, else 0, without a branch. */
  private static int isZero(int x) {
    return ((x - 1) & ~x) >>> 31;
  }

  /** 1 if {@code a < b}, else 0, without a branch (for small non-negative levels). */
  private static int below(int a, int b) {
    return (a - b) >>> 31;
  }

  private void checkLayer(boolean list) {
    if (layer >= canonical.numLayers() || canonical.isList(layer) != list) {
      throw new IllegalStateException(
          "Unravelling layer "
              + layer
              + " as a "
              + (list ? "list" : "struct")
              + " but the column's layers are "
              + canonical);
    }
  }
}
