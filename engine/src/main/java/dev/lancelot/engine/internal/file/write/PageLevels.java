package dev.lancelot.engine.internal.file.write;

import dev.lancelot.engine.internal.file.proto.Encodings21Protos.RepDefLayer;
import dev.lancelot.engine.internal.file.repdef.CanonicalLevels;
import dev.lancelot.engine.internal.file.repdef.RepDefLayers;
import java.util.ArrayList;
import java.util.List;

/**
 * The repetition/definition levels of one page as they are stored: the page's layers (only the
 * nullability and emptiness its rows need, as Lance does), and its levels in that page's numbering
 * (see {@link RepDefLayers}). For a flat column a level entry is a row and an item.
 *
 * @param layers innermost first
 * @param rep repetition levels, null without lists
 * @param def definition levels, null when every entry is a valid item
 * @param count level entries
 * @param rows rows of the page
 * @param itemLevel level index of each visible entry (item), null when entries are items
 * @param maxRep repetition level starting a row
 * @param maxVisibleDef highest definition level of an entry with an item
 */
record PageLevels(
    List<RepDefLayer> layers,
    short[] rep,
    short[] def,
    int count,
    int rows,
    int[] itemLevel,
    int maxRep,
    int maxVisibleDef) {

  /** A flat column's page: one entry per row, null rows at level 1. */
  static PageLevels flat(Validity validity) {
    int n = validity.size();
    if (validity.nullCount() == 0) {
      return new PageLevels(
          List.of(RepDefLayer.REPDEF_ALL_VALID_ITEM), null, null, n, n, null, 0, 0);
    }
    short[] def = new short[n];
    for (int i = 0; i < n; i++) {
      def[i] = (short) (validity.isNull(i) ? 1 : 0);
    }
    return new PageLevels(List.of(RepDefLayer.REPDEF_NULLABLE_ITEM), null, def, n, n, null, 0, 1);
  }

  /**
   * The page form of canonical levels {@code [from, to)} (covering {@code rows} whole rows): the
   * layers get only the null / empty levels that occur.
   */
  static PageLevels fromCanonical(
      CanonicalLevels scheme, short[] rep, short[] def, int from, int to, int rows) {
    int layersCount = scheme.numLayers();
    boolean[] nulls = new boolean[layersCount];
    boolean[] empties = new boolean[layersCount];
    int items = 0;
    for (int i = from; i < to; i++) {
      int d = def[i];
      if (scheme.visible(d)) {
        items++;
      }
      if (d != 0) {
        int layer = scheme.layerOf(d);
        if (d == scheme.base(layer)) {
          nulls[layer] = true;
        } else {
          empties[layer] = true;
        }
      }
    }
    List<RepDefLayer> layers = new ArrayList<>(layersCount);
    for (int k = 0; k < layersCount; k++) {
      if (!scheme.isList(k)) {
        layers.add(nulls[k] ? RepDefLayer.REPDEF_NULLABLE_ITEM : RepDefLayer.REPDEF_ALL_VALID_ITEM);
      } else if (nulls[k] && empties[k]) {
        layers.add(RepDefLayer.REPDEF_NULL_AND_EMPTY_LIST);
      } else if (nulls[k]) {
        layers.add(RepDefLayer.REPDEF_NULLABLE_LIST);
      } else if (empties[k]) {
        layers.add(RepDefLayer.REPDEF_EMPTYABLE_LIST);
      } else {
        layers.add(RepDefLayer.REPDEF_ALL_VALID_LIST);
      }
    }
    RepDefLayers page = RepDefLayers.of(layers);
    short[] toPage = new short[scheme.maxLevel() + 1];
    for (int level = 1; level <= page.maxDef(); level++) {
      toPage[page.toCanonical(level)] = (short) level;
    }
    int count = to - from;
    short[] pageDef = null;
    if (page.maxDef() > 0) {
      pageDef = new short[count];
      for (int i = 0; i < count; i++) {
        pageDef[i] = toPage[def[from + i]];
      }
    }
    short[] pageRep = null;
    if (scheme.numLists() > 0) {
      pageRep = java.util.Arrays.copyOfRange(rep, from, to);
    }
    int[] itemLevel = new int[items];
    int k = 0;
    for (int i = from; i < to; i++) {
      if (scheme.visible(def[i])) {
        itemLevel[k++] = i - from;
      }
    }
    return new PageLevels(
        List.copyOf(layers),
        pageRep,
        pageDef,
        count,
        rows,
        itemLevel,
        page.maxRep(),
        page.maxVisibleDef());
  }

  /** Items (visible entries) of the page. */
  int itemCount() {
    return itemLevel == null ? count : itemLevel.length;
  }

  /** Whether level entry {@code i} has an item. */
  boolean visible(int i) {
    return def == null || def[i] <= maxVisibleDef;
  }

  /** The level entry just after item {@code item}'s. */
  int levelAfterItem(int item) {
    return itemLevel == null ? item + 1 : itemLevel[item] + 1;
  }

  /** Whether the page has lists or more than one layer. */
  boolean nested() {
    return layers.size() > 1 || rep != null;
  }
}
