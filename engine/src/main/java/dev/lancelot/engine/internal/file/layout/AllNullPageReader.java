package dev.lancelot.engine.internal.file.layout;

import dev.lancelot.engine.internal.file.arrow.ColumnSink;
import dev.lancelot.engine.internal.file.codec.Codecs;
import dev.lancelot.engine.internal.file.codec.DecodeException;
import dev.lancelot.engine.internal.file.codec.FixedValues;
import dev.lancelot.engine.internal.file.codec.Values;
import dev.lancelot.engine.internal.file.codec.VarValues;
import dev.lancelot.engine.internal.file.container.PageInfo;
import dev.lancelot.engine.internal.file.proto.Encodings21Protos.AllNullLayout;
import dev.lancelot.engine.internal.file.proto.Encodings21Protos.CompressiveEncoding;
import dev.lancelot.engine.internal.file.proto.Encodings21Protos.RepDefLayer;
import dev.lancelot.engine.internal.file.repdef.RepDefLayers;
import dev.lancelot.engine.io.ByteRange;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The all-null layout, and the constant pages format 2.2 stores in the same message.
 *
 * <ul>
 *   <li>All null: no buffers, one {@code NULLABLE_ITEM} layer. Nothing is read.
 *   <li>Constant (2.2): every valid row has the same value, stored either inline in {@code
 *       constant_value} or, when absent, in page buffer 0 as a serialized one-value array:
 *       <pre>
 *         [u32] number of buffers b (1 for fixed width; 2 for strings/binary: offsets, bytes)
 *         [u32 x b] byte length of each buffer
 *         [buffers] back to back
 *       </pre>
 *       With a {@code NULLABLE_ITEM} layer two more buffers follow: repetition levels (empty for
 *       non-nested columns) and definition levels, raw u16 per row (0 = valid).
 *   <li>Nested columns (several layers): no item has a value (all null, or only null and empty
 *       lists), or (2.2) every valid item has the constant value. The levels are stored raw:
 *       <pre>
 *         buffer b:     [u16 x entries] repetition levels (empty without lists)
 *         buffer b + 1: [u16 x entries] definition levels (empty when all valid)
 *       </pre>
 *       where b is 1 after a constant's value buffer, else 0. They are read whole on first use and
 *       rows are located by their max-repetition entries.
 * </ul>
 */
public final class AllNullPageReader implements PageReader {
  private final PageInfo page;
  private final AllNullLayout layout;
  private final RepDefLayers repdef;
  private final boolean inline;
  private final boolean constant;
  private final int defBuffer;
  private final int levelBuffer;
  private volatile Values value;
  private volatile Levels levels;

  /** Canonical levels of a nested page and the level index of each row start (rows + 1 entries). */
  private record Levels(short[] rep, short[] def, int count, int[] rowStart) {}

