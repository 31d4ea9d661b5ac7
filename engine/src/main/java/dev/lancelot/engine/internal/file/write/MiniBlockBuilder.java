package dev.lancelot.engine.internal.file.write;

import dev.lancelot.engine.internal.file.proto.Encodings21Protos.CompressiveEncoding;
import dev.lancelot.engine.internal.file.proto.Encodings21Protos.Flat;
import dev.lancelot.engine.internal.file.proto.Encodings21Protos.MiniBlockLayout;
import dev.lancelot.engine.internal.file.proto.Encodings21Protos.PageLayout;
import java.util.ArrayList;
import java.util.List;

/**
 * Serializes mini-block chunks (format 2.1, see {@link
 * dev.lancelot.engine.internal.file.layout.MiniBlockPageReader} for the byte layout). Levels, when
 * the page has any, are bit-packed per chunk to the page's widest level ({@link LevelPacker}). With
 * repetition levels the page gets a repetition index of depth 1 (see {@link
 * dev.lancelot.engine.internal.file.layout.MiniBlockPageReader}): per chunk the rows ending in it
 * and the levels left over after its last row start when that row continues into the next chunk.
 */
final class MiniBlockBuilder {
  /** Upper bound of a chunk in bytes (12 bits of 8-byte words). */
  static final int MAX_CHUNK_BYTES = 32 * 1024;

  /** Upper bound of values per chunk. */
  static final int MAX_CHUNK_VALUES = 4096;

  /** Upper bound of level entries per chunk (keeps chunks of lists with many empty ones small). */
  static final int MAX_CHUNK_LEVELS = 4096;

  private final int numBuffers;
  private final PageLevels levels;
  private final boolean withRep;
  private final boolean withDefs;
  private final int repWidth;
  private final int defWidth;
  private final GrowableBytes meta = new GrowableBytes(256);
  private final GrowableBytes data = new GrowableBytes(64 * 1024);
  private final List<long[]> repIndex = new ArrayList<>();
  private int chunks;
  private long items;

  MiniBlockBuilder(int numBuffers, PageLevels levels) {
    this.numBuffers = numBuffers;
    this.levels = levels;
    this.withRep = levels.rep() != null;
    this.withDefs = levels.def() != null;
    this.repWidth = withRep ? LevelPacker.width(levels.rep(), levels.count()) : 0;
    this.defWidth = withDefs ? LevelPacker.width(levels.def(), levels.count()) : 0;
  }

  /**
   * Adds a chunk of {@code count} values with level entries {@code [levelFrom, levelFrom +
   * numLevels)} ({@code last} marks the final chunk of the page; all others must hold a power of
   * two values).
   */
  void addChunk(int count, boolean last, int levelFrom, int numLevels, List<ByteSlice> buffers) {
    if (count <= 0 || count > MAX_CHUNK_VALUES || (!last && Integer.bitCount(count) != 1)) {
      throw new IllegalStateException("invalid mini-block chunk size " + count);
    }
    if (buffers.size() != numBuffers) {
      throw new IllegalStateException(
          "chunk has " + buffers.size() + " buffers, " + numBuffers + " expected");
    }
    int start = data.size();
    byte[] rep = withRep ? LevelPacker.pack(levels.rep(), levelFrom, numLevels, repWidth) : null;
    byte[] def = withDefs ? LevelPacker.pack(levels.def(), levelFrom, numLevels, defWidth) : null;
    data.putShort(withRep || withDefs ? numLevels : 0);
    if (withRep) {
      putSize(rep.length);
    }
    if (withDefs) {
      putSize(def.length);
    }
    for (ByteSlice b : buffers) {
      putSize(b.length());
    }
    data.align(8);
    if (withRep) {
      data.put(rep, 0, rep.length);
      data.align(8);
    }
    if (withDefs) {
      data.put(def, 0, def.length);
      data.align(8);
    }
    for (ByteSlice b : buffers) {
      data.put(b.array(), b.offset(), b.length());
      data.align(8);
    }
    int bytes = data.size() - start;
    if (bytes > MAX_CHUNK_BYTES) {
      throw new IllegalStateException(
          "mini-block chunk of " + bytes + " bytes exceeds " + MAX_CHUNK_BYTES);
    }
    int log = last ? 0 : Integer.numberOfTrailingZeros(count);
    meta.putShort(((bytes / 8 - 1) << 4) | log);
    if (withRep) {
      indexChunk(levelFrom, numLevels, last);
    }
    chunks++;
    items += count;
  }

  /** Repetition index entry of a chunk: rows ending in it, levels of a row continuing past it. */
  private void indexChunk(int from, int n, boolean last) {
    short[] rep = levels.rep();
    int maxRep = levels.maxRep();
    long ends = 0;
    int lastStart = -1;
    for (int i = from; i < from + n; i++) {
      if (rep[i] == maxRep) {
        if (i > from) {
          ends++;
        }
        lastStart = i;
      }
    }
    long partial = last ? 0 : lastStart < 0 ? n : from + n - lastStart;
    if (!repIndex.isEmpty() && n > 0 && rep[from] == maxRep) {
      long[] prev = repIndex.get(repIndex.size() - 1);
      if (prev[1] != 0) {
        // the previous chunk's last row ended with it after all
        prev[0]++;
        prev[1] = 0;
      }
    }
    if (last) {
      ends++;
    }
    repIndex.add(new long[] {ends, partial});
  }

  private void putSize(int size) {
    if (size > 0xFFFF) {
      throw new IllegalStateException("mini-block buffer of " + size + " bytes exceeds 64 KiB");
    }
    data.putShort(size);
  }

  /**
   * The page: chunk table, chunks, then {@code dictionary} (a {@code Variable} block of {@code
   * dictionaryItems} values the chunk values index into; null without one) and the repetition
   * index.
   */
  EncodedPage finish(CompressiveEncoding values, ByteSlice dictionary, int dictionaryItems) {
    if (items != levels.itemCount()) {
      throw new IllegalStateException(
          "mini-block chunks hold " + items + " values for " + levels.itemCount() + " items");
    }
    MiniBlockLayout.Builder layout =
        MiniBlockLayout.newBuilder()
            .setValueCompression(values)
            .addAllLayers(levels.layers())
            .setNumBuffers(numBuffers)
            .setNumItems(items);
    if (withRep) {
      layout.setRepCompression(LevelPacker.encoding(repWidth)).setRepetitionIndexDepth(1);
    }
    if (withDefs) {
      layout.setDefCompression(LevelPacker.encoding(defWidth));
    }
    if (dictionary != null) {
      layout.setDictionary(StringDictionary.blockEncoding()).setNumDictionaryItems(dictionaryItems);
    }
    List<ByteSlice> buffers = new ArrayList<>(4);
    buffers.add(meta.slice());
    buffers.add(data.slice());
    if (dictionary != null) {
      buffers.add(dictionary);
    }
    if (withRep) {
      GrowableBytes index = new GrowableBytes(16 * repIndex.size());
      for (long[] e : repIndex) {
        index.putLong(e[0]);
        index.putLong(e[1]);
      }
      buffers.add(index.slice());
    }
    return new EncodedPage(
        PageLayout.newBuilder().setMiniBlockLayout(layout).build(), buffers, levels.rows());
  }

  int chunks() {
    return chunks;
  }

  static CompressiveEncoding flat(int bits) {
    return CompressiveEncoding.newBuilder()
        .setFlat(Flat.newBuilder().setBitsPerValue(bits))
        .build();
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
