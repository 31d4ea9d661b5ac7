package dev.lancelot.engine.internal.file.v20;

import dev.lancelot.engine.internal.file.arrow.ColumnSink;
import dev.lancelot.engine.internal.file.codec.DecodeException;
import dev.lancelot.engine.internal.file.codec.FixedValues;
import dev.lancelot.engine.internal.file.codec.FslValues;
import dev.lancelot.engine.internal.file.codec.GeneralCompression;
import dev.lancelot.engine.internal.file.codec.PackedStructs;
import dev.lancelot.engine.internal.file.codec.StructValues;
import dev.lancelot.engine.internal.file.codec.Values;
import dev.lancelot.engine.internal.file.codec.VarValues;
import dev.lancelot.engine.internal.file.container.PageInfo;
import dev.lancelot.engine.internal.file.layout.Dictionaries;
import dev.lancelot.engine.internal.file.layout.PageIo;
import dev.lancelot.engine.internal.file.layout.PageLoad;
import dev.lancelot.engine.internal.file.layout.PageReader;
import dev.lancelot.engine.internal.file.layout.RowRange;
import dev.lancelot.engine.internal.file.layout.RowSource;
import dev.lancelot.engine.io.ByteRange;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads rows of one format 2.0 page (see {@link Encoding20} for the byte layouts). Fixed-width
 * values, validity bits and binary indices are read for the requested rows only; binary value bytes
 * in a second round once the indices give their range; dictionaries and compressed buffers whole
 * (dictionaries once per page). List and struct pages are read by {@link Nested20Reader} ({@link
 * #listRanges}).
 */
public final class Page20Reader implements PageReader {
  private final PageInfo page;
  private final Encoding20 enc;
  private volatile VarValues dictionary;

  public Page20Reader(PageInfo page) {
    this.page = page;
    this.enc = Encoding20.parse(page.arrayEncoding());
  }

  Encoding20 encoding() {
    return enc;
  }

  @Override
  public PageInfo page() {
    return page;
  }

  @Override
  public String describe() {
    return Encoding20.describe(page.arrayEncoding());
  }

  /** A compact description of a 2.0 page encoding, e.g. {@code Nullable(Flat(64))}. */
  public static String describe(
      dev.lancelot.engine.internal.file.proto.Encodings20Protos.ArrayEncoding e) {
    return Encoding20.describe(e);
  }

  @Override
  public long estimateBytes(int start, int end) {
    long total = 0;
    for (long s : page.bufferSizes()) {
      total += s;
    }
    return page.numRows() == 0 ? 0 : total * (end - start) / page.numRows();
  }

  private ByteRange range(Encoding20.FlatRef f, long firstValue, long endValue) {
    long pos = page.bufferOffset(checkBuffer(f));
    if (f.compression() != null) {
      return new ByteRange(pos, page.bufferSize(f.buffer()));
    }
    long from = f.bits() == 1 ? firstValue >>> 3 : firstValue * f.bits() / 8;
    long to = f.bits() == 1 ? (endValue + 7) >>> 3 : endValue * f.bits() / 8;
    if (to > page.bufferSize(f.buffer())) {
      throw DecodeException.corrupt(
          "page buffer "
              + f.buffer()
              + " of "
              + page.bufferSize(f.buffer())
              + " bytes is too short for "
              + endValue
              + " values of "
              + f.bits()
              + " bits");
    }
    return new ByteRange(pos + from, to - from);
  }

  private int checkBuffer(Encoding20.FlatRef f) {
    if (f.buffer() < 0 || f.buffer() >= page.numBuffers()) {
      throw DecodeException.corrupt(
          "encoding refers to page buffer " + f.buffer() + " of " + page.numBuffers());
    }
    return f.buffer();
  }

  /** The values {@code [first, end)} of a fetched (possibly compressed whole) buffer. */
  private static ByteBuffer values(Encoding20.FlatRef f, ByteBuffer fetched, long first, long end) {
    if (f.compression() == null) {
      return fetched;
    }
    byte[] raw = GeneralCompression.decompress(f.compression(), fetched, 0, fetched.limit());
    long from = first * f.bits() / 8;
    long to = end * f.bits() / 8;
    if (f.bits() % 8 != 0 || to > raw.length) {
      throw DecodeException.corrupt(
          "compressed buffer of " + raw.length + " bytes holds fewer than " + end + " values");
    }
    return ByteBuffer.wrap(raw, (int) from, (int) (to - from))
        .slice()
        .order(ByteOrder.LITTLE_ENDIAN);
  }

  @Override
  public PageLoad plan(List<RowRange> ranges) {
    return switch (enc.kind()) {
      case ALL_NULL -> new Load(ranges, 0);
      case VALUES, FSL, PACKED -> new Load(ranges, 1);
      case BINARY, DICTIONARY -> new Load(ranges, 2);
      case LIST, STRUCT ->
          throw DecodeException.corrupt(
              "a format 2.0 "
                  + enc.kind().name().toLowerCase(java.util.Locale.ROOT)
                  + " page read as values");
    };
  }

  /** Up to two rounds: values, validity and indices; then binary bytes (and the dictionary). */
  private final class Load implements PageLoad {
    private final List<RowRange> ranges;
    private final int rounds;
    private int round;
    private List<ByteBuffer> first;
    private List<RowSource> sources;

    Load(List<RowRange> ranges, int rounds) {
      this.ranges = ranges;
      this.rounds = rounds;
      if (rounds == 0) {
        List<RowSource> out = new ArrayList<>();
        for (RowRange r : ranges) {
          out.add(new NullRows(r.length()));
        }
        sources = out;
      }
    }

    @Override
    public List<ByteRange> reads() {
      List<ByteRange> out = new ArrayList<>();
      if (round == 0) {
        for (RowRange r : ranges) {
          switch (enc.kind()) {
            case VALUES, PACKED -> {
              if (enc.validity() != null) {
                out.add(range(enc.validity(), r.start(), r.end()));
              }
              out.add(range(enc.values(), r.start(), r.end()));
            }
            case FSL -> {
              long d = enc.dimension();
              if (enc.validity() != null) {
                out.add(range(enc.validity(), r.start(), r.end()));
              }
              if (enc.itemValidity() != null) {
                out.add(range(enc.itemValidity(), r.start() * d, r.end() * d));
              }
              out.add(range(enc.values(), r.start() * d, r.end() * d));
            }
            default -> out.add(range(enc.indices(), Math.max(0, r.start() - 1), r.end()));
          }
        }
        if (enc.kind() == Encoding20.Kind.DICTIONARY && dictionary == null) {
          out.add(
              new ByteRange(
                  page.bufferOffset(checkBuffer(enc.values())),
                  page.bufferSize(enc.values().buffer())));
          out.add(
              new ByteRange(
                  page.bufferOffset(checkBuffer(enc.bytes())),
                  page.bufferSize(enc.bytes().buffer())));
        }
        return out;
      }
      if (enc.kind() == Encoding20.Kind.BINARY) {
        for (int i = 0; i < ranges.size(); i++) {
          long[] b = byteBounds(first.get(i), ranges.get(i));
          out.add(range(enc.bytes(), b[0], b[1]));
        }
      }
      return out;
    }

    @Override
    public void supply(List<ByteBuffer> buffers) {
      round++;
      if (round == 1) {
        first = buffers;
        if (enc.kind() == Encoding20.Kind.DICTIONARY && dictionary == null) {
          int n = buffers.size();
          dictionary =
              binary(
                  buffers.get(n - 2),
                  buffers.get(n - 1),
                  enc.numDictionaryItems(),
                  enc.values(),
                  enc.bytes(),
                  enc.nullAdjustment());
        }
        if (rounds == 1 || enc.kind() == Encoding20.Kind.DICTIONARY) {
          build(buffers, null);
        }
        return;
      }
      build(first, buffers);
    }

    private void build(List<ByteBuffer> bufs, List<ByteBuffer> second) {
      List<RowSource> out = new ArrayList<>(ranges.size());
      int k = 0;
      for (int i = 0; i < ranges.size(); i++) {
        RowRange r = ranges.get(i);
        switch (enc.kind()) {
          case VALUES, PACKED -> {
            ByteBuffer validity = enc.validity() != null ? bufs.get(k++) : null;
            ByteBuffer v = values(enc.values(), bufs.get(k++), r.start(), r.end());
            out.add(new ValueRows(r, validity, v, null));
          }
          case FSL -> {
            long d = enc.dimension();
            ByteBuffer validity = enc.validity() != null ? bufs.get(k++) : null;
            ByteBuffer items = enc.itemValidity() != null ? bufs.get(k++) : null;
            ByteBuffer v = values(enc.values(), bufs.get(k++), r.start() * d, r.end() * d);
            out.add(new ValueRows(r, validity, v, items));
          }
          case BINARY -> {
            ByteBuffer indices = bufs.get(k++);
            long[] b = byteBounds(indices, r);
            ByteBuffer bytes = values(enc.bytes(), second.get(i), b[0], b[1]);
            out.add(new BinaryRows(r, indices, bytes));
          }
          default -> out.add(new DictionaryRows(r, bufs.get(k++)));
        }
      }
      sources = out;
    }

    @Override
    public boolean done() {
      return sources != null;
    }

    @Override
    public List<RowSource> sources() {
      return sources;
    }
  }

  private long index(ByteBuffer indices, int i) {
    int w = enc.indices().bits() / 8;
    return switch (w) {
      case 1 -> Byte.toUnsignedLong(indices.get(i));
      case 2 -> Short.toUnsignedLong(indices.getShort(2 * i));
      case 4 -> Integer.toUnsignedLong(indices.getInt(4 * i));
      default -> indices.getLong(8 * i);
    };
  }

  private long norm(long v) {
    return v >= enc.nullAdjustment() ? v - enc.nullAdjustment() : v;
  }

  /** Bytes {@code [from, to)} of a binary range: from the end of the value before it. */
  private long[] byteBounds(ByteBuffer indices, RowRange r) {
    if (r.length() == 0) {
      return new long[] {0, 0};
    }
    int base = r.start() > 0 ? 1 : 0;
    long from = base == 1 ? norm(index(indices, 0)) : 0;
    long to = norm(index(indices, base + r.length() - 1));
    if (to < from) {
      throw DecodeException.corrupt(
          "format 2.0 binary indices go backwards (" + from + " then " + to + ")");
    }
    return new long[] {from, to};
  }

  /** Decodes a whole binary array of {@code n} values (dictionary items). */
  private static VarValues binary(
      ByteBuffer indices,
      ByteBuffer bytes,
      int n,
      Encoding20.FlatRef indexRef,
      Encoding20.FlatRef bytesRef,
      long nullAdjustment) {
    if (indices.limit() < (long) n * indexRef.bits() / 8) {
      throw DecodeException.corrupt(
          "dictionary of " + n + " items with " + indices.limit() + " bytes of indices");
    }
    ByteBuffer data =
        bytesRef.compression() == null
            ? bytes
            : ByteBuffer.wrap(
                    GeneralCompression.decompress(bytesRef.compression(), bytes, 0, bytes.limit()))
                .order(ByteOrder.LITTLE_ENDIAN);
    FixedValues idx = new FixedValues(indices, 0, indexRef.bits(), n);
    int[] offsets = new int[n + 1];
    for (int i = 0; i < n; i++) {
      long v = idx.getUnsigned(i);
      long end = v >= nullAdjustment ? v - nullAdjustment : v;
      if (end < offsets[i] || end > data.limit()) {
        throw DecodeException.corrupt(
            "dictionary item " + i + " ends at " + end + " of " + data.limit() + " bytes");
      }
      offsets[i + 1] = (int) end;
    }
    byte[] copy = new byte[offsets[n]];
    data.get(0, copy);
    return VarValues.wrap(copy, copy.length, offsets, n);
  }

  private static short[] defs(ByteBuffer validity, long firstBit, int n) {
    if (validity == null) {
      return null;
    }
    short[] out = new short[n];
    for (int i = 0; i < n; i++) {
      long b = firstBit + i;
      out[i] = (short) (((validity.get((int) (b >>> 3)) >>> (b & 7)) & 1) == 0 ? 1 : 0);
    }
    return out;
  }

  private abstract static class Rows implements RowSource {
    final int rows;
    int next;

    Rows(int rows) {
      this.rows = rows;
    }

    @Override
    public int remaining() {
      return rows - next;
    }

    void check(int n, ColumnSink sink) {
      if (n > remaining()) {
        throw new IllegalArgumentException("Asked for " + n + " rows, " + remaining() + " remain");
      }
      if (sink.nested()) {
        throw DecodeException.corrupt("a format 2.0 value page for the leaf of a 2.1 nested field");
      }
    }
  }

  private static final class NullRows extends Rows {
    NullRows(int rows) {
      super(rows);
    }

    @Override
    public void emit(int n, ColumnSink sink) {
      check(n, sink);
      sink.appendNulls(n);
      next += n;
    }
  }

  /** Fixed-width values or fixed-size lists, with optional validity (and item validity). */
  private final class ValueRows extends Rows {
    private final int start;
    private final ByteBuffer validity;
    private final ByteBuffer values;
    private final ByteBuffer itemValidity;

    ValueRows(RowRange r, ByteBuffer validity, ByteBuffer values, ByteBuffer itemValidity) {
      super(r.length());
      this.start = r.start();
      this.validity = validity;
      this.values = values;
      this.itemValidity = itemValidity;
    }

    @Override
    public void emit(int n, ColumnSink sink) {
      check(n, sink);
      short[] defs = defs(validity, (start & 7) + next, n);
      int bits = enc.values().bits();
      Values v;
      int from;
      if (enc.kind() == Encoding20.Kind.PACKED) {
        v = packed(enc.packed(), values, next * (bits / 8), bits / 8, 0, n);
        from = 0;
      } else if (enc.kind() == Encoding20.Kind.FSL) {
        int d = enc.dimension();
        long itemBit = itemValidity == null ? 0 : ((long) start * d) & 7;
        v =
            new FslValues(
                d, itemValidity, itemBit, new FixedValues(values, 0, bits, rows * d), rows);
        from = next;
      } else if (bits == 1) {
        int bit = enc.values().compression() == null ? start & 7 : 0;
        v = new FixedValues(values, 0, 1, bit + rows);
        from = bit + next;
      } else {
        v = new FixedValues(values, 0, bits, rows);
        from = next;
      }
      sink.append(v, from, n, defs, 0);
      next += n;
    }
  }

  /**
   * The values of packed struct member {@code m} (at byte {@code at} of each row) of {@code n} rows
   * of {@code rowBytes} bytes from byte {@code first} of {@code rows}.
   */
  private static Values packed(
      Encoding20.PackedMember m, ByteBuffer rows, int first, int rowBytes, int at, int n) {
    if (m.members() != null) {
      List<Values> members = new ArrayList<>(m.members().size());
      int pos = at;
      for (Encoding20.PackedMember member : m.members()) {
        members.add(packed(member, rows, first, rowBytes, pos, n));
        pos += member.rowBytes();
      }
      return new StructValues(members, n);
    }
    byte[] bytes = PackedStructs.gather(rows, first, rowBytes, at, m.rowBytes(), n);
    if (m.dimension() > 0) {
      return new FslValues(
          m.dimension(), null, 0, FixedValues.wrap(bytes, m.bits(), n * m.dimension()), n);
    }
    return FixedValues.wrap(bytes, m.bits(), n);
  }

  private final class BinaryRows extends Rows {
    private final boolean skipFirst;
    private final ByteBuffer indices;
    private final ByteBuffer bytes;
    private final long base;

    BinaryRows(RowRange r, ByteBuffer indices, ByteBuffer bytes) {
      super(r.length());
      this.skipFirst = r.start() > 0;
      this.indices = indices;
      this.bytes = bytes;
      this.base = r.length() == 0 ? 0 : byteBounds(indices, r)[0];
    }

    @Override
    public void emit(int n, ColumnSink sink) {
      check(n, sink);
      int k = skipFirst ? 1 : 0;
      int[] offsets = new int[n + 1];
      short[] defs = null;
      long prev = next == 0 ? base : norm(index(indices, k + next - 1));
      offsets[0] = (int) (prev - base);
      for (int i = 0; i < n; i++) {
        long v = index(indices, k + next + i);
        if (v >= enc.nullAdjustment()) {
          if (defs == null) {
            defs = new short[n];
          }
          defs[i] = 1;
        }
        long end = norm(v);
        if (end < prev || end - base > bytes.limit()) {
          throw DecodeException.corrupt(
              "format 2.0 binary value ends at "
                  + end
                  + " outside its "
                  + bytes.limit()
                  + " bytes");
        }
        offsets[i + 1] = (int) (end - base);
        prev = end;
      }
      ByteBuffer off = ByteBuffer.allocate(4 * (n + 1)).order(ByteOrder.LITTLE_ENDIAN);
      off.asIntBuffer().put(offsets);
      sink.append(new VarValues(bytes, off, 0, 4, n), 0, n, defs, 0);
      next += n;
    }
  }

  private final class DictionaryRows extends Rows {
    private final ByteBuffer indices;
    private final int skip;

    DictionaryRows(RowRange r, ByteBuffer indices) {
      super(r.length());
      this.indices = indices;
      this.skip = r.start() > 0 ? 1 : 0;
    }

    @Override
    public void emit(int n, ColumnSink sink) {
      check(n, sink);
      short[] defs = new short[n];
      byte[] adjusted = new byte[4 * n];
      ByteBuffer a = ByteBuffer.wrap(adjusted).order(ByteOrder.LITTLE_ENDIAN);
      boolean anyNull = false;
      for (int i = 0; i < n; i++) {
        long k = index(indices, skip + next + i);
        if (k == 0) {
          defs[i] = 1;
          anyNull = true;
        } else {
          a.putInt(4 * i, (int) (k - 1));
        }
      }
      Values v = Dictionaries.gather(dictionary, FixedValues.wrap(adjusted, 32, n), defs);
      sink.append(v, 0, n, anyNull ? defs : null, 0);
      next += n;
    }
  }

  /** Per requested range of a list page: list validity and lengths, and the items they span. */
  public record ListRange(
      int lists, long[] lengths, boolean[] valid, long itemStart, long itemEnd) {}

  /** Reads the offsets of list-page rows (one round of I/O). */
  public List<ListRange> listRanges(List<RowRange> ranges, PageIo io) {
    if (enc.kind() != Encoding20.Kind.LIST) {
      throw DecodeException.corrupt("a format 2.0 " + enc.kind() + " page read as a list page");
    }
    List<ByteRange> reads = new ArrayList<>();
    for (RowRange r : ranges) {
      reads.add(range(enc.indices(), Math.max(0, r.start() - 1), r.end()));
    }
    List<ByteBuffer> bufs = io.read(reads);
    List<ListRange> out = new ArrayList<>(ranges.size());
    long adjustment = enc.nullAdjustment();
    for (int i = 0; i < ranges.size(); i++) {
      RowRange r = ranges.get(i);
      ByteBuffer b = bufs.get(i);
      int k = r.start() > 0 ? 1 : 0;
      long prev = k == 1 ? index(b, 0) % adjustment : 0;
      long start = prev;
      long[] lengths = new long[r.length()];
      boolean[] valid = new boolean[r.length()];
      for (int j = 0; j < r.length(); j++) {
        long v = index(b, k + j);
        long end = v % adjustment;
        if (end < prev) {
          throw DecodeException.corrupt(
              "format 2.0 list offsets go backwards (" + prev + " then " + end + ")");
        }
        valid[j] = v < adjustment;
        lengths[j] = end - prev;
        prev = end;
      }
      if (prev > enc.numItems()) {
        throw DecodeException.corrupt(
            "format 2.0 list page refers to item " + prev + " of " + enc.numItems());
      }
      out.add(new ListRange(r.length(), lengths, valid, start, prev));
    }
    return out;
  }

  /** Items the list page spans (the item column's rows of this page). */
  public long listItems() {
    return enc.numItems();
  }
}
