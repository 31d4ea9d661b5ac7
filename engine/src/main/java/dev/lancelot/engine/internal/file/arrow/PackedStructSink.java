package dev.lancelot.engine.internal.file.arrow;

import dev.lancelot.engine.internal.file.codec.DecodeException;
import dev.lancelot.engine.internal.file.codec.StructValues;
import dev.lancelot.engine.internal.file.codec.Values;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.complex.StructVector;

/**
 * A packed struct, or a struct inside one: its rows arrive as {@link StructValues}, whose members
 * go to the member vectors' sinks (only the members the vector has, see {@link PackedMembers}). The
 * struct's validity comes from the definition levels, and its members are null wherever it is.
 */
final class PackedStructSink implements ColumnSink {
  private final StructVector vector;
  private final ColumnSink[] members;
  private final int[] positions;
  private byte[] validity;
  private int nulls;
  private int size;

  PackedStructSink(StructVector vector, int capacity, PackedMembers selection) {
    this.vector = vector;
    this.positions = selection.next();
    List<FieldVector> children = vector.getChildrenFromFields();
    if (children.isEmpty()) {
      throw DecodeException.unsupported("structs without fields (" + vector.getName() + ")");
    }
    if (positions != null && positions.length != children.size()) {
      throw new IllegalStateException(
          "Packed struct "
              + vector.getName()
              + " has "
              + children.size()
              + " members but "
              + positions.length
              + " were selected");
    }
    this.members = new ColumnSink[children.size()];
    for (int k = 0; k < members.length; k++) {
      FieldVector child = children.get(k);
      members[k] =
          child instanceof StructVector s
              ? new PackedStructSink(s, capacity, selection)
              : Sinks.wrap(child, capacity, true, selection);
    }
    this.validity = new byte[Math.max(1, (capacity + 7) / 8)];
  }

  private void ensure(int rows) {
    if (validity.length * 8L < rows) {
      validity = Arrays.copyOf(validity, Math.max((rows + 7) / 8, 2 * validity.length));
    }
  }

  @Override
  public void appendNulls(int n) {
    for (ColumnSink m : members) {
      m.appendNulls(n);
    }
    ensure(size + n);
    nulls += n;
    size += n;
  }

  @Override
  public void append(Values values, int from, int n, short[] defs, int defFrom) {
    if (!(values instanceof StructValues struct)) {
      throw DecodeException.corrupt(
          "expected packed struct values for "
              + vector.getName()
              + " but decoded "
              + FixedWidthSink.describe(values));
    }
    int stored = struct.members().size();
    if (positions == null && stored != members.length) {
      throw DecodeException.corrupt(
          "packed struct "
              + vector.getName()
              + " stores "
              + stored
              + " members but its type has "
              + members.length);
    }
    for (int k = 0; k < members.length; k++) {
      int p = positions == null ? k : positions[k];
      if (p >= stored) {
        throw DecodeException.corrupt(
            "packed struct " + vector.getName() + " stores only " + stored + " members");
      }
      members[k].append(struct.members().get(p), from, n, defs, defFrom);
    }
    ensure(size + n);
    for (int i = 0; i < n; i++) {
      if (defs == null || defs[defFrom + i] == 0) {
        int bit = size + i;
        validity[bit >>> 3] |= (byte) (1 << (bit & 7));
      } else {
        nulls++;
      }
    }
    size += n;
  }

  @Override
  public void reserve(int items) {
    for (ColumnSink m : members) {
      m.reserve(items);
    }
  }

  @Override
  public int size() {
    return size;
  }

  @Override
  public FieldVector finish() {
    for (ColumnSink m : members) {
      m.finish();
    }
    NestedVectors.loadStruct(vector, validity, size, nulls, vector.getAllocator());
    return vector;
  }

  @Override
  public void abort() {
    vector.close();
  }
}
