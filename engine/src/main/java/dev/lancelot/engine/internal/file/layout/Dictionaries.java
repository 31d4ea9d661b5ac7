package dev.lancelot.engine.internal.file.layout;

import dev.lancelot.engine.internal.file.codec.DecodeException;
import dev.lancelot.engine.internal.file.codec.FixedValues;
import dev.lancelot.engine.internal.file.codec.Values;
import dev.lancelot.engine.internal.file.codec.VarValues;

/** Materialises dictionary-encoded values: indices (any integer width) into a dictionary. */
public final class Dictionaries {
  private Dictionaries() {}

  /**
   * Materialises the values at {@code indices}. Rows whose definition level is non-zero are null:
   * their index is not looked up (writers may store anything there) and they get an empty (or zero)
   * value.
   */
  public static Values gather(Values dictionary, Values indexValues, short[] defs) {
    if (!(indexValues instanceof FixedValues indices) || indices.bitsPerValue() == 1) {
      throw DecodeException.corrupt("dictionary indices must be integers");
    }
    int n = indices.count();
    int size = dictionary.count();
    if (dictionary instanceof VarValues dict) {
      long total = 0;
      int[] idx = new int[n];
      for (int i = 0; i < n; i++) {
        if (defs != null && defs[i] != 0) {
          idx[i] = -1;
          continue;
        }
        long k = indices.getUnsigned(i);
        if (k < 0 || k >= size) {
          throw DecodeException.corrupt(
              "dictionary index " + k + " out of range for " + size + " entries");
        }
        idx[i] = (int) k;
        total += dict.offset(idx[i] + 1) - dict.offset(idx[i]);
      }
      if (total > Integer.MAX_VALUE - 16) {
        throw DecodeException.unsupported("more than 2 GiB of dictionary values in one chunk");
      }
      byte[] data = new byte[(int) total];
      int[] offsets = new int[n + 1];
      int pos = 0;
      for (int i = 0; i < n; i++) {
        if (idx[i] < 0) {
          offsets[i + 1] = pos;
          continue;
        }
        int from = (int) dict.offset(idx[i]);
        int len = (int) (dict.offset(idx[i] + 1) - from);
        dict.data().get(from, data, pos, len);
        pos += len;
        offsets[i + 1] = pos;
      }
      return VarValues.wrap(data, pos, offsets, n);
    }
    if (dictionary instanceof FixedValues dict && dict.bitsPerValue() % 8 == 0) {
      int w = dict.bytesPerValue();
      byte[] out = new byte[n * w];
      for (int i = 0; i < n; i++) {
        if (defs != null && defs[i] != 0) {
          continue;
        }
        long k = indices.getUnsigned(i);
        if (k < 0 || k >= size) {
          throw DecodeException.corrupt(
              "dictionary index " + k + " out of range for " + size + " entries");
        }
        dict.data().get(dict.offset() + (int) k * w, out, i * w, w);
      }
      return FixedValues.wrap(out, dict.bitsPerValue(), n);
    }
    throw DecodeException.unsupported("dictionaries of " + dictionary.getClass().getSimpleName());
  }
}
