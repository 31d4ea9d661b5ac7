package dev.lancelot.engine.internal.file.codec;

import dev.lancelot.engine.internal.file.proto.Encodings21Protos.CompressiveEncoding;
import dev.lancelot.engine.internal.file.proto.Encodings21Protos.PackedStruct;
import dev.lancelot.engine.internal.file.proto.Encodings21Protos.VariablePackedStruct;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Decoders of packed structs: every member of a struct stored together, row by row, in the one
 * column of the struct. Byte layouts (little-endian):
 *
 * <pre>
 *   PackedStruct (mini-block chunk values, formats 2.1 and 2.2)
 *     values:  one value of sum(bits_per_value) bits per row, decoded with {@code values}
 *              (Lance writes Flat)
 *     a row:   [member 0: bits_per_value[0] / 8 bytes][member 1: bits_per_value[1] / 8 bytes]...
 *              every member byte-aligned (a 1-bit member has no bytes: refused)
 *   VariablePackedStruct (full-zip variable-width values, format 2.2)
 *     a row:   per member, in order:
 *                fixed (bits_per_value):     [bits_per_value / 8 bytes] one value as the
 *                                            member's encoding stores it (Flat, FixedSizeList)
 *                variable (bits_per_length): [length: bits_per_length / 8 bytes (4 or 8)]
 *                                            [length bytes] one value as the member's encoding
 *                                            stores it (Variable, Fsst, General)
 *              a row without bytes (a null struct) reads as zero / empty members
 * </pre>
 */
public final class PackedStructs {
  private PackedStructs() {}

  /** Decoder of PackedStruct mini-block chunks. */
  static MiniBlockDecoder miniBlock(CompressiveEncoding e) {
    PackedStruct p = e.getPackedStruct();
    int[] widths = new int[p.getBitsPerValueCount()];
    long rowBits = 0;
    for (int k = 0; k < widths.length; k++) {
      long bits = p.getBitsPerValue(k);
      if (bits <= 0 || bits > (1L << 24)) {
        throw DecodeException.corrupt(Codecs.describe(e) + " with a member of " + bits + " bits");
      }
      if (bits % 8 != 0) {
        throw DecodeException.unsupported(
            "mini-block encoding "
                + Codecs.describe(e)
                + " with a member of "
                + bits
                + " bits (members not byte-aligned)");
      }
      widths[k] = (int) (bits / 8);
      rowBits += bits;
    }
    if (widths.length == 0) {
      throw DecodeException.corrupt(Codecs.describe(e) + " without members");
    }
    MiniBlockDecoder rows = Codecs.miniBlock(p.getValues());
    long expected = rowBits;
    return (bufs, n) -> {
      Values v = rows.decode(bufs, n);
      if (!(v instanceof FixedValues f) || f.bitsPerValue() != expected) {
        throw DecodeException.corrupt(
            Codecs.describe(e)
                + " declares rows of "
                + expected
                + " bits but its values decode to "
                + (v instanceof FixedValues f ? f.bitsPerValue() + "-bit values" : "other values"));
      }
      int rowBytes = (int) (expected / 8);
      List<Values> members = new ArrayList<>(widths.length);
      int at = 0;
      for (int w : widths) {
        members.add(FixedValues.wrap(gather(f.data(), f.offset(), rowBytes, at, w, n), w * 8, n));
        at += w;
      }
      return new StructValues(members, n);
    };
  }

  /**
   * The bytes {@code [at, at + width)} of each of {@code n} rows of {@code rowBytes} bytes starting
   * at byte {@code first} of {@code rows}, back to back.
   */
  public static byte[] gather(ByteBuffer rows, int first, int rowBytes, int at, int width, int n) {
    if (first < 0 || first + (long) rowBytes * n > rows.limit()) {
      throw DecodeException.corrupt(
          "a buffer of "
              + rows.limit()
              + " bytes is too short for "
              + n
              + " packed rows of "
              + rowBytes
              + " bytes");
    }
    byte[] out = new byte[width * n];
    for (int i = 0; i < n; i++) {
      rows.get(first + i * rowBytes + at, out, i * width, width);
    }
    return out;
  }

  /** One member of a VariablePackedStruct: fixed (length prefix 0) or variable width. */
  private record Member(
      int fixedBytes, int lengthBytes, FixedPerValueDecoder fixed, VariablePerValueDecoder var) {}

