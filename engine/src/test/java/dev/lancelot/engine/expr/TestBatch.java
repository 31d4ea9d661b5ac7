package dev.lancelot.engine.expr;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Builds small Arrow batches for tests: {@code TestBatch.with(alloc).column("x", int32, setter, 1,
 * null, 3)}; a null value becomes a NULL slot. The caller closes the root.
 */
final class TestBatch {
  private final BufferAllocator allocator;
  private final List<FieldVector> vectors = new ArrayList<>();
  private int rows = -1;

  private TestBatch(BufferAllocator allocator) {
    this.allocator = allocator;
  }

  static TestBatch with(BufferAllocator allocator) {
    return new TestBatch(allocator);
  }

  /** Adds a column; {@code set} writes one non-null value at an index (use setSafe). */
  @SafeVarargs
  final <V extends FieldVector, T> TestBatch column(
      String name, ArrowType type, BiConsumer<SetCall<V>, T> set, T... values) {
    @SuppressWarnings("unchecked")
    V v = (V) new Field(name, FieldType.nullable(type), null).createVector(allocator);
    v.allocateNew();
    for (int i = 0; i < values.length; i++) {
      if (values[i] == null) {
        v.setNull(i);
      } else {
        set.accept(new SetCall<>(v, i), values[i]);
      }
    }
    v.setValueCount(values.length);
    add(v, values.length);
    return this;
  }

  TestBatch vector(FieldVector v) {
    add(v, v.getValueCount());
    return this;
  }

  private void add(FieldVector v, int count) {
    if (rows >= 0 && rows != count) {
      throw new IllegalArgumentException(
          "column " + v.getName() + " has " + count + " values, others have " + rows);
    }
    rows = count;
    vectors.add(v);
  }

  VectorSchemaRoot build() {
    List<Field> fields = vectors.stream().map(FieldVector::getField).toList();
    VectorSchemaRoot root = new VectorSchemaRoot(new Schema(fields), vectors, rows);
    return root;
  }

  /** The vector and the row being written. */
  record SetCall<V>(V vector, int index) {}

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** Rows selected by {@code filter} on {@code root}. */
  static int[] select(VectorSchemaRoot root, String filter) {
    return BoundPredicate.bind(FilterParser.parse(filter), root.getSchema())
        .evaluate(root)
        .toRowIndexes();
  }
}
