package dev.lancelot.engine.internal.scan;

import dev.lancelot.engine.CloseableIterator;
import dev.lancelot.engine.ScanTask;
import dev.lancelot.engine.internal.arrow.ArrowGather;
import dev.lancelot.engine.internal.format.RowIdSequence;
import dev.lancelot.engine.io.ReadCounters;
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
 * <p>A task with an index {@linkplain ScanTask#selection() selection} streams nothing: the filter's
 * columns are taken for the selected live rows only, a batch at a time, the filter is applied to
 * them as to streamed rows (the index answer may be a superset), and the rest is taken for the
 * matches. Rows decoded are counted in {@link ReadCounters#rowsScanned}.
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
  private final org.roaringbitmap.PeekableIntIterator selected;
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
    if (task.hasSelection()) {
      RoaringBitmap live = task.selection();
      live.andNot(deleted);
      this.selected = live.getIntIterator();
      this.stream = null;
    } else {
      this.selected = null;
      this.stream = reader.stream(streamed, task.startRow(), task.endRow(), spec.batchSize());
    }
    this.nextStart = task.startRow();
  }

  @Override
  public boolean hasNext() {
    releaseCurrent();
    if (selected != null) {
      while (pending == null && selected.hasNext()) {
        long[] offsets = nextSelected();
        ReadCounters.rowsScanned(offsets.length);
        try (VectorSchemaRoot read = reader.take(streamed, offsets)) {
          FieldVector[] vectors = new FieldVector[streamed.size()];
          for (int i = 0; i < vectors.length; i++) {
            vectors[i] = detach(read.getVector(i));
          }
          BitSet all = new BitSet(offsets.length);
          all.set(0, offsets.length);
          pending = scanBatch(offsets[0], offsets, offsets.length, vectors, all);
        }
      }
      return pending != null;
    }
    while (pending == null && nextStart < task.endRow()) {
      long start = nextStart;
      long end = Math.min(task.endRow(), start + spec.batchSize());
      nextStart = end;
      ReadCounters.rowsScanned(end - start);
      pending = scanBatch(start, null, (int) (end - start), stream.next(), alive(start, end));
    }
    return pending != null;
  }

  /** The next batch of selected live offsets (ascending). */
  private long[] nextSelected() {
    long[] buf = new long[spec.batchSize()];
    int n = 0;
    while (n < buf.length && selected.hasNext()) {
      buf[n++] = Integer.toUnsignedLong(selected.next());
    }
    return n == buf.length ? buf : java.util.Arrays.copyOf(buf, n);
  }

  /** A vector moved out of a batch that is closed afterwards. */
  private FieldVector detach(FieldVector v) {
    org.apache.arrow.vector.util.TransferPair t = v.getTransferPair(allocator);
    t.transfer();
    return (FieldVector) t.getTo();
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

  /**
   * Filters and completes one batch of {@code n} streamed rows: the rows at fragment offsets {@code
   * start + i}, or at {@code offsets[i]} when given; {@code selected} holds the live ones.
   */
  private VectorSchemaRoot scanBatch(
      long start, long[] offsets, int n, FieldVector[] streamedVectors, BitSet selected) {
    Map<Integer, FieldVector> byId = new HashMap<>();
    for (int i = 0; i < streamed.size(); i++) {
      byId.put(streamed.get(i).id(), streamedVectors[i]);
    }
    try {
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
      // the fragment offsets of the returned rows (null: start + i for every row)
      long[] kept = null;
      if (rows != null || offsets != null) {
        kept = new long[count];
        for (int i = 0; i < count; i++) {
          int r = rows == null ? i : rows[i];
          kept[i] = offsets == null ? start + r : offsets[r];
        }
      }
      if (!taken.isEmpty()) {
        VectorSchemaRoot rest = reader.take(taken, kept);
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
      addVirtualColumns(vectors, fields, kept, count, start);
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

  /**
   * Adds the row id / row address columns of {@code count} rows at fragment offsets {@code kept}
   * (null: {@code start + i}).
   */
  private void addVirtualColumns(
      List<FieldVector> vectors, List<Field> fields, long[] kept, int count, long start) {
    if (spec.withRowId()) {
      vectors.add(
          rowIds == null
              ? addresses(ROW_ID_FIELD, kept, count, start)
              : stableIds(kept, count, start));
      fields.add(ROW_ID_FIELD);
    }
    if (spec.withRowAddress()) {
      vectors.add(addresses(ROW_ADDRESS_FIELD, kept, count, start));
      fields.add(ROW_ADDRESS_FIELD);
    }
  }

  private UInt8Vector addresses(Field field, long[] kept, int count, long start) {
    // Computed in a loop without calls (RowAddress.of inline) and written with one bulk
    // copy, no per-row bounds and validity bookkeeping: cheap even while it still runs interpreted.
    long high = RowAddress.of(task.fragmentId(), 0);
    long[] values = new long[count];
    if (kept == null) {
      for (int i = 0; i < count; i++) {
        values[i] = high | ((start + i) & 0xFFFFFFFFL);
      }
    } else {
      for (int i = 0; i < count; i++) {
        values[i] = high | (kept[i] & 0xFFFFFFFFL);
      }
    }
    return uint64(field, values, count);
  }

  /** The stable row ids of the rows (from the fragment's row id sequence). */
  private UInt8Vector stableIds(long[] kept, int count, long start) {
    long[] values = new long[count];
    for (int i = 0; i < count; i++) {
      values[i] = rowIds.get(kept == null ? start + i : kept[i]);
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
    if (stream != null) {
      stream.close();
    }
  }
}
