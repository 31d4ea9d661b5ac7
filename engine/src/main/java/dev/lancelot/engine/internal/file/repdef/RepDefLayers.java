package dev.lancelot.engine.internal.file.repdef;

import dev.lancelot.engine.internal.file.codec.DecodeException;
import dev.lancelot.engine.internal.file.proto.Encodings21Protos.RepDefLayer;
import java.util.List;

/**
 * How one page interprets its repetition and definition levels (its {@code layers}), and the
 * translation of its definition levels into the <em>canonical</em> levels every reader of a column
 * uses, whatever the page.
 *
 * <p>Lance (2.1+) describes a leaf column's nesting as layers, innermost first: the leaf item, then
 * one layer per struct or list ancestor up to (not including) the top level. Levels:
 *
 * <ul>
 *   <li>Repetition: one per list layer; an entry's repetition level is the number of the outermost
 *       list that starts at it, counted from the innermost list (1) to the outermost (max rep), or
 *       0 when it continues the current innermost list. A row starts at every max-rep entry.
 *   <li>Definition: 0 means "valid item"; then, from the innermost layer outwards, each layer takes
 *       the next levels it needs: a nullable item/struct layer one (null), a nullable list one
 *       (null), an emptyable list one (empty), a list with both two (null, then empty), all-valid
 *       layers none. An entry whose level belongs to a list layer (or to a struct outside a list)
 *       is a "special" entry: a null or empty list, or a list hidden by a null struct, with no item
 *       behind it.
 * </ul>
 *
 * Pages of one column may differ in which layers are nullable, so definition levels are mapped to a
 * canonical scheme that gives every item layer one level and every list layer two ({@link
 * CanonicalLevels}).
 */
public final class RepDefLayers {
  private final List<RepDefLayer> layers;
  private final boolean[] isList;
  private final int maxRep;
  private final int maxDef;
  private final short[] toCanonical;
  private final int maxVisibleDef;
  private final CanonicalLevels canonical;

  private RepDefLayers(List<RepDefLayer> layers) {
    this.layers = List.copyOf(layers);
    int n = layers.size();
    this.isList = new boolean[n];
    int rep = 0;
    int def = 0;
    for (int k = 0; k < n; k++) {
      RepDefLayer l = layers.get(k);
      isList[k] =
          switch (l) {
            case REPDEF_ALL_VALID_ITEM, REPDEF_NULLABLE_ITEM -> false;
            case REPDEF_ALL_VALID_LIST,
                REPDEF_NULLABLE_LIST,
                REPDEF_EMPTYABLE_LIST,
                REPDEF_NULL_AND_EMPTY_LIST ->
                true;
            default -> throw DecodeException.corrupt("unknown rep/def layer " + l);
          };
      rep += isList[k] ? 1 : 0;
      def += width(l);
    }
    this.maxRep = rep;
    this.maxDef = def;
    this.canonical = CanonicalLevels.of(isList);
    this.toCanonical = new short[def + 1];
    int level = 1;
    int visible = -1;
    for (int k = 0; k < n; k++) {
      RepDefLayer l = layers.get(k);
      if (isList[k] && visible < 0) {
        visible = level - 1;
      }
      int base = canonical.base(k);
      switch (l) {
        case REPDEF_NULLABLE_ITEM, REPDEF_NULLABLE_LIST -> toCanonical[level++] = (short) base;
        case REPDEF_EMPTYABLE_LIST -> toCanonical[level++] = (short) (base + 1);
        case REPDEF_NULL_AND_EMPTY_LIST -> {
          toCanonical[level++] = (short) base;
          toCanonical[level++] = (short) (base + 1);
        }
        default -> {
          // all-valid layers take no level
        }
      }
    }
    this.maxVisibleDef = visible < 0 ? def : visible;
  }

  /** The layers of a page (innermost first); fails on an empty or unknown layer list. */
  public static RepDefLayers of(List<RepDefLayer> layers) {
    if (layers.isEmpty()) {
      throw DecodeException.corrupt("page without rep/def layers");
    }
    return new RepDefLayers(layers);
  }

  private static int width(RepDefLayer l) {
    return switch (l) {
      case REPDEF_NULLABLE_ITEM, REPDEF_NULLABLE_LIST, REPDEF_EMPTYABLE_LIST -> 1;
      case REPDEF_NULL_AND_EMPTY_LIST -> 2;
      default -> 0;
    };
  }

  public List<RepDefLayer> layers() {
    return layers;
  }

  /**
   * Whether the levels mean what one item layer's would: no lists, and at most one layer that can
   * be null (all-valid layers take no definition level). Lance writes a nullable top-level blob v2
   * column's descriptors with an all-valid item layer under the nullable struct layer.
   */
  public boolean flat() {
    if (maxRep > 0) {
      return false;
    }
    int nullable = 0;
    for (RepDefLayer l : layers) {
      if (l != RepDefLayer.REPDEF_ALL_VALID_ITEM && l != RepDefLayer.REPDEF_NULLABLE_ITEM) {
        return false;
      }
      nullable += l == RepDefLayer.REPDEF_NULLABLE_ITEM ? 1 : 0;
    }
    return nullable <= 1;
  }

  /** Whether the page belongs to a nested column (more than one layer, or lists). */
  public boolean nested() {
    return layers.size() > 1 || maxRep > 0;
  }

  /** Number of list layers: the repetition level that starts a row (0 without lists). */
  public int maxRep() {
    return maxRep;
  }

  /** Highest definition level this page can hold. */
  public int maxDef() {
    return maxDef;
  }

  /**
   * Highest page definition level of an entry that has an item (value) behind it: the levels of the
   * layers inside the innermost list. Entries above it are special (null/empty lists).
   */
  public int maxVisibleDef() {
    return maxVisibleDef;
  }

  /** The canonical scheme of a column with this page's nesting. */
  public CanonicalLevels canonical() {
    return canonical;
  }

  /** Canonical definition level of page level {@code def}. */
  public short toCanonical(int def) {
    if (def < 0 || def >= toCanonical.length) {
      throw DecodeException.corrupt(
          "definition level " + def + " above the page's maximum " + maxDef);
    }
    return toCanonical[def];
  }

  /** Translates page definition levels in place to canonical ones. */
  public void toCanonical(short[] defs, int from, int n) {
    for (int i = from; i < from + n; i++) {
      int d = defs[i];
      if (d < 0 || d >= toCanonical.length) {
        throw DecodeException.corrupt(
            "definition level " + d + " above the page's maximum " + maxDef);
      }
      defs[i] = toCanonical[d];
    }
  }

  @Override
  public String toString() {
    return layers.toString();
  }
}
