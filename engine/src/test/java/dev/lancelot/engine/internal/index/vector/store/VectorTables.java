package dev.lancelot.engine.internal.index.vector.store;

import dev.lancelot.engine.CloseableIterator;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.OpenOptions;
import dev.lancelot.engine.WriteMode;
import dev.lancelot.engine.WriteOptions;
import dev.lancelot.engine.index.vector.conformance.ClusteredData;
import dev.lancelot.engine.testing.ArrowStreams;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Test tables of vectors: {@code id int64} (the row's index in the {@link ClusteredData}) and
 * {@code vector fixed_size_list<float32, dim>}, written with lancelot's own writer.
 */
public final class VectorTables {
  private VectorTables() {}

  public static Schema schema(int dim) {
    Field item =
        new Field(
            "item",
            FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)),
            null);
    return new Schema(
        List.of(
            new Field("id", FieldType.nullable(new ArrowType.Int(64, true)), null),
            new Field(
                "vector", FieldType.nullable(new ArrowType.FixedSizeList(dim)), List.of(item))));
  }

  /**
   * A batch of rows {@code [from, to)} of {@code data}; rows listed in {@code nulls} get a null
   * vector.
   */
  public static VectorSchemaRoot batch(
      BufferAllocator allocator, ClusteredData data, int from, int to, int... nulls) {
    int dim = data.dim;
    VectorSchemaRoot root = VectorSchemaRoot.create(schema(dim), allocator);
    root.allocateNew();
    BigIntVector id = (BigIntVector) root.getVector("id");
    FixedSizeListVector vec = (FixedSizeListVector) root.getVector("vector");
    Float4Vector values = (Float4Vector) vec.getDataVector();
    int n = to - from;
    values.allocateNew(n * dim);
    java.util.Set<Integer> nullRows = new java.util.HashSet<>();
    for (int r : nulls) {
      nullRows.add(r);
    }
    for (int i = 0; i < n; i++) {
      id.setSafe(i, from + i);
      if (nullRows.contains(from + i)) {
        vec.setNull(i);
      } else {
        vec.setNotNull(i);
      }
      for (int d = 0; d < dim; d++) {
        values.setSafe(i * dim + d, data.vectors[(from + i) * dim + d]);
      }
    }
    values.setValueCount(n * dim);
    for (FieldVector v : root.getFieldVectors()) {
      v.setValueCount(n);
    }
    root.setRowCount(n);
    return root;
  }

  /**
   * Writes rows {@code [from, to)} (create or append) in fragments of at most {@code rowsPerFile}.
   */
  public static Dataset write(
      BufferAllocator allocator,
      Path dir,
      ClusteredData data,
      int from,
      int to,
      WriteMode mode,
      int rowsPerFile,
      int... nulls) {
    try (VectorSchemaRoot batch = batch(allocator, data, from, to, nulls);
        ArrowReader reader = ArrowStreams.readerOf(allocator, List.of(batch))) {
      return Dataset.write(
          dir.toString(),
          reader,
          WriteOptions.of(mode).withMaxRowsPerFile(rowsPerFile),
          OpenOptions.defaults().withAllocator(allocator));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** Row address → id of every live row. */
  public static Map<Long, Long> idsByAddress(Dataset dataset) {
    Map<Long, Long> out = new HashMap<>();
    try (CloseableIterator<VectorSchemaRoot> it =
        dataset.newScan().columns("id").withRowAddress(true).batches()) {
      while (it.hasNext()) {
        VectorSchemaRoot root = it.next();
        BigIntVector id = (BigIntVector) root.getVector("id");
        FieldVector addr = root.getVector("_rowaddr");
        for (int i = 0; i < root.getRowCount(); i++) {
          out.put(((Number) addr.getObject(i)).longValue(), id.get(i));
        }
      }
    }
    return out;
  }
}
