package dev.lancelot.engine.file.write;

import dev.lancelot.engine.file.proto.Encodings21Protos.CompressiveEncoding;
import dev.lancelot.engine.file.proto.Encodings21Protos.FullZipLayout;
import dev.lancelot.engine.file.proto.Encodings21Protos.PageLayout;
import dev.lancelot.engine.file.proto.Encodings21Protos.RepDefLayer;
import dev.lancelot.engine.file.proto.Encodings21Protos.Variable;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.FieldVector;

/**
 * Strings and binary. Pages with values under 256 bytes become mini-block pages of
 * {@code Variable} chunks (chunk = offsets then bytes, offsets counted from the chunk start);
 * others become variable full-zip pages with a repetition index.
 */
final class VarColumnBuffer extends ColumnBuffer {
  private static final int TARGET_CHUNK_BYTES = 4096;

  private final int offsetBytes;
  private final GrowableBytes data = new GrowableBytes(1 << 16);
  private long[] ends = new long[1024];
  private final Validity validity = new Validity();
  private long maxLength;

  /** {@code offsetBytes} 4 for utf8/binary, 8 for large_utf8/large_binary. */
  VarColumnBuffer(int offsetBytes) {
    this.offsetBytes = offsetBytes;
  }

  @Override
  void append(FieldVector v, int from, int n) {
    int base = validity.size();
    validity.append(v, from, n);
    if (ends.length < validity.size()) {
      ends = Arrays.copyOf(ends, Math.max(validity.size(), 2 * ends.length));
    }
    ArrowBuf off = v.getOffsetBuffer();
    if (v.getNullCount() == 0) {
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
      // Null rows keep no bytes, whatever the vector stored for them.
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

  @Override
  int rows() {
    return validity.size();
  }

  @Override
  long bytes() {
    return data.size() + (long) rows() * offsetBytes;
  }

  private long start(int row) {
    return row == 0 ? 0 : ends[row - 1];
  }

  @Override
  EncodedPage encode() {
    int rows = rows();
    try {
      if (validity.nullCount() == rows) {
        return allNull(rows);
      }
      boolean defs = validity.nullCount() > 0;
      return maxLength < NARROW_BYTES ? miniBlock(rows, defs) : fullZip(rows, defs);
    } finally {
      data.clear();
      validity.clear();
      maxLength = 0;
    }
  }

  private CompressiveEncoding encoding() {
    return CompressiveEncoding.newBuilder()
        .setVariable(Variable.newBuilder().setOffsets(MiniBlockBuilder.flat(offsetBytes * 8))).build();
  }

  private EncodedPage miniBlock(int rows, boolean defs) {
    MiniBlockBuilder b = new MiniBlockBuilder(1, defs);
    int start = 0;
    while (start < rows) {
      int count = 1;
      while (count * 2 <= MiniBlockBuilder.MAX_CHUNK_VALUES && start + count * 2 <= rows
          && chunkBytes(start, count * 2) <= TARGET_CHUNK_BYTES) {
        count *= 2;
      }
      // The final chunk may hold any number of values: take the rest if it fits.
      boolean last = start + count == rows;
      if (!last && rows - start <= MiniBlockBuilder.MAX_CHUNK_VALUES && chunkBytes(start, rows - start) <= TARGET_CHUNK_BYTES) {
        count = rows - start;
        last = true;
      }
      b.addChunk(count, last, validity, start, List.of(MiniBlockBuilder.Slice.of(chunk(start, count))));
      start += count;
    }
    return b.finish(encoding(), rows);
  }

  private long chunkBytes(int start, int count) {
    return (long) (count + 1) * offsetBytes + (ends[start + count - 1] - start(start));
  }

  /**
   * {@code [offsets x (count + 1), relative to the chunk start][value bytes][padding]}; Lance
   * views the chunk as an array of offsets, so its size must be a multiple of the offset width.
   */
  private byte[] chunk(int start, int count) {
    long dataBytes = ends[start + count - 1] - start(start);
    int header = (count + 1) * offsetBytes;
    GrowableBytes out = new GrowableBytes((int) (header + dataBytes));
    long base = start(start);
    for (int i = 0; i <= count; i++) {
      long pos = header + ((i == 0 ? base : ends[start + i - 1]) - base);
      if (offsetBytes == 4) {
        out.putInt((int) pos);
      } else {
        out.putLong(pos);
      }
    }
    out.put(data.array(), (int) base, (int) dataBytes);
    out.align(offsetBytes);
    return out.toArray();
  }

  private EncodedPage fullZip(int rows, boolean defs) {
    GrowableBytes zipped = new GrowableBytes((int) Math.min(Integer.MAX_VALUE - 16,
        data.size() + (long) rows * (offsetBytes + 1)));
    long[] index = new long[rows + 1];
    byte[] src = data.array();
    for (int r = 0; r < rows; r++) {
      index[r] = zipped.size();
      boolean isNull = validity.isNull(r);
      if (defs) {
        zipped.put((byte) (isNull ? 1 : 0));
      }
      if (!isNull) {
        long len = ends[r] - start(r);
        if (offsetBytes == 4) {
          zipped.putInt((int) len);
        } else {
          zipped.putLong(len);
        }
        zipped.put(src, (int) start(r), (int) len);
      }
    }
    index[rows] = zipped.size();
    FullZipLayout layout = FullZipLayout.newBuilder()
        .setBitsDef(defs ? 1 : 0)
        .setBitsPerOffset(offsetBytes * 8)
        .setNumItems(rows)
        .setNumVisibleItems(rows)
        .setValueCompression(encoding())
        .addLayers(defs ? RepDefLayer.REPDEF_NULLABLE_ITEM : RepDefLayer.REPDEF_ALL_VALID_ITEM)
        .build();
    return new EncodedPage(PageLayout.newBuilder().setFullZipLayout(layout).build(),
        List.of(zipped.toArray(), RepetitionIndex.bytepack(index)), rows);
  }
}
