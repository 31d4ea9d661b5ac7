package dev.lancelot.engine.internal.file.write;

import com.google.protobuf.ByteString;
import dev.lancelot.engine.internal.file.proto.Encodings21Protos.CompressiveEncoding;
import dev.lancelot.engine.internal.file.proto.Encodings21Protos.Fsst;
import dev.lancelot.engine.internal.file.proto.Encodings21Protos.Variable;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.FieldVector;

/**
 * Strings and binary. Mini-block chunks are {@code Variable}: offsets then bytes, offsets counted
 * from the chunk start, or dictionary indices when a page has few distinct values ({@link
 * StringDictionary}); full-zip values are {@code [length][bytes]}. Pages of strings are
 * FSST-compressed where Lance 7 does so ({@link FsstPage}).
 */
final class VarItems extends ItemBuffer {
  private static final int TARGET_CHUNK_BYTES = 4096;

  private final int offsetBytes;
  private final GrowableBytes data = new GrowableBytes(1 << 16);
  private long[] ends = new long[1024];
  private long maxLength;

  /** The dictionary of the mini-block page being encoded ({@link #chooseMiniBlockEncoding}). */
  private StringDictionary dictionary;

  /** Whether pages may be FSST-compressed (strings, not binary). */
  private final boolean strings;

  /** The FSST form of the page being encoded, or null. */
  private FsstPage fsst;

  /** First item of the page being encoded (the FSST page's offsets count from it). */
  private int pageFirst;

  /** {@code offsetBytes} 4 for utf8/binary, 8 for large_utf8/large_binary. */
  VarItems(int offsetBytes) {
    this(offsetBytes, false);
  }

  /** {@code strings}: the values are strings, which Lance FSST-compresses (binary it does not). */
  VarItems(int offsetBytes, boolean strings) {
    this.offsetBytes = offsetBytes;
    this.strings = strings;
  }

  @Override
  void appendValues(FieldVector v, int from, int n) {
    int base = items() - n;
    if (ends.length < items()) {
      ends = Arrays.copyOf(ends, Math.max(items(), 2 * ends.length));
    }
    ArrowBuf off = v.getOffsetBuffer();
    boolean anyNull = false;
    for (int i = 0; i < n && !anyNull; i++) {
      anyNull = validity.isNull(base + i);
    }
    if (!anyNull) {
      long first = offset(off, from);
      long dataStart = data.size() - first;
      data.put(v.getDataBuffer(), first, (int) (offset(off, from + n) - first));
      long prev = first;
      for (int i = 0; i < n; i++) {
        long end = offset(off, from + i + 1);
        maxLength = Math.max(maxLength, end - prev);
        ends[base + i] = dataStart + end;
        prev = end;
      }
    } else {
      // Null items keep no bytes, whatever the vector stored for them.
      for (int i = 0; i < n; i++) {
        if (!validity.isNull(base + i)) {
          long s = offset(off, from + i);
          long e = offset(off, from + i + 1);
          data.put(v.getDataBuffer(), s, (int) (e - s));
          maxLength = Math.max(maxLength, e - s);
        }
        ends[base + i] = data.size();
      }
    }
  }

  private long offset(ArrowBuf off, int row) {
    return offsetBytes == 4 ? Integer.toUnsignedLong(off.getInt(4L * row)) : off.getLong(8L * row);
  }

  private long start(int item) {
    return item == 0 ? 0 : ends[item - 1];
  }

  /** Start of item {@code i}'s stored bytes in {@link #stored()}: compressed when FSST is on. */
  private long begin(int i) {
    return fsst != null && fsst.data != null ? fsst.offsets[i - pageFirst] : start(i);
  }

  private long end(int i) {
    return fsst != null && fsst.data != null ? fsst.offsets[i - pageFirst + 1] : ends[i];
  }

  private byte[] stored() {
    return fsst != null && fsst.data != null ? fsst.data : data.array();
  }

  @Override
  long bytes() {
    return data.size() + (long) items() * offsetBytes;
  }

