package dev.lancelot.engine.internal.file.write;

import dev.lancelot.engine.internal.file.proto.Encodings21Protos.CompressiveEncoding;
import java.util.List;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;

/** Fixed-width values; booleans are kept one byte per value until encoded as bits. */
final class FixedItems extends ItemBuffer {
  private final int width;
  private final boolean bool;
  private final GrowableBytes data = new GrowableBytes(1 << 16);

  /** Whether the mini-block page being encoded bit-packs its values ({@link InlineBitpacker}). */
  private boolean packed;

  /** {@code width} in bytes, or 0 for booleans. */
  FixedItems(int width) {
    this.width = width;
    this.bool = width == 0;
  }

  boolean isBool() {
    return bool;
  }

  @Override
  void appendValues(FieldVector v, int from, int n) {
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
  long bytes() {
    return bool ? items() / 8 : (long) items() * width;
  }

  @Override
  boolean narrow() {
    return bool || width < NARROW_BYTES;
  }

  private int bits() {
    return bool ? 1 : width * 8;
  }

  @Override
  int chunkBuffers() {
    return 1;
  }

  @Override
  void chooseMiniBlockEncoding(int first, int n) {
    packed =
        !bool
            && InlineBitpacker.applies(width)
            && InlineBitpacker.smaller(data.array(), first, n, width, validity);
  }

  @Override
  int chunkItems(int start, int remaining, int max) {
    if (packed) {
      return Math.min(Math.min(InlineBitpacker.BLOCK, floorPow2(max)), remaining);
    }
    int perChunk = Math.min(MiniBlockBuilder.valuesPerChunk(bits()), floorPow2(max));
    return Math.min(perChunk, remaining);
  }

  @Override
  List<ByteSlice> chunk(int start, int count) {
    if (packed) {
      return List.of(InlineBitpacker.chunk(data.array(), start, count, width, validity));
    }
    if (!bool) {
      return List.of(new ByteSlice(data.array(), start * width, count * width));
    }
    byte[] packed = new byte[(count + 7) / 8];
    byte[] src = data.array();
    for (int i = 0; i < count; i++) {
      if (src[start + i] != 0) {
        packed[i >>> 3] |= (byte) (1 << (i & 7));
      }
    }
    return List.of(ByteSlice.of(packed));
  }

  @Override
  CompressiveEncoding encoding() {
    return packed ? InlineBitpacker.encoding(width) : MiniBlockBuilder.flat(bits());
  }

  @Override
  int zippedBits() {
    if (bool) {
      throw new IllegalStateException("booleans are never full-zipped");
    }
    return width * 8;
  }

  @Override
  ByteSlice zippedRange(int first, int n) {
    return bool ? null : new ByteSlice(data.array(), first * width, n * width);
  }

  @Override
  void zip(int i, GrowableBytes out) {
    out.put(data.array(), i * width, width);
  }

  @Override
  void clear() {
    super.clear();
    data.clear();
    packed = false;
  }
}
