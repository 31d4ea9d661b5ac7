package dev.lancelot.engine.file.write;

import dev.lancelot.engine.file.proto.Encodings21Protos.FullZipLayout;
import dev.lancelot.engine.file.proto.Encodings21Protos.PageLayout;
import dev.lancelot.engine.file.proto.Encodings21Protos.RepDefLayer;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;

/** Fixed-width values (booleans are kept one byte per value until encoded as bits). */
final class FixedColumnBuffer extends ColumnBuffer {
  private final int width;
  private final boolean bool;
  private final GrowableBytes data = new GrowableBytes(1 << 16);
  private final Validity validity = new Validity();

  /** {@code width} in bytes, or 0 for booleans. */
  FixedColumnBuffer(int width) {
    this.width = width;
    this.bool = width == 0;
  }

  @Override
  void append(FieldVector v, int from, int n) {
    validity.append(v, from, n);
    if (bool) {
      BitVector bits = (BitVector) v;
      data.ensure(n);
      for (int i = 0; i < n; i++) {
        int row = from + i;
        data.put((byte) ((bits.getDataBuffer().getByte(row >>> 3) >>> (row & 7)) & 1));
      }
    } else {
      data.put(v.getDataBuffer(), (long) from * width, n * width);
    }
  }

  @Override
  int rows() {
    return validity.size();
  }

  @Override
  long bytes() {
    return bool ? rows() / 8 : (long) rows() * width;
  }

  @Override
  EncodedPage encode() {
    int rows = rows();
    try {
      if (validity.nullCount() == rows) {
        return allNull(rows);
      }
      boolean defs = validity.nullCount() > 0;
      if (bool || width < NARROW_BYTES) {
        return miniBlock(rows, defs);
      }
      return fullZip(rows, defs);
    } finally {
      data.clear();
      validity.clear();
    }
  }

  private EncodedPage miniBlock(int rows, boolean defs) {
    int bits = bool ? 1 : width * 8;
    int perChunk = MiniBlockBuilder.valuesPerChunk(bits);
    MiniBlockBuilder b = new MiniBlockBuilder(1, defs);
    for (int start = 0; start < rows; start += perChunk) {
      int count = Math.min(perChunk, rows - start);
      boolean last = start + count == rows;
      MiniBlockBuilder.Slice values;
      if (bool) {
        byte[] packed = new byte[(count + 7) / 8];
        byte[] src = data.array();
        for (int i = 0; i < count; i++) {
          if (src[start + i] != 0) {
            packed[i >>> 3] |= (byte) (1 << (i & 7));
          }
        }
        values = MiniBlockBuilder.Slice.of(packed);
      } else {
        values = new MiniBlockBuilder.Slice(data.array(), start * width, count * width);
      }
      b.addChunk(count, last, validity, start, List.of(values));
    }
    return b.finish(MiniBlockBuilder.flat(bits), rows);
  }

  private EncodedPage fullZip(int rows, boolean defs) {
    GrowableBytes zipped = new GrowableBytes((int) Math.min(Integer.MAX_VALUE - 16, (long) rows * (width + 1)));
    byte[] src = data.array();
    for (int r = 0; r < rows; r++) {
      if (defs) {
        zipped.put((byte) (validity.isNull(r) ? 1 : 0));
      }
      zipped.put(src, r * width, width);
    }
    FullZipLayout layout = FullZipLayout.newBuilder()
        .setBitsDef(defs ? 1 : 0)
        .setBitsPerValue(width * 8)
        .setNumItems(rows)
        .setNumVisibleItems(rows)
        .setValueCompression(MiniBlockBuilder.flat(width * 8))
        .addLayers(defs ? RepDefLayer.REPDEF_NULLABLE_ITEM : RepDefLayer.REPDEF_ALL_VALID_ITEM)
        .build();
    List<byte[]> buffers = new ArrayList<>();
    buffers.add(zipped.toArray());
    return new EncodedPage(PageLayout.newBuilder().setFullZipLayout(layout).build(), buffers, rows);
  }
}
