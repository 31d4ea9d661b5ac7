package dev.lancelot.engine.file.layout;

import dev.lancelot.engine.file.arrow.ColumnSink;
import dev.lancelot.engine.file.codec.BlockDecoder;
import dev.lancelot.engine.file.codec.Codecs;
import dev.lancelot.engine.file.codec.DecodeException;
import dev.lancelot.engine.file.codec.FixedValues;
import dev.lancelot.engine.file.codec.MiniBlockDecoder;
import dev.lancelot.engine.file.codec.Values;
import dev.lancelot.engine.file.container.PageInfo;
import dev.lancelot.engine.file.proto.Encodings21Protos.MiniBlockLayout;
import dev.lancelot.engine.io.ByteRange;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The mini-block layout: values split into small chunks (up to 4Ki values, a few KiB each) that
 * are decoded whole. Page buffers:
 * <pre>
 *   buffer 0: chunk table, one u16 word per chunk (u32 when has_large_chunk, format 2.2):
 *             bits 0-3 log2(values in chunk) (0 for the last chunk, which holds the rest),
 *             bits 4+  (chunk bytes / 8) - 1
 *   buffer 1: the chunks, back to back, each 8-byte aligned
 *   buffer 2: the dictionary (only when the layout has one), decoded with a block decoder
 *   last:     the repetition index (only when repetition_index_depth > 0)
 * </pre>
 * Chunk layout:
 * <pre>
 *   [u16] number of rep/def levels in the chunk
 *   [u16] bytes of repetition levels      (only with rep_compression)
 *   [u16] bytes of definition levels      (only with def_compression)
 *   [u16 or u32 x num_buffers] bytes of each value buffer (u32 when has_large_chunk)
 *   padding to 8 bytes
 *   [rep levels] padding to 8; [def levels] padding to 8
 *   [value buffer] padding to 8, for each value buffer
 * </pre>
 * Levels are decoded with block decoders into u16; a definition level of 0 means valid.
 * With a dictionary, the chunk values are indices into it.
 */
public final class MiniBlockPageReader implements PageReader {
  private final PageInfo page;
  private final MiniBlockLayout layout;
  private final MiniBlockDecoder values;
  private final BlockDecoder defs;
  private final BlockDecoder dictionaryDecoder;
  private final int numBuffers;
  private final boolean large;
  private volatile Meta meta;

  /** Chunk table (absolute file offsets) and decoded dictionary of one page. */
  private record Meta(long[] offsets, int[] sizes, int[] firstItem, int[] items, Values dictionary) {
    int chunkOf(int item) {
      int lo = 0;
      int hi = firstItem.length - 1;
      while (lo < hi) {
        int mid = (lo + hi + 1) >>> 1;
        if (firstItem[mid] <= item) {
          lo = mid;
        } else {
          hi = mid - 1;
        }
      }
      return lo;
    }
  }

  public MiniBlockPageReader(PageInfo page, MiniBlockLayout layout) {
    this.page = page;
    this.layout = layout;
    if (layout.hasRepCompression() || layout.getRepetitionIndexDepth() > 0) {
      throw DecodeException.unsupported("mini-block pages with repetition levels (lists)");
    }
    if (layout.getLayersCount() > 1) {
      throw DecodeException.unsupported("mini-block pages with " + layout.getLayersCount() + " rep/def layers (structs)");
    }
    if (!layout.hasValueCompression()) {
      throw DecodeException.corrupt("mini-block page without a value encoding");
    }
    this.values = Codecs.miniBlock(layout.getValueCompression());
    this.defs = layout.hasDefCompression() ? Codecs.block(layout.getDefCompression()) : null;
    this.dictionaryDecoder = layout.hasDictionary() ? Codecs.block(layout.getDictionary()) : null;
    this.numBuffers = (int) layout.getNumBuffers();
    this.large = layout.getHasLargeChunk();
    int needed = 2 + (layout.hasDictionary() ? 1 : 0);
    if (page.numBuffers() < needed) {
      throw DecodeException.corrupt("mini-block page has " + page.numBuffers() + " buffers, " + needed + " needed");
    }
    if (layout.getNumItems() != page.numRows()) {
      throw DecodeException.corrupt("mini-block page holds " + layout.getNumItems() + " items for "
          + page.numRows() + " rows");
    }
  }

  @Override
  public PageInfo page() {
    return page;
  }

  private List<ByteRange> metaRanges() {
    List<ByteRange> ranges = new ArrayList<>(2);
    ranges.add(new ByteRange(page.bufferOffset(0), page.bufferSize(0)));
    if (dictionaryDecoder != null) {
      ranges.add(new ByteRange(page.bufferOffset(2), page.bufferSize(2)));
    }
    return ranges;
  }