  public AllNullPageReader(PageInfo page, AllNullLayout layout) {
    this.page = page;
    this.layout = layout;
    this.repdef = RepDefLayers.of(layout.getLayersList());
    this.inline = layout.hasConstantValue();
    int buffers = page.numBuffers();
    int scalarBuffers = inline ? 0 : (buffers == 1 || buffers == 3 ? 1 : 0);
    this.constant = inline || scalarBuffers == 1;
    int levelBuffers = buffers - scalarBuffers;
    if (repdef.nested()) {
      if (levelBuffers != 0 && levelBuffers != 2) {
        throw DecodeException.corrupt(
            (constant ? "constant" : "all-null")
                + " page of a nested column with "
                + buffers
                + " buffers");
      }
      this.levelBuffer = levelBuffers == 2 ? scalarBuffers : -1;
      this.defBuffer = -1;
      if (levelBuffer < 0 && (repdef.maxRep() > 0 || !constant)) {
        throw DecodeException.corrupt("all-null page with layers " + repdef + " but no levels");
      }
      return;
    }
    this.levelBuffer = -1;
    RepDefLayer layer = layout.getLayers(0);
    if (!constant) {
      if (buffers != 0 || layer != RepDefLayer.REPDEF_NULLABLE_ITEM) {
        throw DecodeException.unsupported(
            "all-null pages with " + buffers + " buffers and layer " + layer);
      }
      this.defBuffer = -1;
    } else if (levelBuffers == 0) {
      if (layer != RepDefLayer.REPDEF_ALL_VALID_ITEM) {
        throw DecodeException.corrupt(
            "constant page with layer " + layer + " but no definition levels");
      }
      this.defBuffer = -1;
    } else if (levelBuffers == 2 && layer == RepDefLayer.REPDEF_NULLABLE_ITEM) {
      if (page.bufferSize(scalarBuffers) != 0) {
        throw DecodeException.corrupt(
            "constant page of a non-nested column with repetition levels");
      }
      this.defBuffer = scalarBuffers + 1;
      if (page.bufferSize(defBuffer) != 2 * page.numRows()) {
        throw DecodeException.corrupt(
            "constant page has "
                + page.bufferSize(defBuffer)
                + " bytes of definition levels for "
                + page.numRows()
                + " rows");
      }
    } else {
      throw DecodeException.corrupt(
          "constant page with " + buffers + " buffers and layer " + layer);
    }
  }

  @Override
  public PageInfo page() {
    return page;
  }

  private static Values parseScalar(ByteBuffer buf) {
    if (buf.limit() < 4) {
      throw DecodeException.corrupt("constant value buffer of " + buf.limit() + " bytes");
    }
    int n = buf.getInt(0);
    if (n < 1 || n > 2 || buf.limit() < 4 + 4 * n) {
      throw DecodeException.unsupported("constant values made of " + n + " buffers");
    }
    int pos = 4 + 4 * n;
    int first = buf.getInt(4);
    if (n == 1) {
      return new FixedValues(Codecs.slice(buf, pos, first), 0, first * 8, 1);
    }
    int second = buf.getInt(8);
    if (first != 8 && first != 16) {
      throw DecodeException.corrupt("constant string value with " + first + " bytes of offsets");
    }
    ByteBuffer offsets = Codecs.slice(buf, pos, first);
    ByteBuffer data = Codecs.slice(buf, pos + first, second);
    return new VarValues(data, offsets, 0, first / 2, 1).validate();
  }

  @Override
  public PageLoad plan(List<RowRange> ranges) {
    return new Load(ranges);
  }

  /**
   * At most one round: the constant's buffer (first use only) and the ranges' definition levels.
   */
  private final class Load implements PageLoad {
    private final List<RowRange> ranges;
    private final boolean needValue;
    private List<RowSource> sources;

    private final boolean needLevels;

    Load(List<RowRange> ranges) {
      this.ranges = ranges;
      if (constant && inline && value == null) {
        byte[] bytes = layout.getConstantValue().toByteArray();
        value = FixedValues.wrap(bytes, bytes.length * 8, 1);
      }
      this.needValue = constant && value == null;
      this.needLevels = levelBuffer >= 0 && levels == null;
      if (repdef.nested()) {
        if (!needValue && !needLevels) {
          buildNested();
        }
      } else if (!constant) {
        List<RowSource> out = new ArrayList<>(ranges.size());
        for (RowRange r : ranges) {
          out.add(new Rows(null, null, r.length()));
        }
        sources = out;
      } else if (!needValue && defBuffer < 0) {
        build(List.of(), 0);
      }
    }

