package dev.lancelot.engine.internal.format;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.lancelot.engine.internal.format.proto.RowIdProtos;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The stable row ids of one fragment's physical rows, in offset order (deleted rows included): the
 * decoded {@code RowIdSequence} of a dataset with stable row ids (F7). Segments that are a plain
 * range stay a range; every other encoding is expanded to its values. Immutable and thread-safe.
 */
public final class RowIdSequence {
  /** One decoded segment: the range {@code [start, start + length)} or explicit values. */
  public static final class Segment {
    private final long start;
    private final int length;
    private final long[] values;
    private final boolean sorted;
    private long[] ascending;
    private int[] order;

    private Segment(long start, int length) {
      this.start = start;
      this.length = length;
      this.values = null;
      this.sorted = true;
    }

    private Segment(long[] values) {
      this.start = 0;
      this.length = values.length;
      this.values = values;
      boolean s = true;
      for (int i = 1; i < values.length && s; i++) {
        s = Long.compareUnsigned(values[i - 1], values[i]) < 0;
      }
      this.sorted = s;
    }

    public int length() {
      return length;
    }

    /** The id at position {@code i} of the segment. */
    public long get(int i) {
      return values == null ? start + i : values[i];
    }

    /** Whether the segment is the plain range {@code [first(), first() + length())}. */
    public boolean isRange() {
      return values == null;
    }

    /** Smallest id (unsigned); undefined for an empty segment. */
    public long min() {
      if (values == null) {
        return start;
      }
      return sorted ? values[0] : ascending()[0];
    }

    /** Largest id (unsigned); undefined for an empty segment. */
    public long max() {
      if (values == null) {
        return start + length - 1;
      }
      return sorted ? values[length - 1] : ascending()[length - 1];
    }

    /** Position of {@code id} in the segment, or -1. */
    public int position(long id) {
      if (values == null) {
        long d = id - start;
        return d >= 0 && d < length ? (int) d : -1;
      }
      if (sorted) {
        return search(values, id);
      }
      long[] asc = ascending();
      int i = search(asc, id);
      return i < 0 ? -1 : order[i];
    }

    private synchronized long[] ascending() {
      if (ascending == null) {
        Integer[] idx = new Integer[length];
        for (int i = 0; i < length; i++) {
          idx[i] = i;
        }
        Arrays.sort(idx, (a, b) -> Long.compareUnsigned(values[a], values[b]));
        long[] asc = new long[length];
        int[] ord = new int[length];
        for (int i = 0; i < length; i++) {
          asc[i] = values[idx[i]];
          ord[i] = idx[i];
        }
        order = ord;
        ascending = asc;
      }
      return ascending;
    }

    private static int search(long[] asc, long id) {
      int lo = 0;
      int hi = asc.length - 1;
      while (lo <= hi) {
        int mid = (lo + hi) >>> 1;
        int c = Long.compareUnsigned(asc[mid], id);
        if (c < 0) {
          lo = mid + 1;
        } else if (c > 0) {
          hi = mid - 1;
        } else {
          return mid;
        }
      }
      return -1;
    }
  }

  private final List<Segment> segments;

  /** Position of the first row of each segment, plus the total at the end. */
  private final long[] starts;

  private RowIdSequence(List<Segment> segments) {
    this.segments = List.copyOf(segments);
    this.starts = new long[segments.size() + 1];
    for (int i = 0; i < segments.size(); i++) {
      starts[i + 1] = starts[i] + segments.get(i).length();
    }
  }

  /** The ids {@code [first, first + count)}. */
  public static RowIdSequence range(long first, long count) {
    if (count == 0) {
      return new RowIdSequence(List.of());
    }
    return new RowIdSequence(List.of(new Segment(first, Math.toIntExact(count))));
  }

  /** The given ids, in order. */
  public static RowIdSequence of(long[] ids) {
    return ids.length == 0
        ? new RowIdSequence(List.of())
        : new RowIdSequence(List.of(new Segment(ids.clone())));
  }

