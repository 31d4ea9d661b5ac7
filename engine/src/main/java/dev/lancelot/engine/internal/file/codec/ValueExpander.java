package dev.lancelot.engine.internal.file.codec;

/**
 * Decodes one stored value at a time, from its bytes alone, into a caller-owned array: lets a
 * reader decode straight out of page bytes, with no intermediate copy of the stored values.
 */
public interface ValueExpander {
  /** Stored bytes copied verbatim. */
  ValueExpander VERBATIM =
      new ValueExpander() {
        @Override
        public long room(long len) {
          return len;
        }

        @Override
        public int expand(byte[] in, int ip, int ie, byte[] out, int op) {
          System.arraycopy(in, ip, out, op, ie - ip);
          return op + ie - ip;
        }
      };

  /**
   * Decodes values {@code from, from + 1, ...} before {@code to} (value {@code i} is stored in
   * {@code in[starts[i], ends[i])}) into {@code out} from position 0, as long as {@link #room} for
   * the next one is left, writing the end of value {@code i} to {@code offsets[i - from + 1]}.
   * Returns the first value not decoded ({@code to} when all are; {@code from} when even the first
   * needs a larger array).
   */
  default int expandRun(
      byte[] in, int[] starts, int[] ends, int from, int to, byte[] out, int[] offsets) {
    int op = 0;
    for (int i = from; i < to; i++) {
      if (op + room(ends[i] - starts[i]) > out.length) {
        return i;
      }
      op = expand(in, starts[i], ends[i], out, op);
      offsets[i - from + 1] = op;
    }
    return to;
  }

  /** Output room {@link #expand} needs for a stored value of {@code len} bytes. */
  long room(long len);

  /**
   * Decodes the stored value {@code in[ip, ie)} into {@code out} from {@code op}, which has {@link
   * #room} bytes free (bytes past the returned end may be overwritten); returns the end of the
   * decoded bytes.
   */
  int expand(byte[] in, int ip, int ie, byte[] out, int op);
}