  /** Parses the chunk table and dictionary read by {@link #metaRanges()}; safe to race (idempotent). */
  private Meta parseMeta(List<ByteBuffer> bufs) {
    ByteBuffer words = bufs.get(0);
    int wordBytes = large ? 4 : 2;
    if (words.limit() % wordBytes != 0) {
      throw DecodeException.corrupt("mini-block chunk table of " + words.limit() + " bytes");
    }
    int n = words.limit() / wordBytes;
    long[] offsets = new long[n];
    int[] sizes = new int[n];
    int[] first = new int[n];
    int[] items = new int[n];
    long total = page.numRows();
    long pos = page.bufferOffset(1);
    long end = pos + page.bufferSize(1);
    long item = 0;
    for (int i = 0; i < n; i++) {
      long word = large ? Integer.toUnsignedLong(words.getInt(4 * i)) : Short.toUnsignedInt(words.getShort(2 * i));
      int log = (int) (word & 0xF);
      long bytes = ((word >>> 4) + 1) * 8;
      long count = i < n - 1 ? 1L << log : total - item;
      if (count <= 0 || item + count > total || pos + bytes > end) {
        throw DecodeException.corrupt("mini-block chunk table does not match the page (" + total + " items, "
            + page.bufferSize(1) + " bytes of chunks)");
      }
      offsets[i] = pos;
      sizes[i] = (int) bytes;
      first[i] = (int) item;
      items[i] = (int) count;
      pos += bytes;
      item += count;
    }
    if (item != total) {
      throw DecodeException.corrupt("mini-block chunks hold " + item + " items, the page " + total);
    }
    Values dictionary = null;
    if (dictionaryDecoder != null) {
      long num = layout.getNumDictionaryItems();
      if (num < 0 || num > Integer.MAX_VALUE) {
        throw DecodeException.corrupt("dictionary of " + num + " items");
      }
      dictionary = dictionaryDecoder.decode(bufs.get(1), (int) num);
    }
    Meta m = new Meta(offsets, sizes, first, items, dictionary);
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
    private Meta m = meta;
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
        int a = m.chunkOf(r.start());
        int b = m.chunkOf(r.end() - 1);
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
        out.add(new Rows(cache, r.start(), r.end()));
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
    Meta m = meta;
    if (m == null || end <= start) {
      return page.numRows() == 0 ? 0 : page.bufferSize(1) * (end - start) / page.numRows();
    }
    int a = m.chunkOf(start);
    int b = m.chunkOf(end - 1);
    long bytes = 0;
    for (int c = a; c <= b; c++) {
      bytes += m.sizes[c];
    }
    return bytes;
  }

  /** Decoded chunk: values plus definition levels (null when there are none). */
  private record Decoded(Values values, short[] defs) {}

  /** The fetched chunks of one load, decoding the most recently used one once. */
  private final class ChunkCache {
    private final Meta meta;
    private final List<Integer> chunks;
    private final List<ByteBuffer> data;
    private int cachedChunk = -1;
    private Decoded cached;

    ChunkCache(Meta meta, List<Integer> chunks, List<ByteBuffer> data) {
      this.meta = meta;
      this.chunks = chunks;
      this.data = data;
    }

    Decoded get(int chunk) {
      if (chunk != cachedChunk) {
        int idx = java.util.Collections.binarySearch(chunks, chunk);
        if (idx < 0) {
          throw new IllegalStateException("chunk " + chunk + " was not fetched");
        }
        cached = decodeChunk(data.get(idx), meta.items[chunk], meta.dictionary);
        cachedChunk = chunk;
      }
      return cached;
    }
  }

  private Decoded decodeChunk(ByteBuffer chunk, int items, Values dictionary) {
    int pos = 0;
    int numLevels = Short.toUnsignedInt(chunk.getShort(pos));
    pos += 2;
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
    short[] levels = null;
    if (defs != null) {
      if (numLevels != items) {
        throw DecodeException.corrupt("mini-block chunk has " + numLevels + " definition levels for " + items
            + " items");
      }
      levels = toLevels(defs.decode(Codecs.slice(chunk, pos, defBytes), numLevels), numLevels);
      pos = align8(pos + defBytes);
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
      v = Dictionaries.gather(dictionary, v, levels);
    }
    return new Decoded(v, levels);
  }

  static short[] toLevels(Values decoded, int n) {
    if (!(decoded instanceof FixedValues f) || f.bitsPerValue() != 16 || f.count() < n) {
      throw DecodeException.corrupt("repetition/definition levels must decode to " + n + " 16-bit values");
    }
    short[] out = new short[n];
    f.data().asShortBuffer().get(f.offset() / 2, out, 0, n);
    return out;
  }

  private static int align8(int pos) {
    return (pos + 7) & ~7;
  }

  /** Sequential rows of one range. */
  private static final class Rows implements RowSource {
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
      while (n > 0) {
        int chunk = cache.meta.chunkOf(row);
        Decoded d = cache.get(chunk);
        int inChunk = row - cache.meta.firstItem[chunk];
        int take = Math.min(n, cache.meta.items[chunk] - inChunk);
        sink.append(d.values(), inChunk, take, d.defs(), inChunk);
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