  /** Number of rows (ids) in the sequence. */
  public long length() {
    return starts[starts.length - 1];
  }

  public List<Segment> segments() {
    return segments;
  }

  /** The id of the row at {@code offset}. */
  public long get(long offset) {
    if (offset < 0 || offset >= length()) {
      throw new IndexOutOfBoundsException(
          "row " + offset + " outside a row id sequence of " + length() + " rows");
    }
    int s = Arrays.binarySearch(starts, offset);
    s = s >= 0 ? s : -s - 2;
    while (segments.get(s).length() == 0) {
      s++;
    }
    return segments.get(s).get((int) (offset - starts[s]));
  }

  /** Every id, in row order. */
  public long[] toArray() {
    long[] out = new long[Math.toIntExact(length())];
    int k = 0;
    for (Segment seg : segments) {
      for (int i = 0; i < seg.length(); i++) {
        out[k++] = seg.get(i);
      }
    }
    return out;
  }

  /** The ids of the rows at {@code from} up to (excluding) {@code to}. */
  public RowIdSequence slice(long from, long to) {
    long[] all = toArray();
    long[] part = Arrays.copyOfRange(all, Math.toIntExact(from), Math.toIntExact(to));
    return encodeable(part);
  }

  /** This sequence followed by {@code other}. */
  public RowIdSequence concat(RowIdSequence other) {
    List<Segment> all = new ArrayList<>(segments);
    all.addAll(other.segments);
    return new RowIdSequence(all);
  }

  /** The sequence listing {@code ids} in order: one range when they are contiguous. */
  public static RowIdSequence ofIds(long[] ids) {
    return encodeable(ids);
  }

  private static RowIdSequence encodeable(long[] ids) {
    if (ids.length == 0) {
      return new RowIdSequence(List.of());
    }
    boolean contiguous = true;
    for (int i = 1; i < ids.length && contiguous; i++) {
      contiguous = ids[i] == ids[i - 1] + 1;
    }
    return contiguous ? range(ids[0], ids.length) : of(ids);
  }

  // ------------------------------------------------------------------ decoding

  /**
   * Decodes a serialized {@code RowIdSequence}; {@code where} names its location for errors.
   *
   * @throws CorruptFileException when the bytes are not a valid sequence
   */
  public static RowIdSequence parse(byte[] bytes, String where) {
    RowIdProtos.RowIdSequence pb;
    try {
      pb = RowIdProtos.RowIdSequence.parseFrom(bytes);
    } catch (InvalidProtocolBufferException e) {
      throw new CorruptFileException(where, "the row id sequence is not valid protobuf", e);
    }
    List<Segment> out = new ArrayList<>(pb.getSegmentsCount());
    for (RowIdProtos.U64Segment s : pb.getSegmentsList()) {
      out.add(segment(s, where));
    }
    return new RowIdSequence(out);
  }

  private static Segment segment(RowIdProtos.U64Segment s, String where) {
    switch (s.getSegmentCase()) {
      case RANGE:
        return new Segment(
            s.getRange().getStart(), span(s.getRange().getStart(), s.getRange().getEnd(), where));
      case RANGE_WITH_HOLES:
        {
          var r = s.getRangeWithHoles();
          int n = span(r.getStart(), r.getEnd(), where);
          long[] holes = array(r.getHoles(), where);
          long[] values = new long[n];
          int k = 0;
          int h = 0;
          for (int i = 0; i < n; i++) {
            long v = r.getStart() + i;
            while (h < holes.length && Long.compareUnsigned(holes[h], v) < 0) {
              h++;
            }
            if (h < holes.length && holes[h] == v) {
              continue;
            }
            values[k++] = v;
          }
          return new Segment(Arrays.copyOf(values, k));
        }
      case RANGE_WITH_BITMAP:
        {
          var r = s.getRangeWithBitmap();
          int n = span(r.getStart(), r.getEnd(), where);
          byte[] bits = r.getBitmap().toByteArray();
          if ((long) bits.length * 8 < n) {
            throw new CorruptFileException(
                where,
                "a row id bitmap of "
                    + bits.length
                    + " bytes cannot cover a range of "
                    + n
                    + " ids");
          }
          long[] values = new long[n];
          int k = 0;
          for (int i = 0; i < n; i++) {
            if ((bits[i >>> 3] & (1 << (i & 7))) != 0) {
              values[k++] = r.getStart() + i;
            }
          }
          return new Segment(Arrays.copyOf(values, k));
        }
      case SORTED_ARRAY:
        return new Segment(array(s.getSortedArray(), where));
      case ARRAY:
        return new Segment(array(s.getArray(), where));
      default:
        throw new CorruptFileException(where, "a row id segment has no encoding");
    }
  }

