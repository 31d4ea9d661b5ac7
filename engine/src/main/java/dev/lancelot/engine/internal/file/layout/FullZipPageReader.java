package dev.lancelot.engine.internal.file.layout;

import dev.lancelot.engine.internal.file.arrow.ColumnSink;
import dev.lancelot.engine.internal.file.codec.Codecs;
import dev.lancelot.engine.internal.file.codec.DecodeException;
import dev.lancelot.engine.internal.file.codec.FixedPerValueDecoder;
import dev.lancelot.engine.internal.file.codec.ValueExpander;
import dev.lancelot.engine.internal.file.codec.Values;
import dev.lancelot.engine.internal.file.codec.VariablePerValueDecoder;
import dev.lancelot.engine.internal.file.container.PageInfo;
import dev.lancelot.engine.internal.file.proto.Encodings21Protos.FullZipLayout;
import dev.lancelot.engine.internal.file.repdef.RepDefLayers;
import dev.lancelot.engine.io.ByteRange;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * The full-zip layout for wide values: each value's control word is zipped with its bytes, so any
 * row can be located without decoding its neighbours. Page buffers:
 *
 * <pre>
 *   buffer 0: per item: [control word][value]
 *             control word: 0, 1, 2 or 4 bytes holding (rep << bits_def) | def; absent when
 *             bits_rep + bits_def = 0
 *             fixed width:    value = bits_per_value / 8 bytes, present for every visible item
 *                             (null items carry zero bytes)
 *             variable width: value = [length, bits_per_offset / 8 bytes][bytes], present only
 *                             for valid items (definition level 0)
 *             With lists, an "item" is a level entry: special entries (null or empty lists, see
 *             {@link RepDefLayers}) are not visible and have only their control word; a row
 *             runs from one max-repetition entry to the next.
 *   buffer 1: repetition index (variable width or lists only): rows + 1 unsigned integers of
 *             1, 2, 4 or 8 bytes (width = buffer size / (rows + 1)); entry r is the byte
 *             position of row r in buffer 0, the last entry its size
 * </pre>
 *
 * Fixed-width rows without lists are found by multiplication; others through the repetition index,
 * reading only its entries for the requested ranges.
 */
public final class FullZipPageReader implements PageReader {
  private final PageInfo page;
  private final FullZipLayout layout;
  // How values and control words are zipped: read by the row sources of this package.
  final RepDefLayers repdef;
  private final boolean lists;
  final int controlBytes;
  final int bitsDef;
  final int defMask;
  final int repMask;
  final FixedPerValueDecoder fixed;
  final VariablePerValueDecoder variable;
  final ValueExpander expander;
  final int valueBytes;
  final int lengthBytes;
  private final int indexWidth;

  /** Decoded bytes handed to the sink at a time by the direct variable-width path. */
  static final int CHUNK = 1 << 16;

