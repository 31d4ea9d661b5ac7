package dev.lancelot.engine.internal.file.layout;

import dev.lancelot.engine.internal.file.arrow.ColumnSink;
import dev.lancelot.engine.internal.file.codec.DecodeException;
import dev.lancelot.engine.internal.file.codec.FixedValues;
import dev.lancelot.engine.internal.file.codec.StructValues;
import dev.lancelot.engine.internal.file.codec.Values;
import dev.lancelot.engine.internal.file.container.PageInfo;
import dev.lancelot.engine.internal.file.repdef.RepDefLayers;
import dev.lancelot.engine.io.ByteRange;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.FieldVector;

/**
 * A legacy blob page of a blob field inside structs (its {@code BlobLayout} has more than one
 * layer, none of them a list). The wrapped page holds one {@code (position, size)} descriptor per
 * row and no levels; Lance folds each null entry's definition level into its position ({@code def
 * << 16 | rep}, size 0). Read into the leaf of a nested field, the rows go out as the levels the
 * blob layout's layers give them plus the descriptors; read on their own (one blob's descriptor),
 * they go out as they are stored.
 *
 * <p>Blob fields inside lists are not read: Lance 7 stores one descriptor per list item and the
 * repetition level only in null items, so the list lengths are not in the file.
 */
final class NestedBlobPageReader implements PageReader {
  private final PageReader inner;
  private final RepDefLayers layers;

  NestedBlobPageReader(PageReader inner, RepDefLayers layers) {
    if (layers.maxRep() > 0) {
      throw DecodeException.unsupported(
          "a blob field inside a list (blob page layers "
              + layers
              + "): Lance 7 writes its descriptors without the list lengths, so the lists cannot be"
              + " rebuilt from the file");
    }
    this.inner = inner;
    this.layers = layers;
  }

  @Override
  public PageInfo page() {
    return inner.page();
  }

  @Override
  public PageLoad plan(List<RowRange> ranges) {
    PageLoad load = inner.plan(ranges);
    return new PageLoad() {
      @Override
      public List<ByteRange> reads() {
        return load.reads();
      }

      @Override
      public void supply(List<ByteBuffer> buffers) {
        load.supply(buffers);
      }

      @Override
      public boolean done() {
        return load.done();
      }

      @Override
      public List<RowSource> sources() {
        List<RowSource> out = new ArrayList<>();
        for (RowSource s : load.sources()) {
          out.add(
              new RowSource() {
                @Override
                public int remaining() {
                  return s.remaining();
                }

                @Override
                public void emit(int n, ColumnSink sink) {
                  s.emit(n, sink.nested() ? new Levels(sink, layers) : sink);
                }
              });
        }
        return out;
      }
    };
  }

  @Override
  public long estimateBytes(int start, int end) {
    return inner.estimateBytes(start, end);
  }

  @Override
  public String describe() {
    return "Blob[" + inner.describe() + ", layers=" + layers + "]";
  }

  /**
   * Sends a nested leaf the levels folded into the descriptors it is given, then the descriptors
   * (null where a level says so).
   */
  private static final class Levels implements ColumnSink {
    private final ColumnSink sink;
    private final RepDefLayers layers;

    Levels(ColumnSink sink, RepDefLayers layers) {
      this.sink = sink;
      this.layers = layers;
    }

    @Override
    public void appendNulls(int n) {
      throw DecodeException.corrupt("null descriptors in a blob page (nulls are in positions)");
    }

    @Override
    public void append(Values values, int from, int n, short[] defs, int defFrom) {
      if (!(values instanceof StructValues struct)
          || struct.members().size() != 2
          || !(struct.members().get(0) instanceof FixedValues position)
          || !(struct.members().get(1) instanceof FixedValues size)
          || position.bitsPerValue() != 64
          || size.bitsPerValue() != 64) {
        throw DecodeException.corrupt("a blob page whose descriptors are not two 64-bit values");
      }
      short[] def = new short[n];
      for (int i = 0; i < n; i++) {
        if (defs != null && defs[defFrom + i] != 0) {
          throw DecodeException.corrupt("a null descriptor in a blob page");
        }
        long p = position.getUnsigned(from + i);
        if (size.getUnsigned(from + i) != 0 || p == 0) {
          continue;
        }
        long level = p >>> 16;
        if ((p & 0xFFFF) != 0 || level > layers.maxDef() || level == 0) {
          throw DecodeException.corrupt(
              "a blob descriptor's position "
                  + Long.toUnsignedString(p)
                  + " is not a definition level of the page's layers "
                  + layers);
        }
        def[i] = layers.toCanonical((int) level);
      }
      sink.appendLevels(layers.canonical(), null, def, 0, n);
      sink.append(values, from, n, def, 0);
    }

    @Override
    public void reserve(int items) {
      sink.reserveNested(items, items, items);
    }

    @Override
    public int size() {
      return sink.size();
    }

    @Override
    public FieldVector finish() {
      return sink.finish();
    }

    @Override
    public void abort() {
      sink.abort();
    }
  }
}
