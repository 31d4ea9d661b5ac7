package dev.lancelot.engine.internal.file.arrow;

import dev.lancelot.engine.internal.file.codec.DecodeException;
import dev.lancelot.engine.internal.file.repdef.CanonicalLevels;
import dev.lancelot.engine.internal.file.repdef.Unraveler;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * A top-level struct or (large) list field (packed structs inside it are leaves, see {@link
 * PackedStructSink}): its leaves' values are decoded straight into the leaf vectors of the field's
 * vector tree, their levels are buffered, and {@link #finish()} builds the validity and offsets of
 * every struct and list above them.
 *
 * <p>Assembly goes bottom-up. A struct's validity, and a list's offsets and validity, come from the
 * levels of the first leaf below it (every leaf below a node carries the same levels for the node
 * and its ancestors), unravelled with {@link Unraveler}; each leaf's levels are therefore
 * unravelled only up to the highest node it is the first leaf of.
 */
final class NestedFieldSink implements FieldSink {
  private final FieldVector root;
  private final BufferAllocator allocator;
  private final List<NestedLeafSink> leaves = new ArrayList<>();
  private final LeafSinks leafSinks;

  NestedFieldSink(
      Field field,
      BufferAllocator allocator,
      int capacity,
      PackedMembers members,
      LeafSinks leafSinks) {
    this.allocator = allocator;
    this.leafSinks = leafSinks;
    this.root = field.createVector(allocator);
    try {
      collect(root, new ArrayList<>(), capacity, members);
    } catch (RuntimeException e) {
      root.close();
      throw e;
    }
  }

  /**
   * Whether a field is assembled from the levels of the columns below it: a struct (unless packed:
   * one column holds all its members) or a (large) list.
   */
  static boolean isNested(Field field) {
    ArrowType type = field.getType();
    return (type instanceof ArrowType.Struct && !Sinks.isPackedStruct(field))
        || type instanceof ArrowType.List
        || type instanceof ArrowType.LargeList
        || type instanceof ArrowType.Map;
  }

  private void collect(
      FieldVector v, List<Boolean> ancestors, int capacity, PackedMembers members) {
    ArrowType type = v.getField().getType();
    if (!isNested(v.getField())) {
      boolean[] kinds = new boolean[ancestors.size() + 1];
      for (int i = 0; i < ancestors.size(); i++) {
        kinds[i + 1] = ancestors.get(ancestors.size() - 1 - i);
      }
      ColumnSink own = leafSinks.sink(leaves.size(), v, capacity);
      leaves.add(
          new NestedLeafSink(
              own != null ? own : Sinks.wrap(v, capacity, true, members),
              CanonicalLevels.of(kinds),
              capacity));
      return;
    }
    List<FieldVector> children = v.getChildrenFromFields();
    if (children.isEmpty()) {
      throw DecodeException.unsupported("structs without fields (" + v.getField().getName() + ")");
    }
    ancestors.add(!(type instanceof ArrowType.Struct));
    for (FieldVector child : children) {
      collect(child, ancestors, capacity, members);
    }
    ancestors.remove(ancestors.size() - 1);
  }

  @Override
  public int numColumns() {
    return leaves.size();
  }

  @Override
  public ColumnSink column(int i) {
    return leaves.get(i);
  }

  /**
   * A node assembled: the unraveler of its first leaf (positioned above the node) and its length.
   */
  private record Built(Unraveler unraveler, int count) {}

  @Override
  public FieldVector finish() {
    try {
      for (NestedLeafSink leaf : leaves) {
        leaf.finish();
      }
      build(root, new int[] {0});
      return root;
    } catch (RuntimeException e) {
      root.close();
      throw e;
    }
  }

  private Built build(FieldVector v, int[] nextLeaf) {
    if (v instanceof StructVector s && isNested(v.getField())) {
      Built first = null;
      for (FieldVector child : s.getChildrenFromFields()) {
        Built b = build(child, nextLeaf);
        if (first == null) {
          first = b;
        } else if (b.count() != first.count()) {
          throw DecodeException.corrupt(
              "struct fields of "
                  + v.getField().getName()
                  + " decoded to "
                  + first.count()
                  + " and "
                  + b.count()
                  + " entries");
        }
      }
      Unraveler.Validity validity = first.unraveler().structValidity();
      if (validity.count() != first.count()) {
        throw DecodeException.corrupt(
            "struct "
                + v.getField().getName()
                + " has "
                + validity.count()
                + " entries but its fields "
                + first.count());
      }
      NestedVectors.loadStruct(
          s, validity.bits(), validity.count(), validity.nullCount(), allocator);
      return new Built(first.unraveler(), validity.count());
    }
    if (v instanceof ListVector || v instanceof LargeListVector) {
      FieldVector itemVector = NestedVectors.items(v);
      if (!isNested(itemVector.getField()) && leaves.get(nextLeaf[0]).direct() != null) {
        return buildDirect(v, leaves.get(nextLeaf[0]++));
      }
      Built child = build(NestedVectors.items(v), nextLeaf);
      Unraveler.Offsets o = child.unraveler().listOffsets(child.count());
      NestedVectors.loadList(v, o.offsets(), o.bits(), o.count(), o.nullCount(), allocator);
      return new Built(child.unraveler(), o.count());
    }
    NestedLeafSink leaf = leaves.get(nextLeaf[0]++);
    Unraveler u = new Unraveler(leaf.levels(), leaf.scheme());
    int items = u.countItems();
    if (items != leaf.size()) {
      throw DecodeException.corrupt(
          "leaf "
              + v.getField().getName()
              + " has levels for "
              + items
              + " items but "
              + leaf.size()
              + " values");
    }
    u.skipLeaf();
    return new Built(u, items);
  }

  /** A top-level list of a leaf whose offsets were built as its levels arrived. */
  private Built buildDirect(FieldVector v, NestedLeafSink leaf) {
    DirectList d = leaf.direct();
    if (d.items() != leaf.size()) {
      throw DecodeException.corrupt(
          "list "
              + v.getField().getName()
              + " has levels for "
              + d.items()
              + " items but "
              + leaf.size()
              + " values");
    }
    NestedVectors.loadList(v, d.offsets(), d.bits(), d.lists(), d.nulls(), allocator);
    return new Built(null, d.lists());
  }

  @Override
  public void abort() {
    root.close();
  }
}