  public FullZipPageReader(PageInfo page, FullZipLayout layout) {
    this.page = page;
    this.layout = layout;
    this.repdef = RepDefLayers.of(layout.getLayersList());
    this.lists = repdef.maxRep() > 0;
    if (lists != layout.getBitsRep() > 0) {
      throw DecodeException.corrupt(
          "full-zip page with layers "
              + repdef
              + " and "
              + layout.getBitsRep()
              + " repetition bits");
    }
    int bits = layout.getBitsRep() + layout.getBitsDef();
    if (layout.getBitsRep() > 16 || layout.getBitsDef() > 16) {
      throw DecodeException.corrupt(
          "full-zip page with "
              + layout.getBitsRep()
              + " repetition and "
              + layout.getBitsDef()
              + " definition bits");
    }
    this.controlBytes = bits == 0 ? 0 : bits <= 8 ? 1 : bits <= 16 ? 2 : 4;
    this.bitsDef = layout.getBitsDef();
    this.defMask = (1 << layout.getBitsDef()) - 1;
    this.repMask = (1 << layout.getBitsRep()) - 1;
    if (page.numBuffers() < 1) {
      throw DecodeException.corrupt("full-zip page without a data buffer");
    }
    switch (layout.getDetailsCase()) {
      case BITS_PER_VALUE -> {
        this.fixed = Codecs.fixedPerValue(layout.getValueCompression());
        this.variable = null;
        if (layout.getBitsPerValue() % 8 != 0 || fixed.bitsPerValue() != layout.getBitsPerValue()) {
          throw DecodeException.corrupt(
              "full-zip page declares "
                  + layout.getBitsPerValue()
                  + " bits per value but its encoding "
                  + Codecs.describe(layout.getValueCompression())
                  + " needs "
                  + fixed.bitsPerValue());
        }
        this.valueBytes = layout.getBitsPerValue() / 8;
        this.lengthBytes = 0;
        long expected = (long) (controlBytes + valueBytes) * page.numRows();
        if (!lists && page.bufferSize(0) < expected) {
          throw DecodeException.corrupt(
              "full-zip page buffer of "
                  + page.bufferSize(0)
                  + " bytes, "
                  + expected
                  + " expected for "
                  + page.numRows()
                  + " rows");
        }
      }
      case BITS_PER_OFFSET -> {
        this.fixed = null;
        this.variable = Codecs.variablePerValue(layout.getValueCompression());
        this.valueBytes = 0;
        int lb = layout.getBitsPerOffset() / 8;
        if ((lb != 1 && lb != 2 && lb != 4 && lb != 8) || layout.getBitsPerOffset() % 8 != 0) {
          throw DecodeException.corrupt(
              "full-zip page with " + layout.getBitsPerOffset() + "-bit lengths");
        }
        this.lengthBytes = lb;
      }
      default ->
          throw DecodeException.corrupt("full-zip page without bits_per_value or bits_per_offset");
    }
    this.expander = variable == null ? null : variable.expander();
    if (variable != null || lists) {
      if (page.numBuffers() < 2) {
        throw DecodeException.corrupt(
            "full-zip page of "
                + (lists ? "lists" : "variable-width values")
                + " without a repetition index");
      }
      long entries = page.numRows() + 1;
      long w = page.bufferSize(1) / entries;
      if (page.bufferSize(1) % entries != 0 || (w != 1 && w != 2 && w != 4 && w != 8)) {
        throw DecodeException.corrupt(
            "full-zip repetition index of "
                + page.bufferSize(1)
                + " bytes for "
                + page.numRows()
                + " rows");
      }
      this.indexWidth = (int) w;
    } else {
      this.indexWidth = 0;
    }
  }

  @Override
  public PageInfo page() {
    return page;
  }

  private int stride() {
    return controlBytes + valueBytes;
  }

  /**
   * The layout of this page's rows when they are plain fixed-width values (no compression, lists,
   * nesting or inner validity) that a reader may use as stored; otherwise null.
   */
  public PlainRows plainRows() {
    if (fixed == null
        || lists
        || repdef.nested()
        || controlBytes > 2
        || !Codecs.isPlainFixed(layout.getValueCompression())) {
      return null;
    }
    return new PlainRows(page.bufferOffset(0), controlBytes, valueBytes, defMask);
  }

  @Override
  public PageLoad plan(List<RowRange> ranges) {
    return fixed != null && !lists ? new FixedLoad(ranges) : new VariableLoad(ranges);
  }

  /** One round: the zipped bytes of each range, located by multiplication. */
  private final class FixedLoad implements PageLoad {
    private final List<RowRange> ranges;
    private List<RowSource> sources;

    FixedLoad(List<RowRange> ranges) {
      this.ranges = ranges;
    }

    @Override
    public List<ByteRange> reads() {
      long data = page.bufferOffset(0);
      List<ByteRange> out = new ArrayList<>(ranges.size());
      for (RowRange r : ranges) {
        out.add(new ByteRange(data + (long) r.start() * stride(), (long) r.length() * stride()));
      }
      return out;
    }

