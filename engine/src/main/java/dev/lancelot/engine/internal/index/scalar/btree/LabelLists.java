package dev.lancelot.engine.internal.index.scalar.btree;

import dev.lancelot.engine.CloseableIterator;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.internal.DatasetInternals;
import dev.lancelot.engine.internal.expr.eval.ColumnKind;
import dev.lancelot.engine.internal.scan.ScanSpec;
import dev.lancelot.engine.schema.LanceField;
import java.util.List;
import java.util.function.LongUnaryOperator;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;

/**
 * The elements of a list column, for a label-list index: each element of each non-NULL list with
 * its row's address (its row id on a dataset with stable row ids), deleted rows excluded, and the
 * rows whose list is NULL.
 */
public final class LabelLists {
  private LabelLists() {}

  /** The elements, and the NULL lists serialized as a row address tree map. */
  public record Gathered(IndexColumnData elements, byte[] nullLists) {}

  static Gathered gather(
      Dataset dataset, String column, LanceField field, List<Long> fragments, int rows) {
    return gather(dataset, column, field, fragments, rows, LongUnaryOperator.identity());
  }

  /**
   * As a build gathers them, each row's address (or id) given as {@code address.applyAsLong} of it:
   * a compaction's remap passes the address each row has after the compaction.
   */
  public static Gathered gather(
      Dataset dataset,
      String column,
      LanceField field,
      List<Long> fragments,
      int rows,
      LongUnaryOperator address) {
    ColumnKind kind = ColumnKind.of(field.children().get(0).arrowType());
    IndexColumnData data = new IndexColumnData(kind, rows);
    long[] nulls = new long[16];
    int nullCount = 0;
    if (!fragments.isEmpty()) {
      boolean stable = dataset.stableRowIds();
      BufferAllocator allocator = DatasetInternals.context(dataset).allocator();
      try (CloseableIterator<VectorSchemaRoot> batches =
          dataset
              .newScan()
              .columns(column)
              .withRowAddress(!stable)
              .withRowId(stable)
              .fragments(fragments)
              .batches()) {
        while (batches.hasNext()) {
          VectorSchemaRoot batch = batches.next();
          FieldVector list = batch.getVector(column);
          UInt8Vector ids =
              (UInt8Vector) batch.getVector(stable ? ScanSpec.ROW_ID : ScanSpec.ROW_ADDRESS);
          FieldVector items =
              list instanceof ListVector l
                  ? l.getDataVector()
                  : ((LargeListVector) list).getDataVector();
          int n = batch.getRowCount();
          int total = Math.toIntExact(start(list, n) - start(list, 0));
          try (UInt8Vector addresses = new UInt8Vector("addresses", allocator);
              FieldVector kept = items.getField().createVector(allocator)) {
            addresses.allocateNew(Math.max(1, total));
            kept.setInitialCapacity(Math.max(1, total));
            kept.allocateNew();
            int count = 0;
            for (int row = 0; row < n; row++) {
              if (list.isNull(row)) {
                if (nullCount == nulls.length) {
                  nulls = java.util.Arrays.copyOf(nulls, nulls.length * 2);
                }
                nulls[nullCount++] = address.applyAsLong(ids.get(row));
                continue;
              }
              long id = address.applyAsLong(ids.get(row));
              for (long j = start(list, row); j < start(list, row + 1); j++) {
                kept.copyFromSafe(Math.toIntExact(j), count, items);
                addresses.setSafe(count, id);
                count++;
              }
            }
            kept.setValueCount(count);
            addresses.setValueCount(count);
            data.append(kept, addresses, count);
          }
        }
      }
    }
    return new Gathered(data, BitmapWriter.serialize(nulls, 0, nullCount));
  }

  private static long start(FieldVector list, int row) {
    if (list instanceof LargeListVector large) {
      return large.getOffsetBuffer().getLong((long) row * LargeListVector.OFFSET_WIDTH);
    }
    return ((ListVector) list).getOffsetBuffer().getInt((long) row * ListVector.OFFSET_WIDTH);
  }
}
