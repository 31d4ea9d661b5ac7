package dev.lancelot.engine.testing;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The project's standard test table: {@code id int64, tenant_id int32 (skewed), name utf8 (some
 * nulls), vector fixed_size_list<float32, dim>}. Deterministic for a given seed and id range.
 */
public final class StandardData {
  public static final int DEFAULT_DIM = 128;

  private StandardData() {}

  public static Schema schema(int dim) {
    Field item =
        new Field(
            "item",
            FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)),
            null);
    return new Schema(
        List.of(
            new Field("id", FieldType.nullable(new ArrowType.Int(64, true)), null),
            new Field("tenant_id", FieldType.nullable(new ArrowType.Int(32, true)), null),
            new Field("name", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
            new Field(
                "vector", FieldType.nullable(new ArrowType.FixedSizeList(dim)), List.of(item))));
  }

  /** Tenant ids follow a skewed distribution: tenant 0 is most common, then 1, ... up to 99. */
  public static int tenantFor(Random random) {
    double u = random.nextDouble();
    return (int) Math.min(99, Math.floor(Math.pow(u, 3) * 100));
  }

  public static VectorSchemaRoot generate(
      BufferAllocator allocator, long firstId, int rows, int dim, long seed) {
    VectorSchemaRoot root = VectorSchemaRoot.create(schema(dim), allocator);
    root.allocateNew();
    Random random = new Random(seed ^ (firstId * 0x9E3779B97F4A7C15L));
    BigIntVector id = (BigIntVector) root.getVector("id");
    IntVector tenant = (IntVector) root.getVector("tenant_id");
    VarCharVector name = (VarCharVector) root.getVector("name");
    FixedSizeListVector vector = (FixedSizeListVector) root.getVector("vector");
    Float4Vector values = (Float4Vector) vector.getDataVector();
    values.allocateNew(rows * dim);
    for (int i = 0; i < rows; i++) {
      long rowId = firstId + i;
      id.setSafe(i, rowId);
      tenant.setSafe(i, tenantFor(random));
      if (rowId % 7 == 3) {
        name.setNull(i);
      } else {
        name.setSafe(
            i,
            ("user-" + rowId + "-" + Long.toString(rowId * 2654435761L % 99991, 36))
                .getBytes(StandardCharsets.UTF_8));
      }
      vector.setNotNull(i);
      for (int d = 0; d < dim; d++) {
        values.setSafe(i * dim + d, (float) random.nextGaussian());
      }
    }
    values.setValueCount(rows * dim);
    for (FieldVector v : root.getFieldVectors()) {
      v.setValueCount(rows);
    }
    root.setRowCount(rows);
    return root;
  }
}
