package dev.lancelot.engine.internal.file.arrow;

import dev.lancelot.engine.internal.file.codec.DecodeException;
import dev.lancelot.engine.schema.LanceField;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseLargeVariableWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.NullVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/** Creates the {@link ColumnSink} for an Arrow field. */
public final class Sinks {
  private Sinks() {}

  /** A new vector for {@code field}, allocated from {@code allocator} for {@code capacity} rows. */
  public static ColumnSink create(Field field, BufferAllocator allocator, int capacity) {
    return create(field, allocator, capacity, PackedMembers.all());
  }

  private static ColumnSink create(
      Field field, BufferAllocator allocator, int capacity, PackedMembers members) {
    FieldVector vector = field.createVector(allocator);
    try {
      return wrap(vector, capacity, true, members);
    } catch (RuntimeException e) {
      vector.close();
      throw e;
    }
  }

  /**
   * The sink of a top-level field for {@code capacity} rows: one column for primitive, string,
   * fixed-size-list and packed struct fields, one per column field (leaf or packed struct) for
   * other structs and lists. Packed structs read all their stored members.
   */
  public static FieldSink createField(Field field, BufferAllocator allocator, int capacity) {
    return createField(field, allocator, capacity, PackedMembers.all());
  }

  /**
   * As {@link #createField(Field, BufferAllocator, int)}, with the packed struct members {@code
   * members} selects.
   */
  public static FieldSink createField(
      Field field, BufferAllocator allocator, int capacity, PackedMembers members) {
    return createField(field, allocator, capacity, members, LeafSinks.NONE);
  }

  /**
   * As {@link #createField(Field, BufferAllocator, int, PackedMembers)}, the leaves of a struct or
   * list field that {@code leafSinks} chooses read by its sinks.
   */
  public static FieldSink createField(
      Field field,
      BufferAllocator allocator,
      int capacity,
      PackedMembers members,
      LeafSinks leafSinks) {
    if (NestedFieldSink.isNested(field)) {
      return new NestedFieldSink(field, allocator, capacity, members, leafSinks);
    }
    ColumnSink sink = create(field, allocator, capacity, members);
    return new FieldSink() {
      @Override
      public int numColumns() {
        return 1;
      }

      @Override
      public ColumnSink column(int i) {
        if (i != 0) {
          throw new IndexOutOfBoundsException("column " + i + " of a one-column field");
        }
        return sink;
      }

      @Override
      public FieldVector finish() {
        return sink.finish();
      }

      @Override
      public void abort() {
        sink.abort();
      }
    };
  }

  /** A sink appending to an existing (empty) vector, allocated here for {@code capacity} rows. */
  public static ColumnSink forVector(FieldVector vector, int capacity) {
    return wrap(vector, capacity, true, PackedMembers.all());
  }

  /**
   * As {@link #forVector(FieldVector, int)}, with the packed struct members {@code members}
   * selects.
   */
  public static ColumnSink forVector(FieldVector vector, int capacity, PackedMembers members) {
    return wrap(vector, capacity, true, members);
  }

  /** Whether an Arrow field is a struct Lance stores packed, in one column. */
  public static boolean isPackedStruct(Field field) {
    return field.getType() instanceof ArrowType.Struct
        && LanceField.isPackedStruct(field.getMetadata());
  }

  static ColumnSink wrap(FieldVector vector, int capacity, boolean allocate) {
    return wrap(vector, capacity, allocate, PackedMembers.all());
  }

  static ColumnSink wrap(
      FieldVector vector, int capacity, boolean allocate, PackedMembers members) {
    if (vector instanceof StructVector struct && allocate && isPackedStruct(vector.getField())) {
      return new PackedStructSink(struct, capacity, members);
    }
    if (vector instanceof BitVector bits) {
      return new BoolSink(bits, capacity, allocate);
    }
    if (vector instanceof BaseFixedWidthVector fixed) {
      return new FixedWidthSink(fixed, capacity, allocate);
    }
    if (vector instanceof FixedSizeListVector fsl) {
      return new FslSink(fsl, capacity, allocate);
    }
    if (!allocate) {
      throw DecodeException.unsupported("fixed-size lists of " + vector.getField().getType());
    }
    if (vector instanceof BaseVariableWidthVector
        || vector instanceof BaseLargeVariableWidthVector) {
      return new VarWidthSink(vector, capacity);
    }
    if (vector instanceof NullVector nulls) {
      return new NullSink(nulls);
    }
    throw DecodeException.unsupported(
        "reading Arrow type "
            + vector.getField().getType()
            + " ("
            + vector.getClass().getSimpleName()
            + ")");
  }
}
