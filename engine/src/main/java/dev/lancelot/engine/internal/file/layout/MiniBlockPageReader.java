package dev.lancelot.engine.internal.file.layout;

import dev.lancelot.engine.internal.file.arrow.ColumnSink;
import dev.lancelot.engine.internal.file.codec.BlockDecoder;
import dev.lancelot.engine.internal.file.codec.Codecs;
import dev.lancelot.engine.internal.file.codec.DecodeException;
import dev.lancelot.engine.internal.file.codec.MiniBlockDecoder;
import dev.lancelot.engine.internal.file.codec.Values;
import dev.lancelot.engine.internal.file.container.PageInfo;
import dev.lancelot.engine.internal.file.proto.Encodings21Protos.MiniBlockLayout;
import dev.lancelot.engine.internal.file.repdef.RepDefLayers;
import dev.lancelot.engine.io.ByteRange;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The mini-block layout: values split into small chunks (up to 4Ki values, a few KiB each) that are
 * decoded whole. Page buffers:
 *
 * <pre>
 *   buffer 0: chunk table, one u16 word per chunk (u32 when has_large_chunk, format 2.2):
 *             bits 0-3 log2(values in chunk) (0 for the last chunk, which holds the rest),
 *             bits 4+  (chunk bytes / 8) - 1
 *   buffer 1: the chunks, back to back, each 8-byte aligned
 *   buffer 2: the dictionary (only when the layout has one), decoded with a block decoder
 *   last:     the repetition index (only when repetition_index_depth > 0), see {@link MiniBlockMeta}
 * </pre>
 *
 * Chunk layout:
 *
 * <pre>
 *   [u16] number of rep/def levels in the chunk
 *   [u16] bytes of repetition levels      (only with rep_compression)
 *   [u16] bytes of definition levels      (only with def_compression)
 *   [u16 or u32 x num_buffers] bytes of each value buffer (u32 when has_large_chunk)
 *   padding to 8 bytes
 *   [rep levels] padding to 8; [def levels] padding to 8
 *   [value buffer] padding to 8, for each value buffer
 * </pre>
 *
 * Levels are decoded with block decoders into u16; a definition level of 0 means valid. A chunk's
 * item count comes from the chunk table; with lists it may hold more level entries than items (null
 * and empty lists have a level entry but no item), and rows may span chunks (see {@link
 * MiniBlockListRows}). With a dictionary, the chunk values are indices into it.
 */
public final class MiniBlockPageReader implements PageReader {
  private final PageInfo page;
  private final MiniBlockLayout layout;
  private final RepDefLayers repdef;
  private final boolean lists;
  private final MiniBlockDecoder values;
  private final BlockDecoder reps;
  private final BlockDecoder defs;
  private final BlockDecoder dictionaryDecoder;
  private final int numBuffers;
  private final boolean large;
  private volatile MiniBlockMeta meta;

  public MiniBlockPageReader(PageInfo page, MiniBlockLayout layout) {
    this.page = page;
    this.layout = layout;
    this.repdef = RepDefLayers.of(layout.getLayersList());
    this.lists = repdef.maxRep() > 0;
    if (lists != layout.hasRepCompression()) {
      throw DecodeException.corrupt(
          "mini-block page with layers "
              + repdef
              + (lists ? " without" : " with")
              + " repetition levels");
    }
    if (lists && layout.getRepetitionIndexDepth() < 1) {
      throw DecodeException.unsupported("mini-block list pages without a repetition index");
    }
    if (!layout.hasValueCompression()) {
      throw DecodeException.corrupt("mini-block page without a value encoding");
    }
    this.values = Codecs.miniBlock(layout.getValueCompression());
    this.reps = lists ? Codecs.block(layout.getRepCompression()) : null;
    this.defs = layout.hasDefCompression() ? Codecs.block(layout.getDefCompression()) : null;
    this.dictionaryDecoder = layout.hasDictionary() ? Codecs.block(layout.getDictionary()) : null;
    this.numBuffers = (int) layout.getNumBuffers();
    this.large = layout.getHasLargeChunk();
    int needed =
        2 + (layout.hasDictionary() ? 1 : 0) + (layout.getRepetitionIndexDepth() > 0 ? 1 : 0);
    if (page.numBuffers() < needed) {
      throw DecodeException.corrupt(
          "mini-block page has " + page.numBuffers() + " buffers, " + needed + " needed");
    }
    if (!lists && layout.getNumItems() != page.numRows()) {
      throw DecodeException.corrupt(
          "mini-block page holds "
              + layout.getNumItems()
              + " items for "
              + page.numRows()
              + " rows");
    }
  }