    @Override
    public List<ByteRange> reads() {
      List<ByteRange> out = new ArrayList<>(ranges.size() + 1);
      if (needValue) {
        out.add(new ByteRange(page.bufferOffset(0), page.bufferSize(0)));
      }
      if (needLevels) {
        out.add(new ByteRange(page.bufferOffset(levelBuffer), page.bufferSize(levelBuffer)));
        out.add(
            new ByteRange(page.bufferOffset(levelBuffer + 1), page.bufferSize(levelBuffer + 1)));
      }
      if (defBuffer >= 0) {
        for (RowRange r : ranges) {
          out.add(new ByteRange(page.bufferOffset(defBuffer) + 2L * r.start(), 2L * r.length()));
        }
      }
      return out;
    }

    @Override
    public void supply(List<ByteBuffer> buffers) {
      if (needValue) {
        value = parseScalar(buffers.get(0));
      }
      if (repdef.nested()) {
        if (needLevels) {
          int b = needValue ? 1 : 0;
          levels = parseLevels(buffers.get(b), buffers.get(b + 1));
        }
        buildNested();
        return;
      }
      build(buffers, needValue ? 1 : 0);
    }

    private void buildNested() {
      List<RowSource> out = new ArrayList<>(ranges.size());
      for (RowRange r : ranges) {
        out.add(new NestedRows(value, levels, r.start(), r.end()));
      }
      sources = out;
    }

