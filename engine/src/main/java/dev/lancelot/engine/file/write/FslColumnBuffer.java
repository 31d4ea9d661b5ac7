package dev.lancelot.engine.file.write;

import dev.lancelot.engine.file.proto.Encodings21Protos.CompressiveEncoding;
import dev.lancelot.engine.file.proto.Encodings21Protos.FixedSizeList;
import dev.lancelot.engine.file.proto.Encodings21Protos.FullZipLayout;
import dev.lancelot.engine.file.proto.Encodings21Protos.PageLayout;
import dev.lancelot.engine.file.proto.Encodings21Protos.RepDefLayer;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;

/**
 * Fixed-size lists of fixed-width items (vectors). List nulls become definition levels; item
 * nulls, if any, an item validity bitmap inside the values ({@code FixedSizeList.has_validity}).
 * Narrow lists go to mini-block pages (buffers: [item validity,] items), wide ones to full-zip
 * pages (per row: [def byte,] [item validity bytes,] items).
 */
final class FslColumnBuffer extends ColumnBuffer {
  private final int dim;
  private final int itemWidth;
  private final GrowableBytes items = new GrowableBytes(1 << 16);
  private final Validity rowValidity = new Validity();
  private final Validity itemValidity = new Validity();

  FslColumnBuffer(int dim, int itemWidth) {
    this.dim = dim;
    this.itemWidth = itemWidth;
  }

  @Override
  void append(FieldVector v, int from, int n) {
    FixedSizeListVector fsl = (FixedSizeListVector) v;
    FieldVector child = (FieldVector) fsl.getDataVector();
    rowValidity.append(v, from, n);
    itemValidity.append(child, from * dim, n * dim);
    items.put(child.getDataBuffer(), (long) from * dim * itemWidth, n * dim * itemWidth);
  }

  @Override
  int rows() {
    return rowValidity.size();
  }

  @Override
  long bytes() {
    return (long) rows() * dim * itemWidth;
  }

  @Override
  EncodedPage encode() {
    int rows = rows();
    try {
      if (rowValidity.nullCount() == rows) {
        return allNull(rows);
      }
      boolean defs = rowValidity.nullCount() > 0;
      boolean itemNulls = itemValidity.nullCount() > 0;
      return (long) dim * itemWidth < NARROW_BYTES ? miniBlock(rows, defs, itemNulls) : fullZip(rows, defs, itemNulls);
    } finally {
      items.clear();
      rowValidity.clear();
      itemValidity.clear();
    }
  }

  private CompressiveEncoding encoding(boolean itemNulls) {
    return CompressiveEncoding.newBuilder().setFixedSizeList(FixedSizeList.newBuilder()
        .setItemsPerValue(dim)
        .setHasValidity(itemNulls)
        .setValues(MiniBlockBuilder.flat(itemWidth * 8))).build();
  }

  private EncodedPage miniBlock(int rows, boolean defs, boolean itemNulls) {
    long bitsPerRow = (long) dim * itemWidth * 8 + (itemNulls ? dim : 0);
    int perChunk = MiniBlockBuilder.valuesPerChunk(bitsPerRow);
    MiniBlockBuilder b = new MiniBlockBuilder(itemNulls ? 2 : 1, defs);
    int rowBytes = dim * itemWidth;
    for (int start = 0; start < rows; start += perChunk) {
      int count = Math.min(perChunk, rows - start);
      List<MiniBlockBuilder.Slice> buffers = new ArrayList<>(2);
      if (itemNulls) {
        buffers.add(MiniBlockBuilder.Slice.of(itemValidity.validBits(start * dim, count * dim)));
      }
      buffers.add(new MiniBlockBuilder.Slice(items.array(), start * rowBytes, count * rowBytes));
      b.addChunk(count, start + count == rows, rowValidity, start, buffers);
    }
    return b.finish(encoding(itemNulls), rows);
  }

  private EncodedPage fullZip(int rows, boolean defs, boolean itemNulls) {
    int rowBytes = dim * itemWidth;
    int validityBytes = itemNulls ? (dim + 7) / 8 : 0;
    int valueBytes = validityBytes + rowBytes;
    GrowableBytes zipped = new GrowableBytes((int) Math.min(Integer.MAX_VALUE - 16,
        (long) rows * (valueBytes + (defs ? 1 : 0))));
    byte[] src = items.array();
    for (int r = 0; r < rows; r++) {
      if (defs) {
        zipped.put((byte) (rowValidity.isNull(r) ? 1 : 0));
      }
      if (itemNulls) {
        byte[] bits = itemValidity.validBits(r * dim, dim);
        zipped.put(bits, 0, bits.length);
      }
      zipped.put(src, r * rowBytes, rowBytes);
    }
    FullZipLayout layout = FullZipLayout.newBuilder()
        .setBitsDef(defs ? 1 : 0)
        .setBitsPerValue(valueBytes * 8)
        .setNumItems(rows)
        .setNumVisibleItems(rows)
        .setValueCompression(encoding(itemNulls))
        .addLayers(defs ? RepDefLayer.REPDEF_NULLABLE_ITEM : RepDefLayer.REPDEF_ALL_VALID_ITEM)
        .build();
    return new EncodedPage(PageLayout.newBuilder().setFullZipLayout(layout).build(), List.of(zipped.toArray()), rows);
  }
}
