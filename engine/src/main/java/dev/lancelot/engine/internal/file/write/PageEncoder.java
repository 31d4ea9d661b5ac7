package dev.lancelot.engine.internal.file.write;

import dev.lancelot.engine.internal.file.proto.Encodings21Protos.AllNullLayout;
import dev.lancelot.engine.internal.file.proto.Encodings21Protos.CompressiveEncoding;
import dev.lancelot.engine.internal.file.proto.Encodings21Protos.FullZipLayout;
import dev.lancelot.engine.internal.file.proto.Encodings21Protos.PageLayout;
import dev.lancelot.engine.internal.file.proto.Encodings21Protos.RepDefLayer;
import java.util.ArrayList;
import java.util.List;

/**
 * Encodes items {@code [first, first + levels.itemCount())} of an {@link ItemBuffer} with their
 * page levels as one page, choosing the layout as Lance 7 does for 2.1: all-null when no item has a
 * value, mini-block for values under 256 bytes, full-zip otherwise. Fixed-width 8 to 64-bit values
 * are bit-packed ({@link InlineBitpacker}) when that makes them smaller, as Lance 7 does; other
 * values are stored as they are (Flat, Variable, FixedSizeList).
 */
final class PageEncoder {
  private PageEncoder() {}

  static EncodedPage encode(ItemBuffer items, int first, PageLevels levels) {
    int n = levels.itemCount();
    int nulls = 0;
    for (int i = first; i < first + n; i++) {
      nulls += items.validity.isNull(i) ? 1 : 0;
    }
    if (nulls == n) {
      return allNull(levels);
    }
    return items.narrow() && !items.fullZipOnly
        ? miniBlock(items, first, levels)
        : fullZip(items, first, levels);
  }

  /**
   * No item has a value. Flat columns need nothing stored; nested ones keep their levels raw:
   * buffer 0 repetition levels (empty without lists), buffer 1 definition levels.
   */
  static EncodedPage allNull(PageLevels levels) {
    if (!levels.nested()) {
      return new EncodedPage(
          PageLayout.newBuilder()
              .setAllNullLayout(
                  AllNullLayout.newBuilder().addLayers(RepDefLayer.REPDEF_NULLABLE_ITEM))
              .build(),
          List.of(),
          levels.rows());
    }
    List<ByteSlice> buffers =
        List.of(raw(levels.rep(), levels.count()), raw(levels.def(), levels.count()));
    return new EncodedPage(
        PageLayout.newBuilder()
            .setAllNullLayout(AllNullLayout.newBuilder().addAllLayers(levels.layers()))
            .build(),
        buffers,
        levels.rows());
  }

  private static ByteSlice raw(short[] values, int n) {
    if (values == null) {
      return ByteSlice.of(new byte[0]);
    }
    GrowableBytes out = new GrowableBytes(2 * n);
    for (int i = 0; i < n; i++) {
      out.putShort(values[i]);
    }
    return out.slice();
  }

  private static EncodedPage miniBlock(ItemBuffer items, int first, PageLevels levels) {
    MiniBlockBuilder b = new MiniBlockBuilder(items.chunkBuffers(), levels);
    int n = levels.itemCount();
    items.chooseMiniBlockEncoding(first, n);
    int item = 0;
    int level = 0;
    while (item < n) {
      int max = MiniBlockBuilder.MAX_CHUNK_VALUES;
      int count;
      int levelEnd;
      while (true) {
        count = items.chunkItems(first + item, n - item, max);
        boolean last = item + count == n;
        levelEnd = last ? levels.count() : levels.levelAfterItem(item + count - 1);
        if (levelEnd - level <= MiniBlockBuilder.MAX_CHUNK_LEVELS) {
          break;
        }
        if (count == 1) {
          throw new IllegalStateException(
              "Cannot write a mini-block chunk: "
                  + (levelEnd - level)
                  + " level entries (empty or null lists) surround one value; at most "
                  + MiniBlockBuilder.MAX_CHUNK_LEVELS
                  + " are supported");
        }
        max = ItemBuffer.floorPow2(count - 1);
      }
      List<ByteSlice> values = items.chunk(first + item, count);
      if (items.compression != null) {
        values = List.of(ChunkCompression.compress(items.compression, values.get(0)));
      }
      b.addChunk(count, item + count == n, level, levelEnd - level, values);
      item += count;
      level = levelEnd;
    }
    CompressiveEncoding encoding =
        items.compression == null
            ? items.encoding()
            : ChunkCompression.wrap(items.compression, items.encoding());
    return b.finish(encoding, items.dictionary(), items.dictionaryItems());
  }