    private void build(List<ByteBuffer> buffers, int firstDef) {
      List<RowSource> out = new ArrayList<>(ranges.size());
      for (int i = 0; i < ranges.size(); i++) {
        out.add(
            new Rows(
                value, defBuffer < 0 ? null : buffers.get(firstDef + i), ranges.get(i).length()));
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

  /** Rows of one range: nulls, or the constant (repeated) with optional definition levels. */
  private static final class Rows implements RowSource {
    private final Values value;
    private final ByteBuffer defs;
    private final int rows;
    private int next;

    Rows(Values value, ByteBuffer defs, int rows) {
      this.value = value;
      this.defs = defs;
      this.rows = rows;
    }

    @Override
    public int remaining() {
      return rows - next;
    }

    @Override
    public void emit(int n, ColumnSink sink) {
      if (sink.nested()) {
        throw DecodeException.corrupt("a page with one rep/def layer for a nested column");
      }
      if (value == null) {
        sink.appendNulls(n);
      } else {
        short[] levels = null;
        if (defs != null) {
          levels = new short[n];
          defs.asShortBuffer().get(next, levels, 0, n);
        }
        sink.append(repeat(value, n), 0, n, levels, 0);
      }
      next += n;
    }
  }

  /** Decodes one level buffer: raw u16, or (2.2) block-compressed; null when empty. */
  private static short[] levels(
      ByteBuffer buf, boolean compressed, CompressiveEncoding encoding, long count) {
    if (buf.limit() == 0) {
      return null;
    }
    if (compressed) {
      if (count <= 0 || count > Integer.MAX_VALUE) {
        throw DecodeException.corrupt("compressed level buffer of " + count + " levels");
      }
      return MiniBlockPageReader.toLevels(
          Codecs.block(encoding).decode(buf, (int) count), (int) count);
    }
    if (buf.limit() % 2 != 0) {
      throw DecodeException.corrupt("level buffer of " + buf.limit() + " bytes");
    }
    short[] out = new short[buf.limit() / 2];
    buf.asShortBuffer().get(out);
    return out;
  }

  private Levels parseLevels(ByteBuffer repBuf, ByteBuffer defBuf) {
    short[] rep =
        levels(
            repBuf,
            layout.hasRepCompression(),
            layout.getRepCompression(),
            layout.getNumRepValues());
    short[] def =
        levels(
            defBuf,
            layout.hasDefCompression(),
            layout.getDefCompression(),
            layout.getNumDefValues());
    int count = rep != null ? rep.length : def != null ? def.length : (int) page.numRows();
    if (rep != null && def != null && rep.length != def.length) {
      throw DecodeException.corrupt(
          rep.length + " repetition levels but " + def.length + " definition levels");
    }
    int[] rowStart = null;
    if (repdef.maxRep() > 0) {
      if (rep == null) {
        throw DecodeException.corrupt("page with layers " + repdef + " without repetition levels");
      }
      rowStart = new int[(int) page.numRows() + 1];
      int rows = 0;
      for (int i = 0; i < count; i++) {
        if (rep[i] == repdef.maxRep()) {
          if (rows == page.numRows()) {
            throw DecodeException.corrupt("page holds more rows than its " + page.numRows());
          }
          rowStart[rows++] = i;
        }
      }
      if (rows != page.numRows() || (count > 0 && rep[0] != repdef.maxRep())) {
        throw DecodeException.corrupt(
            "repetition levels describe " + rows + " rows, the page " + page.numRows());
      }
      rowStart[rows] = count;
    } else if (count != page.numRows()) {
      throw DecodeException.corrupt(count + " definition levels for " + page.numRows() + " rows");
    }
    if (def != null) {
      repdef.toCanonical(def, 0, count);
    }
    return new Levels(rep, def, count, rowStart);
  }

  /**
   * Rows of a nested page: their levels, and null (or constant) items behind the visible entries.
   */
  private final class NestedRows implements RowSource {
    private final Values value;
    private final Levels levels;
    private int row;
    private final int end;

    NestedRows(Values value, Levels levels, int start, int end) {
      this.value = value;
      this.levels = levels;
      this.row = start;
      this.end = end;
    }

    @Override
    public int remaining() {
      return end - row;
    }

    @Override
    public void emit(int n, ColumnSink sink) {
      if (n > remaining()) {
        throw new IllegalArgumentException("Asked for " + n + " rows, " + remaining() + " remain");
      }
      if (!sink.nested()) {
        throw DecodeException.corrupt(
            "page layers " + repdef + " do not match the column's nesting");
      }
      short[] rep = levels == null ? null : levels.rep();
      short[] def = levels == null ? null : levels.def();
      int from = rep == null ? row : levels.rowStart()[row];
      int to = rep == null ? row + n : levels.rowStart()[row + n];
      sink.appendLevels(repdef.canonical(), rep, def, from, to - from);
      int items = 0;
      short[] itemDefs = def == null ? null : new short[to - from];
      for (int i = from; i < to; i++) {
        if (def == null || repdef.canonical().visible(def[i])) {
          if (itemDefs != null) {
            itemDefs[items] = def[i];
          }
          items++;
        }
      }
      if (value == null) {
        sink.appendNulls(items);
      } else if (items > 0) {
        sink.append(repeat(value, items), 0, items, itemDefs, 0);
      }
      row += n;
    }
  }

  static Values repeat(Values v, int n) {
    if (v instanceof FixedValues f) {
      int w = f.bitsPerValue() / 8;
      byte[] one = new byte[w];
      f.data().get(f.offset(), one);
      byte[] out = new byte[w * n];
      for (int i = 0; i < n; i++) {
        System.arraycopy(one, 0, out, i * w, w);
      }
      return FixedValues.wrap(out, f.bitsPerValue(), n);
    }
    VarValues var = (VarValues) v;
    int start = (int) var.offset(0);
    int len = (int) (var.offset(1) - start);
    byte[] one = new byte[len];
    var.data().get(start, one);
    byte[] out = new byte[len * n];
    int[] offsets = new int[n + 1];
    for (int i = 0; i < n; i++) {
      System.arraycopy(one, 0, out, i * len, len);
      offsets[i + 1] = (i + 1) * len;
    }
    return VarValues.wrap(out, out.length, offsets, n);
  }

  @Override
  public long estimateBytes(int start, int end) {
    if (levelBuffer >= 0) {
      return levels != null ? 0 : page.bufferSize(levelBuffer) + page.bufferSize(levelBuffer + 1);
    }
    return defBuffer >= 0 ? 2L * (end - start) : 0;
  }

  @Override
  public String describe() {
    return Layouts.describe(layout);
  }
}
