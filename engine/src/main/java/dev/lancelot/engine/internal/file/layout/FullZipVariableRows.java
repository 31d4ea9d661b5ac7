package dev.lancelot.engine.internal.file.layout;

import dev.lancelot.engine.internal.file.arrow.ColumnSink;
import dev.lancelot.engine.internal.file.codec.DecodeException;
import dev.lancelot.engine.internal.file.codec.VarValues;
import java.nio.ByteBuffer;

/**
 * Variable-width rows of a full-zip page ({@link FullZipPageReader}): plain and FSST values are
 * decoded one by one straight from the page bytes into an array reused by every batch of the range;
 * others (zstd, ...) are unzipped into offsets and bytes first, then decoded.
 */
final class FullZipVariableRows implements RowSource {
  private final FullZipPageReader zip;
  private final ByteBuffer buf;
  private final int rows;
  private int next;
  private int pos;
  private byte[] in;
  private int inBase;
  private byte[] out;
  private int[] offsets;
  private int[] starts;
  private int[] ends;

  /** Stored and decoded bytes of earlier batches, for estimating the decoded size of the next. */
  private long storedSeen;

  private long decodedSeen;

  FullZipVariableRows(FullZipPageReader zip, ByteBuffer buf, int rows) {
    this.zip = zip;
    this.buf = buf;
    this.rows = rows;
  }

  @Override
  public int remaining() {
    return rows - next;
  }

  @Override
  public void emit(int n, ColumnSink sink) {
    if (n > remaining()) {
      throw new IllegalArgumentException("Asked for " + n + " rows, " + remaining() + " remain");
    }
    zip.checkNesting(sink);
    if (zip.expander != null) {
      emitExpanded(n, sink);
      next += n;
      return;
    }
    short[] defs = zip.controlBytes == 0 ? null : new short[n];
    int[] offsets = new int[n + 1];
    byte[] data = new byte[Math.max(16, Math.min(buf.limit() - pos, 1 << 20))];
    int size = 0;
    for (int i = 0; i < n; i++) {
      int def = 0;
      if (zip.controlBytes > 0) {
        def = zip.readControl(buf, pos) & zip.defMask;
        defs[i] = (short) def;
        pos += zip.controlBytes;
      }
      if (def == 0) {
        long len = zip.readLength(buf, pos);
        pos += zip.lengthBytes;
        if (len < 0 || pos + len > buf.limit()) {
          throw DecodeException.corrupt(
              "full-zip value of " + len + " bytes runs past its page range");
        }
        if (size + len > Integer.MAX_VALUE - 16) {
          throw DecodeException.unsupported(
              "more than 2 GiB of values in one batch; use a smaller batch size");
        }
        if (size + len > data.length) {
          data =
              java.util.Arrays.copyOf(
                  data,
                  (int) Math.max(size + len, Math.min(2L * data.length, Integer.MAX_VALUE - 16)));
        }
        buf.get(pos, data, size, (int) len);
        size += (int) len;
        pos += (int) len;
      }
      offsets[i + 1] = size;
    }
    VarValues stored = VarValues.wrap(data, size, offsets, n);
    if (sink.nested()) {
      if (defs != null) {
        zip.repdef.toCanonical(defs, 0, n);
      }
      sink.appendLevels(zip.repdef.canonical(), null, defs, 0, n);
    }
    sink.append(zip.variable.decode(stored), 0, n, defs, 0);
    next += n;
  }

  /**
   * First pass: control words and value extents; second pass: values decoded into a small reused
   * array, handed to the sink every {@link FullZipPageReader#CHUNK} bytes or so (so the copy into
   * the vector reads from cache).
   */
  private void emitExpanded(int n, ColumnSink sink) {
    if (in == null) {
      if (buf.hasArray()) {
        in = buf.array();
        inBase = buf.arrayOffset();
      } else {
        in = new byte[buf.limit()];
        buf.get(0, in);
        inBase = 0;
      }
    }
    if (starts == null || starts.length < n + 1) {
      starts = new int[n + 1];
      ends = new int[n + 1];
    }
    int[] st = starts;
    int[] en = ends;
    int end = buf.limit();
    short[] defs = zip.controlBytes == 0 ? null : new short[n];
    int p = pos;
    long storedBytes = 0;
    for (int i = 0; i < n; i++) {
      int def = 0;
      if (zip.controlBytes > 0) {
        def = zip.readControl(buf, p) & zip.defMask;
        defs[i] = (short) def;
        p += zip.controlBytes;
      }
      st[i] = inBase + p;
      if (def == 0) {
        long len = zip.readLength(buf, p);
        p += zip.lengthBytes;
        if (len < 0 || p + len > end) {
          throw DecodeException.corrupt(
              "full-zip value of " + len + " bytes runs past its page range");
        }
        st[i] = inBase + p;
        p += (int) len;
        storedBytes += len;
      }
      en[i] = inBase + p;
    }
    pos = p;
    if (sink.nested()) {
      if (defs != null) {
        zip.repdef.toCanonical(defs, 0, n);
      }
      sink.appendLevels(zip.repdef.canonical(), null, defs, 0, n);
    }
    if (out == null) {
      out = new byte[FullZipPageReader.CHUNK];
      offsets = new int[n + 1];
    } else if (offsets.length < n + 1) {
      offsets = new int[n + 1];
    }
    byte[] o = out;
    int[] off = offsets;
    boolean reserved = false;
    int from = 0;
    while (from < n) {
      int to = zip.expander.expandRun(in, st, en, from, n, o, off);
      if (to == from) {
        // one value needs more room than the array has
        long room = zip.expander.room(en[from] - st[from]);
        if (room > Integer.MAX_VALUE - 16) {
          throw DecodeException.unsupported("a value of more than 2 GiB");
        }
        o = new byte[(int) room];
        out = o;
        continue;
      }
      int op = off[to - from];
      if (!reserved) {
        // stored bytes of the rows decoded so far, without their control words and lengths
        long s = 0;
        for (int i = from; i < to; i++) {
          s += en[i] - st[i];
        }
        reserve(sink, storedBytes, s, op);
        reserved = true;
      }
      sink.append(VarValues.wrap(o, op, off, to - from), 0, to - from, defs, from);
      decodedSeen += op;
      from = to;
    }
    storedSeen += storedBytes;
  }

  /**
   * Tells the sink how many bytes this batch will decode to: those decoded so far plus the rest of
   * its stored bytes times the ratio seen so far.
   */
  private void reserve(ColumnSink sink, long storedBytes, long stored, int decoded) {
    double ratio =
        storedSeen + stored == 0 ? 1 : (double) (decodedSeen + decoded) / (storedSeen + stored);
    sink.reserveBytes(decoded + (long) ((storedBytes - stored) * ratio * 1.05) + 64);
  }
}
