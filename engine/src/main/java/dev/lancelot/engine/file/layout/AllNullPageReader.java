package dev.lancelot.engine.file.layout;

import dev.lancelot.engine.file.arrow.ColumnSink;
import dev.lancelot.engine.file.codec.Codecs;
import dev.lancelot.engine.file.codec.DecodeException;
import dev.lancelot.engine.file.codec.FixedValues;
import dev.lancelot.engine.file.codec.Values;
import dev.lancelot.engine.file.codec.VarValues;
import dev.lancelot.engine.file.container.PageInfo;
import dev.lancelot.engine.file.proto.Encodings21Protos.AllNullLayout;
import dev.lancelot.engine.file.proto.Encodings21Protos.RepDefLayer;
import dev.lancelot.engine.io.ByteRange;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The all-null layout, and the constant pages format 2.2 stores in the same message.
 *
 * <ul>
 *   <li>All null: no buffers, one {@code NULLABLE_ITEM} layer. Nothing is read.</li>
 *   <li>Constant (2.2): every valid row has the same value, stored either inline in
 *       {@code constant_value} or, when absent, in page buffer 0 as a serialized one-value array:
 *       <pre>
 *         [u32] number of buffers b (1 for fixed width; 2 for strings/binary: offsets, bytes)
 *         [u32 x b] byte length of each buffer
 *         [buffers] back to back
 *       </pre>
 *       With a {@code NULLABLE_ITEM} layer two more buffers follow: repetition levels (empty for
 *       non-nested columns) and definition levels, raw u16 per row (0 = valid).</li>
 * </ul>
 * Pages of nested columns with rep/def levels but no value are not supported yet.
 */
public final class AllNullPageReader implements PageReader {
  private final PageInfo page;
  private final AllNullLayout layout;
  private final boolean inline;
  private final boolean constant;
  private final int defBuffer;
  private volatile Values value;

  public AllNullPageReader(PageInfo page, AllNullLayout layout) {
    this.page = page;
    this.layout = layout;
    this.inline = layout.hasConstantValue();
    int buffers = page.numBuffers();
    int scalarBuffers = inline ? 0 : (buffers == 1 || buffers == 3 ? 1 : 0);
    this.constant = inline || scalarBuffers == 1;
    int levelBuffers = buffers - scalarBuffers;
    if (layout.getLayersCount() != 1) {
      throw DecodeException.unsupported("all-null or constant pages with rep/def layers " + layout.getLayersList());
    }
    RepDefLayer layer = layout.getLayers(0);
    if (!constant) {
      if (buffers != 0 || layer != RepDefLayer.REPDEF_NULLABLE_ITEM) {
        throw DecodeException.unsupported("all-null pages with " + buffers + " buffers and layer " + layer);
      }
      this.defBuffer = -1;
    } else if (levelBuffers == 0) {
      if (layer != RepDefLayer.REPDEF_ALL_VALID_ITEM) {
        throw DecodeException.corrupt("constant page with layer " + layer + " but no definition levels");
      }
      this.defBuffer = -1;
    } else if (levelBuffers == 2 && layer == RepDefLayer.REPDEF_NULLABLE_ITEM) {
      if (page.bufferSize(scalarBuffers) != 0) {
        throw DecodeException.unsupported("constant pages with repetition levels (lists)");
      }
      this.defBuffer = scalarBuffers + 1;
      if (page.bufferSize(defBuffer) != 2 * page.numRows()) {
        throw DecodeException.corrupt("constant page has " + page.bufferSize(defBuffer)
            + " bytes of definition levels for " + page.numRows() + " rows");
      }
    } else {
      throw DecodeException.corrupt("constant page with " + buffers + " buffers and layer " + layer);
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

  /** At most one round: the constant's buffer (first use only) and the ranges' definition levels. */
  private final class Load implements PageLoad {
    private final List<RowRange> ranges;
    private final boolean needValue;
    private List<RowSource> sources;

    Load(List<RowRange> ranges) {
      this.ranges = ranges;
      if (constant && inline && value == null) {
        byte[] bytes = layout.getConstantValue().toByteArray();
        value = FixedValues.wrap(bytes, bytes.length * 8, 1);
      }
      this.needValue = constant && value == null;
      if (!constant) {
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
      build(buffers, needValue ? 1 : 0);
    }

    private void build(List<ByteBuffer> buffers, int firstDef) {
      List<RowSource> out = new ArrayList<>(ranges.size());
      for (int i = 0; i < ranges.size(); i++) {
        out.add(new Rows(value, defBuffer < 0 ? null : buffers.get(firstDef + i), ranges.get(i).length()));
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
    return defBuffer >= 0 ? 2L * (end - start) : 0;
  }

  @Override
  public String describe() {
    return Layouts.describe(layout);
  }
}