  @Override
  public PageInfo page() {
    return page;
  }

  private List<ByteRange> metaRanges() {
    List<ByteRange> ranges = new ArrayList<>(3);
    ranges.add(new ByteRange(page.bufferOffset(0), page.bufferSize(0)));
    if (dictionaryDecoder != null) {
      ranges.add(new ByteRange(page.bufferOffset(2), page.bufferSize(2)));
    }
    if (lists) {
      int last = page.numBuffers() - 1;
      ranges.add(new ByteRange(page.bufferOffset(last), page.bufferSize(last)));
    }
    return ranges;
  }

  /** Parses what {@link #metaRanges()} read; safe to race (idempotent). */
  private MiniBlockMeta parseMeta(List<ByteBuffer> bufs) {
    Values dictionary = null;
    if (dictionaryDecoder != null) {
      long num = layout.getNumDictionaryItems();
      if (num < 0 || num > Integer.MAX_VALUE) {
        throw DecodeException.corrupt("dictionary of " + num + " items");
      }
      dictionary = dictionaryDecoder.decode(bufs.get(1), (int) num);
    }
    ByteBuffer repIndex = lists ? bufs.get(bufs.size() - 1) : null;
    MiniBlockMeta m =
        MiniBlockMeta.parse(
            bufs.get(0),
            large,
            layout.getNumItems(),
            page.bufferOffset(1),
            page.bufferSize(1),
            dictionary,
            repIndex,
            layout.getRepetitionIndexDepth(),
            page.numRows());
    meta = m;
    return m;
  }

  @Override
  public PageLoad plan(List<RowRange> ranges) {
    return new Load(ranges);
  }

  /** Rounds: chunk table and dictionary (first use only), then the chunks holding the ranges. */
  private final class Load implements PageLoad {
    private final List<RowRange> ranges;
    private MiniBlockMeta m = meta;
    private List<Integer> chunks;
    private List<RowSource> sources;

    Load(List<RowRange> ranges) {
      this.ranges = ranges;
      if (m != null) {
        planChunks();
      }
    }

    private void planChunks() {
      chunks = new ArrayList<>();
      for (RowRange r : ranges) {
        if (r.length() == 0) {
          continue;
        }
        int a = lists ? m.chunkOfRowStart(r.start()) : m.chunkOfItem(r.start());
        int b = lists ? m.lastChunkBefore(r.end(), page.numRows()) : m.chunkOfItem(r.end() - 1);
        for (int c = a; c <= b; c++) {
          if (chunks.isEmpty() || chunks.get(chunks.size() - 1) < c) {
            chunks.add(c);
          }
        }
      }
      if (chunks.isEmpty()) {
        finish(List.of());
      }
    }

    private void finish(List<ByteBuffer> fetched) {
      ChunkCache cache = new ChunkCache(m, chunks, fetched);
      List<RowSource> out = new ArrayList<>(ranges.size());
      for (RowRange r : ranges) {
        out.add(
            lists
                ? new MiniBlockListRows(cache::get, m, repdef.canonical(), r.start(), r.end())
                : new Rows(cache, r.start(), r.end()));
      }
      sources = out;
    }

    @Override
    public List<ByteRange> reads() {
      if (m == null) {
        return metaRanges();
      }
      List<ByteRange> out = new ArrayList<>(chunks.size());
      for (int c : chunks) {
        out.add(new ByteRange(m.offsets[c], m.sizes[c]));
      }
      return out;
    }