  @Override
  boolean narrow() {
    return maxLength < NARROW_BYTES;
  }

  @Override
  int chunkBuffers() {
    return 1;
  }

  @Override
  void chooseMiniBlockEncoding(int first, int n) {
    dictionary =
        offsetBytes == 4
            ? StringDictionary.build(data.array(), ends, first, n, items(), validity)
            : null;
    chooseFsst(first, n);
  }

  @Override
  void chooseFullZipEncoding(int first, int n) {
    dictionary = null;
    chooseFsst(first, n);
  }

  private void chooseFsst(int first, int n) {
    pageFirst = first;
    fsst =
        strings && compression == null && dictionary == null
            ? FsstPage.choose(data.array(), ends, first, n, offsetBytes)
            : null;
  }

  @Override
  ByteSlice dictionary() {
    return dictionary == null ? null : dictionary.block();
  }

  @Override
  int dictionaryItems() {
    return dictionary == null ? 0 : dictionary.size();
  }

  @Override
  int chunkItems(int start, int remaining, int max) {
    if (dictionary != null) {
      return Math.min(Math.min(InlineBitpacker.BLOCK, floorPow2(max)), remaining);
    }
    int limit = Math.min(MiniBlockBuilder.MAX_CHUNK_VALUES, max);
    int count = 1;
    while (count * 2 <= limit
        && count * 2 <= remaining
        && chunkBytes(start, count * 2) <= TARGET_CHUNK_BYTES) {
      count *= 2;
    }
    // The final chunk may hold any number of values: take the rest if it fits.
    if (count < remaining
        && remaining <= limit
        && chunkBytes(start, remaining) <= TARGET_CHUNK_BYTES) {
      count = remaining;
    }
    return count;
  }

  private long chunkBytes(int start, int count) {
    return (long) (count + 1) * offsetBytes + (end(start + count - 1) - begin(start));
  }

  /**
   * {@code [offsets x (count + 1), relative to the chunk start][value bytes][padding]}; Lance views
   * the chunk as an array of offsets, so its size must be a multiple of the offset width.
   */
  @Override
  List<ByteSlice> chunk(int start, int count) {
    if (dictionary != null) {
      return List.of(dictionary.indices(start, count, validity));
    }
    long dataBytes = end(start + count - 1) - begin(start);
    int header = (count + 1) * offsetBytes;
    GrowableBytes out = new GrowableBytes((int) (header + dataBytes));
    long base = begin(start);
    for (int i = 0; i <= count; i++) {
      long pos = header + ((i == 0 ? base : end(start + i - 1)) - base);
      if (offsetBytes == 4) {
        out.putInt((int) pos);
      } else {
        out.putLong(pos);
      }
    }
    out.put(stored(), (int) base, (int) dataBytes);
    out.align(offsetBytes);
    return List.of(out.slice());
  }

  @Override
  CompressiveEncoding encoding() {
    if (dictionary != null) {
      return dictionary.indexEncoding();
    }
    CompressiveEncoding variable =
        CompressiveEncoding.newBuilder()
            .setVariable(Variable.newBuilder().setOffsets(MiniBlockBuilder.flat(offsetBytes * 8)))
            .build();
    if (fsst == null) {
      return variable;
    }
    return CompressiveEncoding.newBuilder()
        .setFsst(
            Fsst.newBuilder().setSymbolTable(ByteString.copyFrom(fsst.table)).setValues(variable))
        .build();
  }

  @Override
  int zippedBits() {
    return 0;
  }

  @Override
  int lengthBytes() {
    return offsetBytes;
  }

  @Override
  void zip(int i, GrowableBytes out) {
    if (validity.isNull(i)) {
      return;
    }
    long from = begin(i);
    long len = end(i) - from;
    if (offsetBytes == 4) {
      out.putInt((int) len);
    } else {
      out.putLong(len);
    }
    out.put(stored(), (int) from, (int) len);
  }

  @Override
  void clear() {
    super.clear();
    data.clear();
    maxLength = 0;
    dictionary = null;
    fsst = null;
  }
}
