package dev.lancelot.engine.internal.file;

import dev.lancelot.engine.internal.file.arrow.ColumnSink;
import dev.lancelot.engine.internal.file.arrow.NestedVectors;
import dev.lancelot.engine.internal.file.arrow.PackedMembers;
import dev.lancelot.engine.internal.file.arrow.Sinks;
import dev.lancelot.engine.internal.file.container.ColumnInfo;
import dev.lancelot.engine.internal.file.container.PageInfo;
import dev.lancelot.engine.internal.file.layout.PageIo;
import dev.lancelot.engine.internal.file.layout.PageReader;
import dev.lancelot.engine.internal.file.layout.RowRange;
import dev.lancelot.engine.internal.file.layout.RowSource;
import dev.lancelot.engine.internal.file.v20.Page20Reader;
import dev.lancelot.engine.schema.LanceField;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * A struct or list field of a format 2.0 file. In 2.0 every field has a column, in pre-order: a
 * struct's column holds only row counts (structs are never null), a list's column its offsets and
 * validity, and its item field's columns are indexed by item, not by row. A packed struct is one
 * column holding all its members (they have no columns). Reading goes top-down: the lists of the
 * requested rows give the item ranges to read from the item columns.
 */
final class Nested20Field {
  private final Field field;
  private final List<ColumnReader> columns;
  private final List<int[]> packedMembers;
  private final PageIo io;

  /**
   * {@code columns}: the field's columns in pre-order (one per field node but packed struct
   * members); {@code packedMembers}: see {@link FileProjection#packedMembers}.
   */
  Nested20Field(Field field, List<ColumnReader> columns, List<int[]> packedMembers, PageIo io) {
    this.field = field;
    this.columns = List.copyOf(columns);
    this.packedMembers = packedMembers;
    this.io = io;
  }

  /**
   * The fields with a column in a format 2.0 file, in column order: every field node in pre-order,
   * except the members of packed structs (the struct's column holds them).
   */
  static List<LanceField> fieldsWithColumns20(List<LanceField> fields) {
    List<LanceField> out = new ArrayList<>();
    for (LanceField f : fields) {
      out.add(f);
      if (!f.isPackedStruct()) {
        out.addAll(fieldsWithColumns20(f.children()));
      }
    }
    return out;
  }

  /** Rows of the given ranges (in order; repeats allowed) as one vector. */
  FieldVector read(List<long[]> ranges, BufferAllocator allocator) {
    FieldVector v = field.createVector(allocator);
    try {
      fill(v, new int[] {0}, PackedMembers.of(packedMembers), ranges, allocator);
      return v;
    } catch (RuntimeException e) {
      v.close();
      throw e;
    }
  }

  private void fill(
      FieldVector v,
      int[] next,
      PackedMembers members,
      List<long[]> ranges,
      BufferAllocator allocator) {
    ColumnReader column = columns.get(next[0]++);
    long rows = 0;
    for (long[] r : ranges) {
      rows += r[1] - r[0];
    }
    if (rows > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("Cannot read " + rows + " rows in one batch");
    }
    int n = (int) rows;
    ArrowType type = v.getField().getType();
    if (type instanceof ArrowType.Struct && !Sinks.isPackedStruct(v.getField())) {
      for (FieldVector child : v.getChildrenFromFields()) {
        fill(child, next, members, ranges, allocator);
      }
      byte[] bits = new byte[(n + 7) / 8];
      java.util.Arrays.fill(bits, (byte) 0xFF);
      NestedVectors.loadStruct((StructVector) v, bits, n, 0, allocator);
      return;
    }
    if (type instanceof ArrowType.List || type instanceof ArrowType.LargeList) {
      long[] offsets = new long[n + 1];
      byte[] bits = new byte[(n + 7) / 8];
      int nulls = 0;
      int k = 0;
      List<long[]> items = new ArrayList<>();
      for (long[] r : ranges) {
        for (Piece p : pieces(column, r)) {
          Page20Reader page = (Page20Reader) column.page(p.page());
          long base = itemBase(column.info(), p.page());
          Page20Reader.ListRange lr =
              column.guard(p.page(), () -> page.listRanges(List.of(p.range()), io).get(0));
          for (int j = 0; j < lr.lists(); j++) {
            offsets[k + 1] = offsets[k] + lr.lengths()[j];
            if (lr.valid()[j]) {
              bits[k >>> 3] |= (byte) (1 << (k & 7));
            } else {
              nulls++;
            }
            k++;
          }
          if (lr.itemEnd() > lr.itemStart()) {
            long s = base + lr.itemStart();
            long e = base + lr.itemEnd();
            long[] last = items.isEmpty() ? null : items.get(items.size() - 1);
            if (last != null && last[1] == s) {
              last[1] = e;
            } else {
              items.add(new long[] {s, e});
            }
          }
        }
      }
      fill(NestedVectors.items(v), next, members, items, allocator);
      NestedVectors.loadList(v, offsets, bits, n, nulls, allocator);
      return;
    }
    ColumnSink sink = Sinks.forVector(v, Math.max(n, 1), members);
    for (long[] r : ranges) {
      for (Piece p : pieces(column, r)) {
        PageReader reader = column.page(p.page());
        List<RowSource> sources = column.guard(p.page(), () -> reader.load(List.of(p.range()), io));
        RowSource s = sources.get(0);
        column.guardRun(p.page(), () -> s.emit(s.remaining(), sink));
      }
    }
    sink.finish();
  }

  /** A range within one page. */
  private record Piece(int page, RowRange range) {}

  private static List<Piece> pieces(ColumnReader column, long[] r) {
    List<Piece> out = new ArrayList<>();
    ColumnInfo info = column.info();
    long row = r[0];
    if (r[1] > info.numRows()) {
      throw new CorruptFileException(
          "Cannot read column "
              + info.index()
              + ": rows up to "
              + r[1]
              + " are referenced but it holds "
              + info.numRows()
              + ". The file is corrupt.");
    }
    while (row < r[1]) {
      int p = info.pageOf(row);
      PageInfo page = info.pages().get(p);
      long end = Math.min(r[1], page.endRow());
      out.add(
          new Piece(p, new RowRange((int) (row - page.firstRow()), (int) (end - page.firstRow()))));
      row = end;
    }
    return out;
  }

  /** First item (row of the item column) of a list page: the items of the pages before it. */
  private static long itemBase(ColumnInfo info, int page) {
    long base = 0;
    for (int p = 0; p < page; p++) {
      PageInfo pi = info.pages().get(p);
      if (pi.arrayEncoding() == null || !pi.arrayEncoding().hasList()) {
        throw new CorruptFileException(
            "Cannot read column "
                + info.index()
                + ": page "
                + p
                + " of a format 2.0 list column is not a list page. The file is corrupt.");
      }
      base += pi.arrayEncoding().getList().getNumItems();
    }
    return base;
  }
}
