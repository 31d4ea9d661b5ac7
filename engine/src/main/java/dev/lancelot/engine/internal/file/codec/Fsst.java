package dev.lancelot.engine.internal.file.codec;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Decoder for FSST-compressed strings (Fast Static Symbol Table).
 *
 * <p>Symbol table layout (stored in the encoding description, 2,312 bytes of which only the first
 * {@code 8 + 9n} are meaningful):
 *
 * <pre>
 *   [u64] header: bits 0-7 number of symbols n, bits 8-15 terminator, bits 16-23 suffix limit,
 *         bit 24 "compression on", bits 32-63 magic 0x46535354 ("FSST")
 *   [u64 x n] symbols, little endian, the symbol's bytes first
 *   [u8 x n]  symbol lengths (1..8)
 * </pre>
 *
 * Compressed value bytes are codes: code {@code c < 255} expands to symbol {@code c}; code 255 is
 * an escape and the next byte is copied literally. With compression off the values are stored
 * verbatim.
 */
public final class Fsst implements ValueExpander {
  private static final long MAGIC = 0x46535354L;
  private static final int ESCAPE = 255;
  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  private final long[] symbols = new long[256];
  private final int[] lengths = new int[256];
  private final boolean enabled;

  /**
   * Symbol of every code (zero past the table) and its length (1 to 8; 0 for the escape code and
   * codes past the table, so one test on the length sends both to the rare path).
   */
  private Fsst(long[] symbols, byte[] lengths, boolean enabled) {
    System.arraycopy(symbols, 0, this.symbols, 0, Math.min(symbols.length, ESCAPE));
    for (int i = 0; i < lengths.length && i < ESCAPE; i++) {
      this.lengths[i] = lengths[i];
    }
    this.enabled = enabled;
  }

  /** Parses a symbol table. */
  public static Fsst fromSymbolTable(ByteBuffer table) {
    ByteBuffer t = table.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    if (t.remaining() < 8) {
      throw DecodeException.corrupt(
          "FSST symbol table of " + t.remaining() + " bytes has no header");
    }
    int base = t.position();
    long header = t.getLong(base);
    if ((header >>> 32) != MAGIC) {
      throw DecodeException.corrupt("FSST symbol table does not start with the FSST magic");
    }
    int n = (int) (header & 0xFF);
    boolean enabled = (header & (1L << 24)) != 0;
    if (t.remaining() < 8 + 9 * n) {
      throw DecodeException.corrupt(
          "FSST symbol table of " + t.remaining() + " bytes is too short for " + n + " symbols");
    }
    long[] symbols = new long[n];
    byte[] lens = new byte[n];
    for (int i = 0; i < n; i++) {
      symbols[i] = t.getLong(base + 8 + 8 * i);
    }
    for (int i = 0; i < n; i++) {
      lens[i] = t.get(base + 8 + 8 * n + i);
      if (lens[i] < 1 || lens[i] > 8) {
        throw DecodeException.corrupt("FSST symbol " + i + " has length " + lens[i]);
      }
    }
    return new Fsst(symbols, lens, enabled);
  }

  /** Whether values are compressed (otherwise they are stored verbatim). */
  public boolean enabled() {
    return enabled;
  }

  /**
   * Bytes of output room {@link #expand} needs for {@code len} compressed bytes: every code expands
   * to at most 8 bytes and is written as 8.
   */
  @Override
  public long room(long len) {
    return enabled ? 8 * len + 8 : len;
  }

  /**
   * Decompresses {@code in[ip, ie)} into {@code out} from {@code op}, which must have {@link #room
   * room(ie - ip)} bytes from {@code op} (bytes past the returned end may be overwritten). Returns
   * the end of the decompressed bytes. Each symbol is written as one 8-byte store; the output
   * position then advances by the symbol's length.
   */
  @Override
  public int expand(byte[] in, int ip, int ie, byte[] out, int op) {
    return enabled
        ? decodeOne(in, ip, ie, out, op)
        : ValueExpander.VERBATIM.expand(in, ip, ie, out, op);
  }

  @Override
  public int expandRun(
      byte[] in, int[] starts, int[] ends, int from, int to, byte[] out, int[] offsets) {
    if (!enabled) {
      return ValueExpander.VERBATIM.expandRun(in, starts, ends, from, to, out, offsets);
    }
    int op = 0;
    for (int i = from; i < to; i++) {
      int ip = starts[i];
      int ie = ends[i];
      if (op + 8L * (ie - ip) + 8 > out.length) {
        return i;
      }
      op = decodeOne(in, ip, ie, out, op);
      offsets[i - from + 1] = op;
    }
    return to;
  }

  private int decodeOne(byte[] in, int ip, int ie, byte[] out, int op) {
    checkRange(in, ip, ie, out, op);
    return RawBytes.AVAILABLE ? decodeRaw(in, ip, ie, out, op) : decodeChecked(in, ip, ie, out, op);
  }

