package dev.lancelot.engine.internal.file.layout;

import dev.lancelot.engine.internal.file.arrow.ColumnSink;
import dev.lancelot.engine.internal.file.codec.DecodeException;
import dev.lancelot.engine.internal.file.codec.Values;
import dev.lancelot.engine.internal.file.codec.VarValues;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Rows of a full-zip page of a list column ({@link FullZipPageReader}): level entries are parsed
 * from their control words until the requested rows are complete (the next max-repetition entry, or
 * the end of the range's bytes).
 */
final class FullZipListRows implements RowSource {
  private final FullZipPageReader zip;
  private final ByteBuffer buf;
  private final int rows;
  private int next;
  private int pos;

  FullZipListRows(FullZipPageReader zip, ByteBuffer buf, int rows) {
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
    if (n == 0) {
      return;
    }
    int maxRep = zip.repdef.maxRep();
    int maxVisible = zip.repdef.maxVisibleDef();
    short[] rep = new short[Math.max(16, n)];
    short[] def = new short[rep.length];
    int count = 0;
    int items = 0;
    int[] offsets = zip.variable != null ? new int[rep.length + 1] : null;
    byte[] data =
        new byte
            [Math.max(
                64, zip.fixed != null ? n * zip.valueBytes : Math.min(buf.limit() - pos, 1 << 20))];
    int size = 0;
    int done = 0;
    boolean begun = false;
    while (pos < buf.limit()) {
      int word = zip.readControl(buf, pos);
      int r = (word >>> zip.bitsDef) & zip.repMask;
      int d = word & zip.defMask;
      if (r == maxRep) {
        if (begun && ++done == n) {
          break;
        }
        begun = true;
      }
      pos += zip.controlBytes;
      if (count == rep.length) {
        rep = java.util.Arrays.copyOf(rep, 2 * count);
        def = java.util.Arrays.copyOf(def, 2 * count);
      }
      rep[count] = (short) r;
      def[count] = (short) d;
      count++;
      if (d > maxVisible) {
        continue;
      }
      if (offsets != null && items + 1 >= offsets.length) {
        offsets = java.util.Arrays.copyOf(offsets, 2 * offsets.length);
      }
      long len = zip.valueBytes;
      if (zip.fixed == null) {
        len = 0;
        if (d == 0) {
          len = zip.readLength(buf, pos);
          pos += zip.lengthBytes;
        }
      }
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
      items++;
      if (offsets != null) {
        offsets[items] = size;
      }
    }
    if (pos >= buf.limit() && begun) {
      done++;
    }
    if (done != n) {
      throw DecodeException.corrupt("full-zip range holds " + done + " rows, " + n + " expected");
    }
    zip.repdef.toCanonical(def, 0, count);
    short[] itemDefs = new short[items];
    int k = 0;
    for (int i = 0; i < count; i++) {
      if (zip.repdef.canonical().visible(def[i])) {
        itemDefs[k++] = def[i];
      }
    }
    Values v =
        zip.fixed != null
            ? zip.fixed.decode(ByteBuffer.wrap(data).order(ByteOrder.LITTLE_ENDIAN), 0, items)
            : zip.variable.decode(VarValues.wrap(data, size, offsets, items));
    sink.appendLevels(zip.repdef.canonical(), rep, def, 0, count);
    if (items > 0) {
      sink.append(v, 0, items, itemDefs, 0);
    }
    next += n;
  }
}
