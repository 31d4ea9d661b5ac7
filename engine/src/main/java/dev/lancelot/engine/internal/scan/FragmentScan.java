package dev.lancelot.engine.internal.scan;

import dev.lancelot.engine.CloseableIterator;
import dev.lancelot.engine.ScanTask;
import dev.lancelot.engine.internal.arrow.ArrowGather;
import dev.lancelot.engine.internal.format.RowIdSequence;
import dev.lancelot.engine.schema.LanceField;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.roaringbitmap.RoaringBitmap;

/**
 * Scans one {@link ScanTask} (a row range of one fragment) in batches.
 *
 * <p>Without a filter the projected columns are streamed and deleted rows dropped. With a filter,
 * only the filter's columns are streamed; the other projected columns are then taken for the
 * matching rows alone (late materialization), so batches without matches cost no reads of them.
 *
 * <p>Each returned batch is owned by the iterator and valid until the next call to {@link
 * #hasNext()}, {@link #next()} or {@link #close()}.
 */
public final class FragmentScan implements CloseableIterator<VectorSchemaRoot> {
  public static final Field ROW_ID_FIELD =
      new Field(ScanSpec.ROW_ID, FieldType.nullable(new ArrowType.Int(64, false)), null);
  public static final Field ROW_ADDRESS_FIELD =
      new Field(ScanSpec.ROW_ADDRESS, FieldType.nullable(new ArrowType.Int(64, false)), null);

  private final FragmentReader reader;
  private final ScanSpec spec;
  private final ScanTask task;
  private final RoaringBitmap deleted;
  private final RowIdSequence rowIds;
  private final BufferAllocator allocator;
  private final List<LanceField> streamed;
  private final List<LanceField> taken;
  private final FragmentReader.BatchStream stream;
  private long nextStart;
  private VectorSchemaRoot current;
  private VectorSchemaRoot pending;

  public FragmentScan(
      FragmentReader reader,
      ScanTask task,
      ScanSpec spec,
      RoaringBitmap deleted,
      RowIdSequence rowIds,
      List<LanceField> filterFields,
      BufferAllocator allocator) {
    this.reader = reader;
    this.rowIds = rowIds;
    this.task = task;
    this.spec = spec;
    this.deleted = deleted;
    this.allocator = allocator;
    if (spec.filter() == null) {
      this.streamed = spec.projection();
      this.taken = List.of();
    } else {
      this.streamed = filterFields;
      Set<Integer> ids = new LinkedHashSet<>();
      filterFields.forEach(f -> ids.add(f.id()));
      List<LanceField> rest = new ArrayList<>();
      for (LanceField f : spec.projection()) {
        if (!ids.contains(f.id())) {
          rest.add(f);
        }
      }
      this.taken = rest;
    }
    this.stream = reader.stream(streamed, task.startRow(), task.endRow(), spec.batchSize());
    this.nextStart = task.startRow();
  }

  @Override
  public boolean hasNext() {
    releaseCurrent();
    while (pending == null && nextStart < task.endRow()) {
      long start = nextStart;
      long end = Math.min(task.endRow(), start + spec.batchSize());
      nextStart = end;
      pending = scanBatch(start, end, stream.next());
    }
    return pending != null;
  }

  @Override
  public VectorSchemaRoot next() {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    current = pending;
    pending = null;
    return current;
  }

  private VectorSchemaRoot scanBatch(long start, long end, FieldVector[] streamedVectors) {
    int n = (int) (end - start);
    Map<Integer, FieldVector> byId = new HashMap<>();
    for (int i = 0; i < streamed.size(); i++) {
      byId.put(streamed.get(i).id(), streamedVectors[i]);
    }
    try {
      BitSet selected = alive(start, end);
      if (!selected.isEmpty() && spec.filter() != null) {
        selected.and(
            BitSet.valueOf(spec.filter().evaluate(name -> vectorNamed(name, byId), n).toWords()));
      }
      if (selected.isEmpty()) {
        return null;
      }
      int count = selected.cardinality();
      // positions of the selected rows, listed only when something needs them (null = every row)
      boolean needRows = count != n || !taken.isEmpty();
      int[] rows = needRows ? new int[count] : null;
      if (needRows) {
        for (int i = selected.nextSetBit(0), k = 0; i >= 0; i = selected.nextSetBit(i + 1)) {
          rows[k++] = i;
        }
      }
      Map<Integer, FieldVector> out = new HashMap<>();
      for (LanceField f : streamed) {
        if (count == n) {
          out.put(f.id(), byId.remove(f.id()));
        } else {
          out.put(f.id(), ArrowGather.gather(byId.get(f.id()), rows, count, allocator));
        }
      }
      if (!taken.isEmpty()) {
        long[] offsets = new long[count];
        for (int i = 0; i < count; i++) {
          offsets[i] = start + rows[i];
        }
        VectorSchemaRoot rest = reader.take(taken, offsets);
        for (int i = 0; i < taken.size(); i++) {
          out.put(taken.get(i).id(), rest.getVector(i));
        }
      }
      List<FieldVector> vectors = new ArrayList<>();
      List<Field> fields = new ArrayList<>();
      for (LanceField f : spec.projection()) {
        FieldVector v = out.remove(f.id());
        vectors.add(v);
        fields.add(v.getField());
      }
      out.values().forEach(FieldVector::close);
      addVirtualColumns(vectors, fields, rows, count, start);
      return new VectorSchemaRoot(fields, vectors, count);
    } finally {
      byId.values().forEach(FieldVector::close);
    }
  }

