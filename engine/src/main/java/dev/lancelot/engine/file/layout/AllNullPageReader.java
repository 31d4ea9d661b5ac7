package dev.lancelot.engine.file.layout;

import dev.lancelot.engine.file.arrow.ColumnSink;
import dev.lancelot.engine.file.codec.DecodeException;
import dev.lancelot.engine.file.codec.FixedValues;
import dev.lancelot.engine.file.container.PageInfo;
import dev.lancelot.engine.file.proto.Encodings21Protos.AllNullLayout;
import dev.lancelot.engine.file.proto.Encodings21Protos.RepDefLayer;
import java.util.ArrayList;
import java.util.List;

/**
 * The all-null layout: no data to read, every row is null. In format 2.2 the same message with
 * {@code constant_value} set describes a constant page: every row has that value.
 */
public final class AllNullPageReader implements PageReader {
  private final PageInfo page;
  private final AllNullLayout layout;
  private final byte[] constant;

  public AllNullPageReader(PageInfo page, AllNullLayout layout) {
    this.page = page;
    this.layout = layout;
    boolean simple = layout.getLayersCount() == 1
        && (layout.getLayers(0) == RepDefLayer.REPDEF_NULLABLE_ITEM
            || (layout.hasConstantValue() && layout.getLayers(0) == RepDefLayer.REPDEF_ALL_VALID_ITEM));
    if (!simple) {
      throw DecodeException.unsupported("all-null pages with rep/def layers " + layout.getLayersList()
          + (layout.hasConstantValue() ? " and a constant value" : ""));
    }
    this.constant = layout.hasConstantValue() ? layout.getConstantValue().toByteArray() : null;
  }

  @Override
  public PageInfo page() {
    return page;
  }

  @Override
  public List<RowSource> load(List<RowRange> ranges, PageIo io) {
    List<RowSource> out = new ArrayList<>(ranges.size());
    for (RowRange r : ranges) {
      out.add(new RowSource() {
        private int remaining = r.length();

        @Override
        public int remaining() {
          return remaining;
        }

        @Override
        public void emit(int n, ColumnSink sink) {
          if (constant == null) {
            sink.appendNulls(n);
          } else {
            byte[] repeated = new byte[constant.length * n];
            for (int i = 0; i < n; i++) {
              System.arraycopy(constant, 0, repeated, i * constant.length, constant.length);
            }
            sink.append(FixedValues.wrap(repeated, constant.length * 8, n), 0, n, null, 0);
          }
          remaining -= n;
        }
      });
    }
    return out;
  }

  @Override
  public long estimateBytes(int start, int end) {
    return 0;
  }

  @Override
  public String describe() {
    return Layouts.describe(layout);
  }
}
