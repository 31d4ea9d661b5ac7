package dev.lancelot.engine.file.repdef;

import dev.lancelot.engine.file.codec.DecodeException;

/**
 * Turns the canonical levels of one leaf column back into the validity and offsets of its
 * ancestors, layer by layer from the innermost outwards (the reverse of how a writer zips them).
 *
 * <p>The state is the layer about to be unravelled: entries whose definition level is at most
 * {@code validUpTo} are valid at that layer, and only entries whose level belongs to a list
 * already unravelled ({@code levelToRep(level) <= listsDone}) are seen. Unravelling a list
 * rewrites the levels in place, keeping one entry per list of that layer (and the entries of
 * outer special lists, still to be seen by outer layers), and decrements their repetition
 * levels.
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
  public record Offsets(int count, long[] offsets, byte[] bits, int nullCount) {}

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
    int n = 0;
    for (int i = 0; i < levels.size(); i++) {
      if (canonical.levelToRep(def[i]) <= listsDone) {
        n++;
      }
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
    int out = 0;
    int nulls = 0;
    for (int i = 0; i < size; i++) {
      int d = def[i];
      if (canonical.levelToRep(d) <= listsDone) {
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

  /** Skips the current struct layer (for leaves other than the one a struct's validity comes from). */
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
    long[] offsets = new long[size + 1];
    byte[] bits = new byte[(size + 8) / 8];
    int lists = 0;
    int nulls = 0;
    long current = 0;
    int w = 0;
    for (int i = 0; i < size; i++) {
      int r = rep[i];
      if (r == 0) {
        current++;
        continue;
      }
      int d = def[i];
      rep[w] = (short) (r - 1);
      def[w] = (short) d;
      w++;
      if (d > maxLevel) {
        continue; // a special entry of an outer list, not seen at this layer
      }
      offsets[lists] = current;
      if (d == nullLevel || d > upperNull) {
        nulls++;
      } else {
        bits[lists >>> 3] |= (byte) (1 << (lists & 7));
        if (d != emptyLevel) {
          current++; // the list's first entry
        }
      }
      lists++;
    }
    if (current != childCount) {
      throw DecodeException.corrupt("list levels describe " + current + " items but " + childCount + " were decoded");
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

  private void checkLayer(boolean list) {
    if (layer >= canonical.numLayers() || canonical.isList(layer) != list) {
      throw new IllegalStateException("Unravelling layer " + layer + " as a " + (list ? "list" : "struct")
          + " but the column's layers are " + canonical);
    }
  }
}