  /** {@link #expand} with array bounds checked on every access (the fallback; for tests). */
  int expandChecked(byte[] in, int ip, int ie, byte[] out, int op) {
    checkRange(in, ip, ie, out, op);
    return decodeChecked(in, ip, ie, out, op);
  }

  private static void checkRange(byte[] in, int ip, int ie, byte[] out, int op) {
    if (ip < 0 || ie > in.length || ip > ie || op < 0 || op + 8L * (ie - ip) > out.length) {
      throw new IndexOutOfBoundsException(
          "FSST value ["
              + ip
              + ", "
              + ie
              + ") of a "
              + in.length
              + "-byte array into "
              + (out.length - op)
              + " bytes of room");
    }
  }

  /**
   * The kernel without array bounds checks. In range because {@code [ip, ie)} lies in {@code in},
   * codes index tables of 256 entries, each step consumes at least one input byte and writes at
   * most 8 bytes at an output position that has advanced by at most 8 bytes per input byte consumed
   * (escapes: 1 byte for 2), and {@code out} has 8 bytes of room per input byte from {@code op}
   * (checked by the caller).
   */
  private int decodeRaw(byte[] in, int ip, int ie, byte[] out, int op) {
    long[] sym = symbols;
    int[] len = lengths;
    long p = RawBytes.BYTES + ip;
    long e = RawBytes.BYTES + ie;
    long o = RawBytes.BYTES + op;
    while (p < e) {
      int c = RawBytes.getByte(in, p) & 0xFF;
      int l = RawBytes.getInt(len, RawBytes.INTS + 4L * c);
      if (l != 0) {
        RawBytes.putLong(out, o, RawBytes.getLong(sym, RawBytes.LONGS + 8L * c));
        o += l;
        p++;
      } else {
        if (c != ESCAPE) {
          throw noSymbol(c);
        }
        if (p + 1 >= e) {
          throw DecodeException.corrupt("FSST value ends with an escape code");
        }
        RawBytes.putByte(out, o, RawBytes.getByte(in, p + 1));
        o++;
        p += 2;
      }
    }
    return (int) (o - RawBytes.BYTES);
  }

  private int decodeChecked(byte[] in, int ip, int ie, byte[] out, int op) {
    long[] sym = symbols;
    int[] len = lengths;
    while (ip < ie) {
      int c = in[ip] & 0xFF;
      int l = len[c];
      if (l != 0) {
        LONGS.set(out, op, sym[c]);
        op += l;
        ip++;
      } else {
        if (c != ESCAPE) {
          throw noSymbol(c);
        }
        if (ip + 1 >= ie) {
          throw DecodeException.corrupt("FSST value ends with an escape code");
        }
        out[op++] = in[ip + 1];
        ip += 2;
      }
    }
    return op;
  }

  private static DecodeException noSymbol(int code) {
    return DecodeException.corrupt("FSST code " + code + " refers to a symbol that does not exist");
  }

  /** Decompresses every value. */
  public VarValues decode(VarValues compressed) {
    if (!enabled) {
      return compressed;
    }
    int n = compressed.count();
    ByteBuffer src = compressed.data();
    long start = compressed.offset(0);
    long end = compressed.offset(n);
    if (start < 0 || end > src.limit() || start > end) {
      throw DecodeException.corrupt(
          "FSST values [" + start + ", " + end + ") lie outside a " + src.limit() + "-byte buffer");
    }
    byte[] in;
    int base;
    if (src.hasArray()) {
      in = src.array();
      base = src.arrayOffset();
    } else {
      in = new byte[(int) end];
      src.get((int) start, in, (int) start, (int) (end - start));
      base = 0;
    }
    byte[] out =
        new byte[(int) Math.min(Integer.MAX_VALUE - 16, Math.max(64, (end - start) * 4 + 64))];
    int[] offsets = new int[n + 1];
    int op = 0;
    long prev = start;
    for (int v = 0; v < n; v++) {
      long next = compressed.offset(v + 1);
      if (next < prev || next > end) {
        throw DecodeException.corrupt("FSST value offsets are not ascending");
      }
      long room = op + room(next - prev);
      if (room > out.length) {
        if (room > Integer.MAX_VALUE - 16) {
          throw DecodeException.unsupported("more than 2 GiB of decompressed values in one read");
        }
        out =
            java.util.Arrays.copyOf(
                out, (int) Math.min(Integer.MAX_VALUE - 16, Math.max(room, 2L * out.length)));
      }
      op = expand(in, base + (int) prev, base + (int) next, out, op);
      offsets[v + 1] = op;
      prev = next;
    }
    return VarValues.wrap(out, op, offsets, n);
  }
}
