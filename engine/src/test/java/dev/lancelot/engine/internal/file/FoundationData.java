package dev.lancelot.engine.internal.file;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.channels.Channels;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The four column shapes of the foundation issue: {@code id int64} (sequential), {@code tenant_id
 * int32} (skewed), {@code name utf8} (short, some nulls) and {@code vec fixed_size_list<float32,
 * 128>} (some null vectors). Deterministic per (seed, first row).
 */
final class FoundationData {
  static final int DIM = 128;

  private FoundationData() {}

  static Schema schema() {
    Field item =
        new Field(
            "item",
            FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)),
            null);
    return new Schema(
        List.of(
            new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
            new Field("tenant_id", FieldType.nullable(new ArrowType.Int(32, true)), null),
            new Field("name", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
            new Field("vec", FieldType.nullable(new ArrowType.FixedSizeList(DIM)), List.of(item))));
  }

  static VectorSchemaRoot batch(BufferAllocator allocator, long firstRow, int rows, long seed) {
    VectorSchemaRoot root = VectorSchemaRoot.create(schema(), allocator);
    Random r = new Random(seed * 1_000_003 + firstRow);
    BigIntVector id = (BigIntVector) root.getVector("id");
    IntVector tenant = (IntVector) root.getVector("tenant_id");
    VarCharVector name = (VarCharVector) root.getVector("name");
    FixedSizeListVector vec = (FixedSizeListVector) root.getVector("vec");
    id.allocateNew(rows);
    tenant.allocateNew(rows);
    name.allocateNew(rows * 12L, rows);
    vec.setInitialCapacity(rows);
    vec.allocateNew();
    Float4Vector items = (Float4Vector) vec.getDataVector();
    for (int i = 0; i < rows; i++) {
      long row = firstRow + i;
      id.set(i, row);
      tenant.set(i, (int) Math.floor(Math.pow(r.nextDouble(), 3) * 100));
      if (r.nextInt(10) == 0) {
        name.setNull(i);
      } else {
        name.setSafe(i, Shapes.utf8("user_" + r.nextInt(50_000)));
      }
      if (row % 97 == 5) {
        vec.setNull(i);
      } else {
        vec.setNotNull(i);
        for (int j = 0; j < DIM; j++) {
          items.set(i * DIM + j, (float) r.nextGaussian());
        }
      }
    }
    items.setValueCount(rows * DIM);
    id.setValueCount(rows);
    tenant.setValueCount(rows);
    name.setValueCount(rows);
    vec.setValueCount(rows);
    root.setRowCount(rows);
    return root;
  }

  /**
   * An Arrow stream reader over {@code batches} batches of {@code rows} rows (for Dataset.write).
   */
  static ArrowReader reader(BufferAllocator allocator, int batches, int rows, long seed)
      throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema(), allocator);
        ArrowStreamWriter writer = new ArrowStreamWriter(root, null, Channels.newChannel(bytes))) {
      writer.start();
      for (int b = 0; b < batches; b++) {
        try (VectorSchemaRoot batch = batch(allocator, (long) b * rows, rows, seed)) {
          new org.apache.arrow.vector.VectorUnloader(batch).getRecordBatch().close();
          try (org.apache.arrow.vector.ipc.message.ArrowRecordBatch rb =
              new org.apache.arrow.vector.VectorUnloader(batch).getRecordBatch()) {
            new org.apache.arrow.vector.VectorLoader(root).load(rb);
          }
          writer.writeBatch();
        }
      }
      writer.end();
    }
    return new ArrowStreamReader(new ByteArrayInputStream(bytes.toByteArray()), allocator);
  }
}