  private FieldVector vectorNamed(String name, Map<Integer, FieldVector> byId) {
    for (LanceField f : streamed) {
      if (f.name().equals(name)) {
        return byId.get(f.id());
      }
    }
    throw new IllegalStateException("Filter column " + name + " was not read");
  }

  private BitSet alive(long start, long end) {
    int n = (int) (end - start);
    BitSet selected = new BitSet(n);
    selected.set(0, n);
    if (!deleted.isEmpty()) {
      var it = deleted.getIntIterator();
      it.advanceIfNeeded((int) start);
      while (it.hasNext()) {
        int d = it.next();
        if (d >= end) {
          break;
        }
        selected.clear((int) (d - start));
      }
    }
    return selected;
  }

  /** Adds the row id / row address columns of {@code count} rows ({@code rows} null: every row). */
  private void addVirtualColumns(
      List<FieldVector> vectors, List<Field> fields, int[] rows, int count, long start) {
    if (spec.withRowId()) {
      vectors.add(
          rowIds == null
              ? addresses(ROW_ID_FIELD, rows, count, start)
              : stableIds(rows, count, start));
      fields.add(ROW_ID_FIELD);
    }
    if (spec.withRowAddress()) {
      vectors.add(addresses(ROW_ADDRESS_FIELD, rows, count, start));
      fields.add(ROW_ADDRESS_FIELD);
    }
  }

  private UInt8Vector addresses(Field field, int[] rows, int count, long start) {
    // Computed in a loop without calls (RowAddress.of inline) and written with one bulk
    // copy, no per-row bounds and validity bookkeeping: cheap even while it still runs interpreted.
    long high = RowAddress.of(task.fragmentId(), 0);
    long[] values = new long[count];
    if (rows == null) {
      for (int i = 0; i < count; i++) {
        values[i] = high | ((start + i) & 0xFFFFFFFFL);
      }
    } else {
      for (int i = 0; i < count; i++) {
        values[i] = high | ((start + rows[i]) & 0xFFFFFFFFL);
      }
    }
    return uint64(field, values, count);
  }

  /** The stable row ids of the rows (from the fragment's row id sequence). */
  private UInt8Vector stableIds(int[] rows, int count, long start) {
    long[] values = new long[count];
    for (int i = 0; i < count; i++) {
      values[i] = rowIds.get(start + (rows == null ? i : rows[i]));
    }
    return uint64(ROW_ID_FIELD, values, count);
  }

  private UInt8Vector uint64(Field field, long[] values, int count) {
    UInt8Vector v = (UInt8Vector) field.createVector(allocator);
    v.allocateNew(count);
    if (count > 0) {
      v.getDataBuffer()
          .nioBuffer(0, Math.multiplyExact(count, Long.BYTES))
          .order(ByteOrder.LITTLE_ENDIAN)
          .asLongBuffer()
          .put(values);
    }
    ArrowBuf validity = v.getValidityBuffer();
    validity.setOne(0L, count / 8L);
    if (count % 8 != 0) {
      validity.setByte(count / 8, (1 << (count % 8)) - 1);
    }
    v.setValueCount(count);
    return v;
  }

  private void releaseCurrent() {
    if (current != null) {
      current.close();
      current = null;
    }
  }

  @Override
  public void close() {
    releaseCurrent();
    if (pending != null) {
      pending.close();
      pending = null;
    }
    stream.close();
  }
}