  /**
   * Per level entry: the control word ({@code rep << bits_def | def}, 1/2/4 bytes; none without
   * levels), then the value when the entry has an item (variable width: only valid items). A
   * repetition index (byte position of each row, then the total) follows for lists and
   * variable-width values.
   */
  private static EncodedPage fullZip(ItemBuffer items, int first, PageLevels levels) {
    int maxRep = 0;
    int maxDef = 0;
    for (int i = 0; i < levels.count(); i++) {
      maxRep = levels.rep() == null ? 0 : Math.max(maxRep, levels.rep()[i]);
      maxDef = levels.def() == null ? 0 : Math.max(maxDef, levels.def()[i]);
    }
    int bitsRep = 32 - Integer.numberOfLeadingZeros(maxRep);
    int bitsDef = 32 - Integer.numberOfLeadingZeros(maxDef);
    int bits = bitsRep + bitsDef;
    int controlBytes = bits == 0 ? 0 : bits <= 8 ? 1 : bits <= 16 ? 2 : 4;
    items.chooseFullZipEncoding(first, levels.itemCount());
    boolean variable = items.zippedBits() == 0;
    boolean index = variable || levels.rep() != null;
    ByteSlice contiguous =
        controlBytes == 0 && !index ? items.zippedRange(first, levels.itemCount()) : null;
    FullZipLayout.Builder layout =
        FullZipLayout.newBuilder()
            .setBitsRep(bitsRep)
            .setBitsDef(bitsDef)
            .setNumItems(levels.count())
            .setNumVisibleItems(levels.itemCount())
            .setValueCompression(items.encoding())
            .addAllLayers(levels.layers());
    if (variable) {
      layout.setBitsPerOffset(items.lengthBytes() * 8);
    } else {
      layout.setBitsPerValue(items.zippedBits());
    }
    if (contiguous != null) {
      // no control words, no index: the zipped values are the items as they are buffered
      return new EncodedPage(
          PageLayout.newBuilder().setFullZipLayout(layout).build(),
          List.of(contiguous),
          levels.rows());
    }
    long estimate =
        items.bytes()
            + (long) levels.count() * (controlBytes + (variable ? items.lengthBytes() : 0));
    GrowableBytes zipped = new GrowableBytes((int) Math.min(Integer.MAX_VALUE - 16, estimate));
    List<Long> rowStarts = index ? new ArrayList<>(levels.rows() + 1) : null;
    int item = first;
    for (int i = 0; i < levels.count(); i++) {
      int rep = levels.rep() == null ? 0 : levels.rep()[i];
      int def = levels.def() == null ? 0 : levels.def()[i];
      if (index && (levels.rep() == null || rep == levels.maxRep())) {
        rowStarts.add((long) zipped.size());
      }
      int word = rep << bitsDef | def;
      for (int b = 0; b < controlBytes; b++) {
        zipped.put((byte) (word >>> (8 * b)));
      }
      if (levels.visible(i)) {
        items.zip(item++, zipped);
      }
    }
    List<ByteSlice> buffers = new ArrayList<>(2);
    buffers.add(zipped.slice());
    if (index) {
      rowStarts.add((long) zipped.size());
      if (rowStarts.size() != levels.rows() + 1) {
        throw new IllegalStateException(
            rowStarts.size() - 1 + " rows zipped, " + levels.rows() + " expected");
      }
      buffers.add(
          ByteSlice.of(
              RepetitionIndex.bytepack(rowStarts.stream().mapToLong(Long::longValue).toArray())));
    }
    return new EncodedPage(
        PageLayout.newBuilder().setFullZipLayout(layout).build(), buffers, levels.rows());
  }
}
