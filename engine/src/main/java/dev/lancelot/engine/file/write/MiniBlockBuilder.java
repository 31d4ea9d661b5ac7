package dev.lancelot.engine.file.write;

import dev.lancelot.engine.file.proto.Encodings21Protos.CompressiveEncoding;
import dev.lancelot.engine.file.proto.Encodings21Protos.Flat;
import dev.lancelot.engine.file.proto.Encodings21Protos.MiniBlockLayout;
import dev.lancelot.engine.file.proto.Encodings21Protos.PageLayout;
import dev.lancelot.engine.file.proto.Encodings21Protos.RepDefLayer;
import java.util.List;

/**
 * Serializes mini-block chunks (format 2.1, see
 * {@link dev.lancelot.engine.file.layout.MiniBlockPageReader} for the byte layout). Definition
 * levels, when the page has nulls, are stored raw as {@code Flat(16)}.
 */
final class MiniBlockBuilder {
  /** Upper bound of a chunk in bytes (12 bits of 8-byte words). */
  static final int MAX_CHUNK_BYTES = 32 * 1024;
  /** Upper bound of values per chunk. */
  static final int MAX_CHUNK_VALUES = 4096;

  private final int numBuffers;
  private final boolean withDefs;
  private final GrowableBytes meta = new GrowableBytes(256);
  private final GrowableBytes data = new GrowableBytes(64 * 1024);
  private int chunks;
  private long items;

  MiniBlockBuilder(int numBuffers, boolean withDefs) {
    this.numBuffers = numBuffers;
    this.withDefs = withDefs;
  }

  /** A byte range of an array. */
  record Slice(byte[] array, int offset, int length) {
    static Slice of(byte[] a) {
      return new Slice(a, 0, a.length);
    }
  }

  /**
   * Adds a chunk of {@code count} values ({@code last} marks the final chunk of the page; all
   * others must hold a power of two). {@code defs} gives the chunk's definition levels (null when
   * the page has none).
   */
  void addChunk(int count, boolean last, Validity validity, int firstRow, List<Slice> buffers) {
    if (count <= 0 || count > MAX_CHUNK_VALUES || (!last && Integer.bitCount(count) != 1)) {
      throw new IllegalStateException("invalid mini-block chunk size " + count);
    }
    if (buffers.size() != numBuffers) {
      throw new IllegalStateException("chunk has " + buffers.size() + " buffers, " + numBuffers + " expected");
    }
    int start = data.size();
    data.putShort(withDefs ? count : 0);
    if (withDefs) {
      putSize(2 * count);
    }
    for (Slice b : buffers) {
      putSize(b.length());
    }
    data.align(8);
    if (withDefs) {
      for (int i = 0; i < count; i++) {
        data.putShort(validity.isNull(firstRow + i) ? 1 : 0);
      }
      data.align(8);
    }
    for (Slice b : buffers) {
      data.put(b.array(), b.offset(), b.length());
      data.align(8);
    }
    int bytes = data.size() - start;
    if (bytes > MAX_CHUNK_BYTES) {
      throw new IllegalStateException("mini-block chunk of " + bytes + " bytes exceeds " + MAX_CHUNK_BYTES);
    }
    int log = last ? 0 : Integer.numberOfTrailingZeros(count);
    meta.putShort(((bytes / 8 - 1) << 4) | log);
    chunks++;
    items += count;
  }

  private void putSize(int size) {
    if (size > 0xFFFF) {
      throw new IllegalStateException("mini-block buffer of " + size + " bytes exceeds 64 KiB");
    }
    data.putShort(size);
  }

  EncodedPage finish(CompressiveEncoding values, long numRows) {
    if (items != numRows) {
      throw new IllegalStateException("mini-block chunks hold " + items + " values for " + numRows + " rows");
    }
    MiniBlockLayout.Builder layout = MiniBlockLayout.newBuilder()
        .setValueCompression(values)
        .addLayers(withDefs ? RepDefLayer.REPDEF_NULLABLE_ITEM : RepDefLayer.REPDEF_ALL_VALID_ITEM)
        .setNumBuffers(numBuffers)
        .setNumItems(numRows);
    if (withDefs) {
      layout.setDefCompression(flat(16));
    }
    return new EncodedPage(PageLayout.newBuilder().setMiniBlockLayout(layout).build(),
        List.of(meta.toArray(), data.toArray()), numRows);
  }

  int chunks() {
    return chunks;
  }

  static CompressiveEncoding flat(int bits) {
    return CompressiveEncoding.newBuilder().setFlat(Flat.newBuilder().setBitsPerValue(bits)).build();
  }

  /** Values per chunk for fixed-width values: a power of two, about 4 KiB of data. */
  static int valuesPerChunk(long bitsPerValue) {
    int n = MAX_CHUNK_VALUES;
    while (n > 1 && (long) n * bitsPerValue > 4096L * 8) {
      n >>= 1;
    }
    return n;
  }
}