    @Override
    public void supply(List<ByteBuffer> buffers) {
      if (m == null) {
        m = parseMeta(buffers);
        planChunks();
      } else {
        finish(buffers);
      }
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

  @Override
  public long estimateBytes(int start, int end) {
    MiniBlockMeta m = meta;
    if (m == null || end <= start) {
      return page.numRows() == 0 ? 0 : page.bufferSize(1) * (end - start) / page.numRows();
    }
    int a = lists ? m.chunkOfRowStart(start) : m.chunkOfItem(start);
    int b = lists ? m.lastChunkBefore(end, page.numRows()) : m.chunkOfItem(end - 1);
    long bytes = 0;
    for (int c = a; c <= b; c++) {
      bytes += m.sizes[c];
    }
    return bytes;
  }

  /** The fetched chunks of one load, decoding the most recently used one once. */
  private final class ChunkCache {
    private final MiniBlockMeta meta;
    private final List<Integer> chunks;
    private final List<ByteBuffer> data;
    private int cachedChunk = -1;
    private MiniBlockChunk cached;

    ChunkCache(MiniBlockMeta meta, List<Integer> chunks, List<ByteBuffer> data) {
      this.meta = meta;
      this.chunks = chunks;
      this.data = data;
    }

    MiniBlockChunk get(int chunk) {
      if (chunk != cachedChunk) {
        int idx = java.util.Collections.binarySearch(chunks, chunk);
        if (idx < 0) {
          throw new IllegalStateException("chunk " + chunk + " was not fetched");
        }
        cached =
            decodeChunk(
                data.get(idx), meta.items[chunk], lists ? meta.starts[chunk] : 0, meta.dictionary);
        cachedChunk = chunk;
      }
      return cached;
    }
  }

  /**
   * Decodes one chunk of {@code items} items; {@code expectedStarts} is the number of rows the
   * repetition index says start in it (list pages).
   */
  private MiniBlockChunk decodeChunk(
      ByteBuffer chunk, int items, long expectedStarts, Values dictionary) {
    int pos = 0;
    int numLevels = Short.toUnsignedInt(chunk.getShort(pos));
    pos += 2;
    int repBytes = 0;
    if (reps != null) {
      repBytes = Short.toUnsignedInt(chunk.getShort(pos));
      pos += 2;
    }
    int defBytes = 0;
    if (defs != null) {
      defBytes = Short.toUnsignedInt(chunk.getShort(pos));
      pos += 2;
    }
    int[] sizes = new int[numBuffers];
    for (int i = 0; i < numBuffers; i++) {
      if (large) {
        sizes[i] = chunk.getInt(pos);
        pos += 4;
      } else {
        sizes[i] = Short.toUnsignedInt(chunk.getShort(pos));
        pos += 2;
      }
    }
    pos = align8(pos);
    short[] rep = null;
    if (reps != null) {
      if (numLevels < items) {
        throw DecodeException.corrupt(
            "mini-block chunk has " + numLevels + " levels for " + items + " items");
      }
      rep = reps.decodeLevels(Codecs.slice(chunk, pos, repBytes), numLevels);
      pos = align8(pos + repBytes);
    }
    short[] def = null;
    if (defs != null) {
      if (!lists && numLevels != items) {
        throw DecodeException.corrupt(
            "mini-block chunk has " + numLevels + " definition levels for " + items + " items");
      }
      def = defs.decodeLevels(Codecs.slice(chunk, pos, defBytes), numLevels);
      pos = align8(pos + defBytes);
      if (repdef.nested()) {
        repdef.toCanonical(def, 0, numLevels);
      }
    } else if (lists && numLevels != items) {
      throw DecodeException.corrupt(
          "mini-block chunk has "
              + numLevels
              + " levels but no definition levels for "
              + items
              + " items");
    }
    short[] itemDefs = def;
    int[] rowStarts = null;
    int[] rowItems = null;
    int numRowStarts = 0;
    if (lists) {
      int visibleBelow = repdef.canonical().firstListBase();
      int maxRep = repdef.maxRep();
      // sized by the repetition index; counts beyond it (a corrupt index) are clamped, then redone
      int cap = (int) Math.min(Math.max(expectedStarts, 0), numLevels) + 1;
      int n;
      while (true) {
        rowStarts = new int[cap + 1];
        rowItems = new int[cap + 1];
        numRowStarts = 0;
        n = 0;
        if (def == null) {
          for (int i = 0; i < numLevels; i++) {
            rowStarts[numRowStarts] = i;
            rowItems[numRowStarts] = i;
            numRowStarts = Math.min(numRowStarts + isZero(rep[i] ^ maxRep), cap);
          }
          n = numLevels;
        } else {
          // branch-free: the stores land at the next free slot and are overwritten unless counted
          int anyNull = 0;
          for (int i = 0; i < numLevels; i++) {
            rowStarts[numRowStarts] = i;
            rowItems[numRowStarts] = n;
            numRowStarts = Math.min(numRowStarts + isZero(rep[i] ^ maxRep), cap);
            int d = def[i];
            int visible = (d - visibleBelow) >>> 31; // d < visibleBelow (levels are small)
            anyNull |= d & -visible;
            n += visible;
          }
          itemDefs = null;
          if (anyNull != 0 && n == items) {
            itemDefs = new short[items];
            int k = 0;
            for (int i = 0; i < numLevels; i++) {
              if (def[i] < visibleBelow) {
                itemDefs[k++] = def[i];
              }
            }
          }
        }
        if (numRowStarts < cap) {
          break;
        }
        cap = numLevels + 1;
      }
      if (n != items) {
        throw DecodeException.corrupt(
            "mini-block chunk has " + n + " visible levels for " + items + " items");
      }
      rowStarts[numRowStarts] = numLevels;
      rowItems[numRowStarts] = items;
    }
    List<ByteBuffer> bufs = new ArrayList<>(numBuffers);
    for (int i = 0; i < numBuffers; i++) {
      if (sizes[i] < 0) {
        throw DecodeException.corrupt("mini-block chunk buffer of negative size");
      }
      bufs.add(Codecs.slice(chunk, pos, sizes[i]));
      pos = align8(pos + sizes[i]);
    }
    Values v = values.decode(bufs, items);
    if (dictionary != null) {
      v = Dictionaries.gather(dictionary, v, itemDefs);
    }
    return new MiniBlockChunk(
        v, rep, def, itemDefs, lists ? numLevels : items, rowStarts, rowItems, numRowStarts);
  }

  /** 1 if {@code x == 0}, else 0, without a branch. */
  private static int isZero(int x) {
    return ((x - 1) & ~x) >>> 31;
  }

  static short[] toLevels(Values decoded, int n) {
    return BlockDecoder.toLevels(decoded, n);
  }

  private static int align8(int pos) {
    return (pos + 7) & ~7;
  }

  /** Sequential rows of one range of a page without lists (a row is an item). */
  private final class Rows implements RowSource {
    private final ChunkCache cache;
    private int row;
    private final int end;

    Rows(ChunkCache cache, int start, int end) {
      this.cache = cache;
      this.row = start;
      this.end = end;
    }

    @Override
    public int remaining() {
      return end - row;
    }

    @Override
    public void emit(int n, ColumnSink sink) {
      if (n > remaining()) {
        throw new IllegalArgumentException("Asked for " + n + " rows, " + remaining() + " remain");
      }
      if (sink.nested() != repdef.nested()) {
        throw DecodeException.corrupt(
            "page layers " + repdef + " do not match the column's nesting");
      }
      while (n > 0) {
        int chunk = cache.meta.chunkOfItem(row);
        MiniBlockChunk d = cache.get(chunk);
        int inChunk = row - cache.meta.firstItem[chunk];
        int take = Math.min(n, cache.meta.items[chunk] - inChunk);
        if (repdef.nested()) {
          sink.appendLevels(repdef.canonical(), null, d.def(), inChunk, take);
        }
        sink.append(d.values(), inChunk, take, d.def(), inChunk);
        row += take;
        n -= take;
      }
    }
  }

  @Override
  public String describe() {
    return Layouts.describe(layout);
  }
}
