package dev.lancelot.engine.file.codec;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Decoder for FSST-compressed strings (Fast Static Symbol Table).
 *
 * <p>Symbol table layout (stored in the encoding description, 2,312 bytes of which only the
 * first {@code 8 + 9n} are meaningful):
 * <pre>
 *   [u64] header: bits 0-7 number of symbols n, bits 8-15 terminator, bits 16-23 suffix limit,
 *         bit 24 "compression on", bits 32-63 magic 0x46535354 ("FSST")
 *   [u64 x n] symbols, little endian, the symbol's bytes first
 *   [u8 x n]  symbol lengths (1..8)
 * </pre>
 * Compressed value bytes are codes: code {@code c < 255} expands to symbol {@code c}; code 255
 * is an escape and the next byte is copied literally. With compression off the values are
 * stored verbatim.
 */
public final class Fsst {
  private static final long MAGIC = 0x46535354L;
  private static final int ESCAPE = 255;
  private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  private final long[] symbols = new long[256];
  private final byte[] lengths = new byte[256];
  private final boolean enabled;

  private Fsst(long[] symbols, byte[] lengths, boolean enabled) {
    System.arraycopy(symbols, 0, this.symbols, 0, symbols.length);
    System.arraycopy(lengths, 0, this.lengths, 0, lengths.length);
    this.enabled = enabled;
  }

  /** Parses a symbol table. */
  public static Fsst fromSymbolTable(ByteBuffer table) {
    ByteBuffer t = table.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    if (t.remaining() < 8) {
      throw DecodeException.corrupt("FSST symbol table of " + t.remaining() + " bytes has no header");
    }
    int base = t.position();
    long header = t.getLong(base);
    if ((header >>> 32) != MAGIC) {
      throw DecodeException.corrupt("FSST symbol table does not start with the FSST magic");
    }
    int n = (int) (header & 0xFF);
    boolean enabled = (header & (1L << 24)) != 0;
    if (t.remaining() < 8 + 9 * n) {
      throw DecodeException.corrupt("FSST symbol table of " + t.remaining() + " bytes is too short for " + n
          + " symbols");
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
      throw DecodeException.corrupt("FSST values [" + start + ", " + end + ") lie outside a " + src.limit()
          + "-byte buffer");
    }
    byte[] in = new byte[(int) (end - start)];
    src.get((int) start, in);
    byte[] out = new byte[Math.max(64, in.length * 3 + 16)];
    int[] offsets = new int[n + 1];
    int op = 0;
    int prevEnd = 0;
    for (int v = 0; v < n; v++) {
      int ip = prevEnd;
      int ie = (int) (compressed.offset(v + 1) - start);
      if (ie < ip || ie > in.length) {
        throw DecodeException.corrupt("FSST value offsets are not ascending");
      }
      while (ip < ie) {
        if (op + 8 > out.length) {
          out = java.util.Arrays.copyOf(out, out.length * 2 + 16);
        }
        int code = in[ip++] & 0xFF;
        if (code == ESCAPE) {
          if (ip >= ie) {
            throw DecodeException.corrupt("FSST value ends with an escape code");
          }
          out[op++] = in[ip++];
        } else {
          LONGS.set(out, op, symbols[code]);
          int len = lengths[code];
          if (len == 0) {
            throw DecodeException.corrupt("FSST code " + code + " refers to a symbol that does not exist");
          }
          op += len;
        }
      }
      prevEnd = ie;
      offsets[v + 1] = op;
    }
    return VarValues.wrap(out, op, offsets, n);
  }
}