    @Override
    public void supply(List<ByteBuffer> buffers) {
      List<RowSource> out = new ArrayList<>(ranges.size());
      for (int i = 0; i < ranges.size(); i++) {
        out.add(new FixedRows(buffers.get(i), ranges.get(i).length()));
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

  /**
   * Two rounds: the repetition index entries bounding each range, then the bytes between them
   * (variable-width values, or lists).
   */
  private final class VariableLoad implements PageLoad {
    private final List<RowRange> ranges;
    private List<ByteRange> dataRanges;
    private List<RowSource> sources;

    VariableLoad(List<RowRange> ranges) {
      this.ranges = ranges;
    }

    @Override
    public List<ByteRange> reads() {
      if (dataRanges != null) {
        return dataRanges;
      }
      long index = page.bufferOffset(1);
      List<ByteRange> out = new ArrayList<>(ranges.size());
      for (RowRange r : ranges) {
        out.add(
            new ByteRange(
                index + (long) r.start() * indexWidth, (long) (r.length() + 1) * indexWidth));
      }
      return out;
    }

    @Override
    public void supply(List<ByteBuffer> buffers) {
      if (dataRanges == null) {
        long data = page.bufferOffset(0);
        List<ByteRange> out = new ArrayList<>(ranges.size());
        for (int i = 0; i < ranges.size(); i++) {
          long from = entry(buffers.get(i), 0);
          long to = entry(buffers.get(i), ranges.get(i).length());
          if (from < 0 || to < from || to > page.bufferSize(0)) {
            throw DecodeException.corrupt(
                "full-zip repetition index points to ["
                    + from
                    + ", "
                    + to
                    + ") outside a data buffer of "
                    + page.bufferSize(0)
                    + " bytes");
          }
          out.add(new ByteRange(data + from, to - from));
        }
        dataRanges = out;
        return;
      }
      List<RowSource> out = new ArrayList<>(ranges.size());
      for (int i = 0; i < ranges.size(); i++) {
        out.add(
            lists
                ? new FullZipListRows(
                    FullZipPageReader.this, buffers.get(i), ranges.get(i).length())
                : new FullZipVariableRows(
                    FullZipPageReader.this, buffers.get(i), ranges.get(i).length()));
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

  private long entry(ByteBuffer buf, int i) {
    return switch (indexWidth) {
      case 1 -> Byte.toUnsignedLong(buf.get(i));
      case 2 -> Short.toUnsignedLong(buf.getShort(2 * i));
      case 4 -> Integer.toUnsignedLong(buf.getInt(4 * i));
      default -> buf.getLong(8 * i);
    };
  }

  @Override
  public long estimateBytes(int start, int end) {
    if (fixed != null && !lists) {
      return (long) (end - start) * stride();
    }
    return page.numRows() == 0 ? 0 : page.bufferSize(0) * (end - start) / page.numRows();
  }

  /** The stored length of a variable-width value at {@code pos} ({@code lengthBytes} wide). */
  long readLength(ByteBuffer buf, int pos) {
    return switch (lengthBytes) {
      case 1 -> Byte.toUnsignedLong(buf.get(pos));
      case 2 -> Short.toUnsignedLong(buf.getShort(pos));
      case 4 -> Integer.toUnsignedLong(buf.getInt(pos));
      default -> buf.getLong(pos);
    };
  }

  int readControl(ByteBuffer buf, int pos) {
    return switch (controlBytes) {
      case 1 -> Byte.toUnsignedInt(buf.get(pos));
      case 2 -> Short.toUnsignedInt(buf.getShort(pos));
      default -> buf.getInt(pos);
    };
  }

  /** Fixed-width rows: zero-copy when there are no control words. */
  private final class FixedRows implements RowSource {
    private final ByteBuffer buf;
    private final int rows;
    private int next;

    FixedRows(ByteBuffer buf, int rows) {
      this.buf = buf;
      this.rows = rows;
    }

    @Override
    public int remaining() {
      return rows - next;
    }

    @Override
    public void emit(int n, ColumnSink sink) {
      if (n > remaining()) {
        throw new IllegalArgumentException("Asked for " + n + " rows, " + remaining() + " remain");
      }
      checkNesting(sink);
      int pos = next * stride();
      if (controlBytes == 0) {
        if (sink.nested()) {
          sink.appendLevels(repdef.canonical(), null, null, 0, n);
        }
        sink.append(fixed.decode(buf, pos, n), 0, n, null, 0);
      } else {
        short[] defs = new short[n];
        byte[] packed = new byte[n * valueBytes];
        for (int i = 0; i < n; i++) {
          defs[i] = (short) (readControl(buf, pos) & defMask);
          buf.get(pos + controlBytes, packed, i * valueBytes, valueBytes);
          pos += stride();
        }
        Values v = fixed.decode(ByteBuffer.wrap(packed).order(ByteOrder.LITTLE_ENDIAN), 0, n);
        if (sink.nested()) {
          repdef.toCanonical(defs, 0, n);
          sink.appendLevels(repdef.canonical(), null, defs, 0, n);
        }
        sink.append(v, 0, n, defs, 0);
      }
      next += n;
    }
  }

  void checkNesting(ColumnSink sink) {
    if (sink.nested() != repdef.nested() && (sink.nested() || !repdef.flat())) {
      throw DecodeException.corrupt("page layers " + repdef + " do not match the column's nesting");
    }
  }

  @Override
  public String describe() {
    return Layouts.describe(layout);
  }
}
