package dev.lancelot.engine.internal.file.write;

import dev.lancelot.engine.internal.file.proto.Encodings21Protos.CompressiveEncoding;
import dev.lancelot.engine.internal.file.proto.Encodings21Protos.FixedSizeList;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;

/**
 * Fixed-size lists of fixed-width items (vectors). Item nulls, if any, become an item validity
 * bitmap inside the values ({@code FixedSizeList.has_validity}): mini-block chunk buffers {@code
 * [item validity,] items}, full-zip values {@code [item validity bytes][items]}.
 */
final class FslItems extends ItemBuffer {
  private final int dim;
  private final int itemWidth;
  private final GrowableBytes data = new GrowableBytes(1 << 16);
  private final Validity itemValidity = new Validity();

  FslItems(int dim, int itemWidth) {
    this.dim = dim;
    this.itemWidth = itemWidth;
  }

  @Override
  void appendValues(FieldVector v, int from, int n) {
    FieldVector child = ((FixedSizeListVector) v).getDataVector();
    itemValidity.append(child, from * dim, n * dim);
    data.put(child.getDataBuffer(), (long) from * dim * itemWidth, n * dim * itemWidth);
  }

  private boolean itemNulls() {
    return itemValidity.nullCount() > 0;
  }

  @Override
  long bytes() {
    return (long) items() * dim * itemWidth;
  }

  @Override
  boolean narrow() {
    return (long) dim * itemWidth < NARROW_BYTES;
  }

  @Override
  int chunkBuffers() {
    return itemNulls() ? 2 : 1;
  }

  @Override
  int chunkItems(int start, int remaining, int max) {
    long bitsPerRow = (long) dim * itemWidth * 8 + (itemNulls() ? dim : 0);
    int perChunk = Math.min(MiniBlockBuilder.valuesPerChunk(bitsPerRow), floorPow2(max));
    return Math.min(perChunk, remaining);
  }

  @Override
  List<ByteSlice> chunk(int start, int count) {
    List<ByteSlice> buffers = new ArrayList<>(2);
    if (itemNulls()) {
      buffers.add(ByteSlice.of(itemValidity.validBits(start * dim, count * dim)));
    }
    int rowBytes = dim * itemWidth;
    buffers.add(new ByteSlice(data.array(), start * rowBytes, count * rowBytes));
    return buffers;
  }

  @Override
  CompressiveEncoding encoding() {
    return CompressiveEncoding.newBuilder()
        .setFixedSizeList(
            FixedSizeList.newBuilder()
                .setItemsPerValue(dim)
                .setHasValidity(itemNulls())
                .setValues(MiniBlockBuilder.flat(itemWidth * 8)))
        .build();
  }

  @Override
  int zippedBits() {
    return ((itemNulls() ? (dim + 7) / 8 : 0) + dim * itemWidth) * 8;
  }

  @Override
  ByteSlice zippedRange(int first, int n) {
    if (itemNulls()) {
      return null;
    }
    int rowBytes = dim * itemWidth;
    return new ByteSlice(data.array(), first * rowBytes, n * rowBytes);
  }

  @Override
  void zip(int i, GrowableBytes out) {
    if (itemNulls()) {
      byte[] bits = itemValidity.validBits(i * dim, dim);
      out.put(bits, 0, bits.length);
    }
    int rowBytes = dim * itemWidth;
    out.put(data.array(), i * rowBytes, rowBytes);
  }

  @Override
  void clear() {
    super.clear();
    data.clear();
    itemValidity.clear();
  }
}