  private static int span(long start, long end, String where) {
    long n = end - start;
    if (Long.compareUnsigned(end, start) < 0 || n > Integer.MAX_VALUE) {
      throw new CorruptFileException(
          where,
          "the row id range ["
              + Long.toUnsignedString(start)
              + ", "
              + Long.toUnsignedString(end)
              + ") is invalid");
    }
    return (int) n;
  }

  private static long[] array(RowIdProtos.EncodedU64Array a, String where) {
    switch (a.getArrayCase()) {
      case U16_ARRAY:
        {
          ByteBuffer b = little(a.getU16Array().getOffsets(), 2, where);
          long[] out = new long[b.remaining() / 2];
          for (int i = 0; i < out.length; i++) {
            out[i] = a.getU16Array().getBase() + Short.toUnsignedLong(b.getShort());
          }
          return out;
        }
      case U32_ARRAY:
        {
          ByteBuffer b = little(a.getU32Array().getOffsets(), 4, where);
          long[] out = new long[b.remaining() / 4];
          for (int i = 0; i < out.length; i++) {
            out[i] = a.getU32Array().getBase() + Integer.toUnsignedLong(b.getInt());
          }
          return out;
        }
      case U64_ARRAY:
        {
          ByteBuffer b = little(a.getU64Array().getValues(), 8, where);
          long[] out = new long[b.remaining() / 8];
          b.asLongBuffer().get(out);
          return out;
        }
      default:
        throw new CorruptFileException(where, "a row id array has no encoding");
    }
  }

  private static ByteBuffer little(ByteString bytes, int width, String where) {
    if (bytes.size() % width != 0) {
      throw new CorruptFileException(
          where,
          "a row id array of "
              + width
              + "-byte values has "
              + bytes.size()
              + " bytes, not a multiple of "
              + width);
    }
    return bytes.asReadOnlyByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
  }

  // ------------------------------------------------------------------ encoding

  /** The serialized {@code RowIdSequence}: ranges stay ranges, other segments become arrays. */
  public byte[] serialize() {
    RowIdProtos.RowIdSequence.Builder b = RowIdProtos.RowIdSequence.newBuilder();
    for (Segment s : segments) {
      if (s.length() == 0) {
        continue;
      }
      if (s.isRange()) {
        b.addSegments(
            RowIdProtos.U64Segment.newBuilder()
                .setRange(
                    RowIdProtos.U64Segment.Range.newBuilder()
                        .setStart(s.start)
                        .setEnd(s.start + s.length)));
      } else {
        b.addSegments(
            s.sorted
                ? sortedSegment(s)
                : RowIdProtos.U64Segment.newBuilder().setArray(encodeArray(s.values)).build());
      }
    }
    return b.build().toByteArray();
  }