  /** Decoder of VariablePackedStruct full-zip values. */
  static VariablePerValueDecoder variablePerValue(CompressiveEncoding e) {
    VariablePackedStruct p = e.getVariablePackedStruct();
    if (p.getFieldsCount() == 0) {
      throw DecodeException.corrupt(Codecs.describe(e) + " without members");
    }
    Member[] members = new Member[p.getFieldsCount()];
    for (int k = 0; k < members.length; k++) {
      VariablePackedStruct.FieldEncoding f = p.getFields(k);
      switch (f.getLayoutCase()) {
        case BITS_PER_VALUE -> {
          long bits = f.getBitsPerValue();
          FixedPerValueDecoder d = Codecs.fixedPerValue(f.getValue());
          if (bits <= 0 || bits % 8 != 0 || d.bitsPerValue() != bits) {
            throw DecodeException.corrupt(
                Codecs.describe(e)
                    + " declares "
                    + bits
                    + " bits for member "
                    + k
                    + " whose encoding stores "
                    + d.bitsPerValue());
          }
          members[k] = new Member((int) (bits / 8), 0, d, null);
        }
        case BITS_PER_LENGTH -> {
          long bits = f.getBitsPerLength();
          if (bits != 32 && bits != 64) {
            throw DecodeException.corrupt(
                Codecs.describe(e) + " with " + bits + "-bit lengths for member " + k);
          }
          members[k] = new Member(0, (int) (bits / 8), null, Codecs.variablePerValue(f.getValue()));
        }
        default ->
            throw DecodeException.corrupt(
                Codecs.describe(e) + " gives member " + k + " neither a width nor a length");
      }
    }
    return stored -> decodeVariable(members, stored);
  }

  private static StructValues decodeVariable(Member[] members, VarValues stored) {
    int n = stored.count();
    byte[][] fixed = new byte[members.length][];
    byte[][] var = new byte[members.length][];
    int[][] offsets = new int[members.length][];
    int[] sizes = new int[members.length];
    for (int k = 0; k < members.length; k++) {
      if (members[k].lengthBytes() == 0) {
        fixed[k] = new byte[members[k].fixedBytes() * n];
      } else {
        var[k] = new byte[64];
        offsets[k] = new int[n + 1];
      }
    }
    ByteBuffer data = stored.data();
    for (int i = 0; i < n; i++) {
      long start = stored.offset(i);
      long end = stored.offset(i + 1);
      if (end > data.limit() || start > end) {
        throw DecodeException.corrupt(
            "packed struct row [" + start + ", " + end + ") outside " + data.limit() + " bytes");
      }
      int pos = (int) start;
      boolean empty = start == end;
      for (int k = 0; k < members.length; k++) {
        Member m = members[k];
        if (m.lengthBytes() == 0) {
          if (!empty) {
            checkRoom(pos, m.fixedBytes(), end);
            data.get(pos, fixed[k], i * m.fixedBytes(), m.fixedBytes());
            pos += m.fixedBytes();
          }
          continue;
        }
        long len = 0;
        if (!empty) {
          checkRoom(pos, m.lengthBytes(), end);
          len = m.lengthBytes() == 4 ? Integer.toUnsignedLong(data.getInt(pos)) : data.getLong(pos);
          pos += m.lengthBytes();
          if (len < 0 || pos + len > end) {
            throw DecodeException.corrupt(
                "a packed struct member of " + len + " bytes runs past its row's end");
          }
          if (sizes[k] + len > Integer.MAX_VALUE - 16) {
            throw DecodeException.unsupported(
                "more than 2 GiB of packed struct values in one batch; use a smaller batch size");
          }
          if (sizes[k] + len > var[k].length) {
            var[k] =
                Arrays.copyOf(
                    var[k],
                    (int)
                        Math.max(
                            sizes[k] + len, Math.min(2L * var[k].length, Integer.MAX_VALUE - 16)));
          }
          data.get(pos, var[k], sizes[k], (int) len);
          pos += (int) len;
        }
        sizes[k] += (int) len;
        offsets[k][i + 1] = sizes[k];
      }
      if (!empty && pos != end) {
        throw DecodeException.corrupt(
            "a packed struct row of "
                + (end - start)
                + " bytes holds "
                + (pos - start)
                + " bytes of members");
      }
    }
    List<Values> out = new ArrayList<>(members.length);
    for (int k = 0; k < members.length; k++) {
      Member m = members[k];
      out.add(
          m.lengthBytes() == 0
              ? m.fixed().decode(ByteBuffer.wrap(fixed[k]).order(ByteOrder.LITTLE_ENDIAN), 0, n)
              : m.var().decode(VarValues.wrap(var[k], sizes[k], offsets[k], n)));
    }
    return new StructValues(out, n);
  }

  private static void checkRoom(int pos, int bytes, long end) {
    if (pos + (long) bytes > end) {
      throw DecodeException.corrupt(
          "a packed struct row ends inside a member (" + bytes + " bytes at " + pos + ")");
    }
  }

  /** A compact description of a VariablePackedStruct, its members' encodings in order. */
  static String describeVariable(VariablePackedStruct p) {
    StringBuilder sb = new StringBuilder("VariablePackedStruct(");
    for (int k = 0; k < p.getFieldsCount(); k++) {
      sb.append(k == 0 ? "" : ", ").append(Codecs.describe(p.getFields(k).getValue()));
    }
    return sb.append(')').toString();
  }
}
