package dev.lancelot.engine.internal.file.write;

import dev.lancelot.engine.internal.file.repdef.CanonicalLevels;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;

/**
 * Shreds rows of a nested field into the canonical levels and items of one of its leaves, walking
 * from the top-level vector down the leaf's path (the reverse of {@link
 * dev.lancelot.engine.internal.file.repdef.Unraveler}):
 *
 * <ul>
 *   <li>a row starts with repetition level max rep; each list element after a list's first takes
 *       the number of lists inside that list (0 in the innermost list);
 *   <li>the first null met on the way down sets the definition level to that layer's null level
 *       (outer nulls win); below a null struct the walk goes on (struct children are still items),
 *       but a null, empty or hidden list ends it with a special entry (no item);
 *   <li>a leaf entry is an item, null when any ancestor or the leaf itself is null.
 * </ul>
 */
final class Shredder {
  private final int[] path;
  private final CanonicalLevels scheme;
  private final int[] repLevel;
  private final NestedColumnBuffer target;

  /**
   * @param path child position taken at each struct on the way to the leaf (list children are
   *     position 0), top-level first
   * @param target the leaf's buffer (its scheme gives the layers)
   */
  Shredder(int[] path, NestedColumnBuffer target) {
    this.path = path.clone();
    this.scheme = target.scheme();
    this.target = target;
    this.repLevel = new int[scheme.numLayers()];
    int lists = 0;
    for (int k = 0; k < scheme.numLayers(); k++) {
      // a list's later elements start only the lists inside it
      repLevel[k] = lists;
      lists += scheme.isList(k) ? 1 : 0;
    }
  }

  /** Shreds rows {@code [from, from + n)} of the top-level vector {@code top}. */
  void shred(FieldVector top, int from, int n) {
    for (int i = from; i < from + n; i++) {
      target.startRow();
      walk(top, 0, i, scheme.numLists(), 0);
    }
    target.flushRun();
  }

  private void walk(FieldVector v, int depth, int index, int rep, int def) {
    int layer = path.length - depth;
    if (depth == path.length) {
      target.item(v, index, rep, def != 0 ? def : v.isNull(index) ? 1 : 0);
      return;
    }
    if (v instanceof StructVector s) {
      int d = def == 0 && s.isNull(index) ? scheme.base(layer) : def;
      walk(child(s.getChildrenFromFields(), depth), depth + 1, index, rep, d);
      return;
    }
    if (def != 0) {
      target.special(rep, def);
      return;
    }
    if (v.isNull(index)) {
      target.special(rep, scheme.base(layer));
      return;
    }
    long start;
    long end;
    FieldVector child;
    if (v instanceof ListVector l) {
      start = l.getOffsetBuffer().getInt(4L * index);
      end = l.getOffsetBuffer().getInt(4L * index + 4);
      child = l.getDataVector();
    } else {
      LargeListVector l = (LargeListVector) v;
      start = l.getOffsetBuffer().getLong(8L * index);
      end = l.getOffsetBuffer().getLong(8L * index + 8);
      child = l.getDataVector();
    }
    if (start == end) {
      target.special(rep, scheme.base(layer) + 1);
      return;
    }
    for (long j = start; j < end; j++) {
      walk(child, depth + 1, (int) j, j == start ? rep : repLevel[layer], 0);
    }
  }

  private FieldVector child(List<FieldVector> children, int depth) {
    return children.get(path[depth]);
  }
}