  /**
   * The smallest of three encodings of an ascending segment (as Lance picks among them): the
   * values, the range they span with its holes, or the range with a bitmap of the values present.
   */
  private static RowIdProtos.U64Segment sortedSegment(Segment s) {
    long min = s.min();
    long end = s.max() + 1;
    long span = end - min;
    if (s.max() == -1L || Long.compareUnsigned(span, Integer.MAX_VALUE) > 0) {
      // the unsigned maximum has no exclusive end; a range this wide is no smaller
      return RowIdProtos.U64Segment.newBuilder().setSortedArray(encodeArray(s.values)).build();
    }
    long holeCount = span - s.length;
    if (holeCount == 0) {
      return RowIdProtos.U64Segment.newBuilder()
          .setRange(RowIdProtos.U64Segment.Range.newBuilder().setStart(min).setEnd(end))
          .build();
    }
    long arrayBytes = (long) s.length * width(s.max() - min);
    long holesBytes = holeCount * width(span);
    long bitmapBytes = (span + 7) / 8;
    if (holesBytes < arrayBytes && holesBytes <= bitmapBytes) {
      long[] holes = new long[(int) holeCount];
      int h = 0;
      int k = 0;
      for (long v = min; v < end; v++) {
        if (k < s.length && s.values[k] == v) {
          k++;
        } else {
          holes[h++] = v;
        }
      }
      return RowIdProtos.U64Segment.newBuilder()
          .setRangeWithHoles(
              RowIdProtos.U64Segment.RangeWithHoles.newBuilder()
                  .setStart(min)
                  .setEnd(end)
                  .setHoles(encodeArray(holes)))
          .build();
    }
    if (bitmapBytes < arrayBytes) {
      byte[] bits = new byte[(int) bitmapBytes];
      for (long v : s.values) {
        int i = (int) (v - min);
        bits[i >>> 3] |= (byte) (1 << (i & 7));
      }
      return RowIdProtos.U64Segment.newBuilder()
          .setRangeWithBitmap(
              RowIdProtos.U64Segment.RangeWithBitmap.newBuilder()
                  .setStart(min)
                  .setEnd(end)
                  .setBitmap(ByteString.copyFrom(bits)))
          .build();
    }
    return RowIdProtos.U64Segment.newBuilder().setSortedArray(encodeArray(s.values)).build();
  }

  /** Bytes per value of an array whose values span {@code span} above its least value. */
  private static int width(long span) {
    return Long.compareUnsigned(span, 0xFFFFL) <= 0
        ? 2
        : Long.compareUnsigned(span, 0xFFFFFFFFL) <= 0 ? 4 : 8;
  }

  private static RowIdProtos.EncodedU64Array encodeArray(long[] values) {
    long min = values[0];
    long max = values[0];
    for (long v : values) {
      min = Long.compareUnsigned(v, min) < 0 ? v : min;
      max = Long.compareUnsigned(v, max) > 0 ? v : max;
    }
    long span = max - min;
    if (Long.compareUnsigned(span, 0xFFFFL) <= 0) {
      ByteBuffer buf = ByteBuffer.allocate(values.length * 2).order(ByteOrder.LITTLE_ENDIAN);
      for (long v : values) {
        buf.putShort((short) (v - min));
      }
      return RowIdProtos.EncodedU64Array.newBuilder()
          .setU16Array(
              RowIdProtos.EncodedU64Array.U16Array.newBuilder()
                  .setBase(min)
                  .setOffsets(ByteString.copyFrom(buf.array())))
          .build();
    }
    if (Long.compareUnsigned(span, 0xFFFFFFFFL) <= 0) {
      ByteBuffer buf = ByteBuffer.allocate(values.length * 4).order(ByteOrder.LITTLE_ENDIAN);
      for (long v : values) {
        buf.putInt((int) (v - min));
      }
      return RowIdProtos.EncodedU64Array.newBuilder()
          .setU32Array(
              RowIdProtos.EncodedU64Array.U32Array.newBuilder()
                  .setBase(min)
                  .setOffsets(ByteString.copyFrom(buf.array())))
          .build();
    }
    ByteBuffer buf = ByteBuffer.allocate(values.length * 8).order(ByteOrder.LITTLE_ENDIAN);
    for (long v : values) {
      buf.putLong(v);
    }
    return RowIdProtos.EncodedU64Array.newBuilder()
        .setU64Array(
            RowIdProtos.EncodedU64Array.U64Array.newBuilder()
                .setValues(ByteString.copyFrom(buf.array())))
        .build();
  }
}
