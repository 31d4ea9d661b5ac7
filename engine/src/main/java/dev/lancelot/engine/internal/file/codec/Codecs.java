package dev.lancelot.engine.internal.file.codec;

import dev.lancelot.engine.internal.file.proto.Encodings21Protos.CompressionScheme;
import dev.lancelot.engine.internal.file.proto.Encodings21Protos.CompressiveEncoding;
import dev.lancelot.engine.internal.file.proto.Encodings21Protos.FixedSizeList;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * Builds decoders from {@code lance.encodings21.CompressiveEncoding} trees. Each structural layout
 * uses a different family: mini-block chunks, self-contained blocks (levels and dictionaries), and
 * per-value decoders for full-zip pages. An encoding a family cannot decode fails with a {@link
 * DecodeException} naming it ({@link #describe}).
 */
public final class Codecs {
  private Codecs() {}

  /** A little-endian view of {@code [from, from + len)} positioned at 0. */
  public static ByteBuffer slice(ByteBuffer buf, int from, int len) {
    if (from < 0 || len < 0 || from + len > buf.limit()) {
      throw DecodeException.corrupt(
          "range ["
              + from
              + ", "
              + (from + len)
              + ") lies outside a buffer of "
              + buf.limit()
              + " bytes");
    }
    return buf.slice(from, len).order(ByteOrder.LITTLE_ENDIAN);
  }

  // ---------------------------------------------------------------- mini-block

  /** Decoder of mini-block chunk values. */
  public static MiniBlockDecoder miniBlock(CompressiveEncoding e) {
    switch (e.getCompressionCase()) {
      case FLAT:
        {
          int bits = flatBits(e);
          rejectBufferCompression(e);
          return (bufs, n) -> new FixedValues(bufs.get(0), 0, bits, n);
        }
      case VARIABLE:
        {
          int width = offsetWidth(e);
          return (bufs, n) -> new VarValues(bufs.get(0), bufs.get(0), 0, width, n).validate();
        }
      case INLINE_BITPACKING:
        {
          int bits = typeBits((int) e.getInlineBitpacking().getUncompressedBitsPerValue(), e);
          if (e.getInlineBitpacking().hasValues()) {
            throw DecodeException.unsupported(describe(e) + " with compressed values");
          }
          return (bufs, n) -> Bitpacking.decodeInline(bits, bufs.get(0), n);
        }
      case RLE:
        {
          CompressiveEncoding values = e.getRle().getValues();
          CompressiveEncoding lengths = e.getRle().getRunLengths();
          if (!values.hasFlat() || !lengths.hasFlat() || flatBits(lengths) != 8) {
            throw DecodeException.unsupported(describe(e));
          }
          int bits = flatBits(values);
          return (bufs, n) -> Rle.decode(bits, bufs.get(0), bufs.get(1), n);
        }
      case FSST:
        {
          Fsst fsst = Fsst.fromSymbolTable(e.getFsst().getSymbolTable().asReadOnlyByteBuffer());
          MiniBlockDecoder inner = miniBlock(e.getFsst().getValues());
          return (bufs, n) -> fsst.decode(asVar(inner.decode(bufs, n), e));
        }
      case FIXED_SIZE_LIST:
        return fixedSizeListMiniBlock(e);
      case GENERAL:
        {
          CompressionScheme scheme = e.getGeneral().getCompression().getScheme();
          MiniBlockDecoder inner = miniBlock(e.getGeneral().getValues());
          return (bufs, n) -> {
            List<ByteBuffer> copy = new ArrayList<>(bufs);
            ByteBuffer first = bufs.get(0);
            byte[] raw = GeneralCompression.decompress(scheme, first, 0, first.limit());
            copy.set(0, ByteBuffer.wrap(raw).order(ByteOrder.LITTLE_ENDIAN));
            return inner.decode(copy, n);
          };
        }
      case BYTE_STREAM_SPLIT:
        {
          CompressiveEncoding values = e.getByteStreamSplit().getValues();
          if (!values.hasFlat()) {
            throw DecodeException.unsupported(describe(e));
          }
          int bits = flatBits(values);
          return (bufs, n) -> byteStreamSplit(bufs.get(0), bits, n);
        }
      case PACKED_STRUCT:
        return PackedStructs.miniBlock(e);
      default:
        throw DecodeException.unsupported("mini-block encoding " + describe(e));
    }
  }

  private static MiniBlockDecoder fixedSizeListMiniBlock(CompressiveEncoding e) {
    List<FixedSizeList> layers = new ArrayList<>();
    CompressiveEncoding cur = e;
    while (cur.hasFixedSizeList()) {
      layers.add(cur.getFixedSizeList());
      cur = cur.getFixedSizeList().getValues();
    }
    if (!cur.hasFlat()) {
      throw DecodeException.unsupported("mini-block encoding " + describe(e));
    }
    int itemBits = flatBits(cur);
    return (bufs, n) -> {
      int v = 0;
      ByteBuffer[] validity = new ByteBuffer[layers.size()];
      for (int i = 0; i < layers.size(); i++) {
        if (layers.get(i).getHasValidity()) {
          validity[i] = bufs.get(v++);
        }
      }
      return buildFsl(layers, validity, bufs.get(bufs.size() - 1), 0, itemBits, n);
    };
  }

  private static Values buildFsl(
      List<FixedSizeList> layers,
      ByteBuffer[] validity,
      ByteBuffer data,
      int dataOffset,
      int itemBits,
      int n) {
    long[] counts = new long[layers.size() + 1];
    counts[0] = n;
    for (int i = 0; i < layers.size(); i++) {
      counts[i + 1] = counts[i] * layers.get(i).getItemsPerValue();
    }
    if (counts[layers.size()] > Integer.MAX_VALUE) {
      throw DecodeException.corrupt(
          "fixed-size list chunk with " + counts[layers.size()] + " items");
    }
    Values values = new FixedValues(data, dataOffset, itemBits, (int) counts[layers.size()]);
    for (int i = layers.size() - 1; i >= 0; i--) {
      values =
          new FslValues(
              (int) layers.get(i).getItemsPerValue(), validity[i], 0, values, (int) counts[i]);
    }
    return values;
  }

  private static FixedValues byteStreamSplit(ByteBuffer in, int bits, int n) {
    int w = bits / 8;
    if (in.limit() < n * w) {
      throw DecodeException.corrupt(
          "byte-stream-split buffer of "
              + in.limit()
              + " bytes is too short for "
              + n
              + " values of "
              + bits
              + " bits");
    }
    byte[] out = new byte[n * w];
    for (int k = 0; k < w; k++) {
      int base = k * n;
      for (int i = 0; i < n; i++) {
        out[i * w + k] = in.get(base + i);
      }
    }
    return FixedValues.wrap(out, bits, n);
  }

  // ---------------------------------------------------------------- blocks

  /** Decoder of a self-contained block (levels, dictionary items). */
  public static BlockDecoder block(CompressiveEncoding e) {
    switch (e.getCompressionCase()) {
      case FLAT:
        {
          int bits = flatBits(e);
          rejectBufferCompression(e);
          return (buf, n) -> new FixedValues(buf, 0, bits, n);
        }
      case INLINE_BITPACKING:
        {
          int bits = typeBits((int) e.getInlineBitpacking().getUncompressedBitsPerValue(), e);
          return (buf, n) -> Bitpacking.decodeInline(bits, buf, n);
        }
      case OUT_OF_LINE_BITPACKING:
        {
          int bits = typeBits((int) e.getOutOfLineBitpacking().getUncompressedBitsPerValue(), e);
          CompressiveEncoding values = e.getOutOfLineBitpacking().getValues();
          if (!values.hasFlat()) {
            throw DecodeException.unsupported("block encoding " + describe(e));
          }
          int width = flatBits(values);
          if (width > bits) {
            throw DecodeException.corrupt(
                describe(e) + " packs to more bits than the value type has");
          }
          if (bits == 16) {
            return new BlockDecoder() {
              @Override
              public Values decode(ByteBuffer buf, int n) {
                return Bitpacking.decodeOutOfLine(16, width, buf, n);
              }

              @Override
              public short[] decodeLevels(ByteBuffer buf, int n) {
                return Bitpacking.decodeOutOfLine16(width, buf, n);
              }
            };
          }
          return (buf, n) -> Bitpacking.decodeOutOfLine(bits, width, buf, n);
        }
      case VARIABLE:
        return Codecs::binaryBlock;
      case RLE:
        {
          CompressiveEncoding values = e.getRle().getValues();
          CompressiveEncoding lengths = e.getRle().getRunLengths();
          if (!values.hasFlat() || !lengths.hasFlat() || flatBits(lengths) != 8) {
            throw DecodeException.unsupported("block encoding " + describe(e));
          }
          int bits = flatBits(values);
          return (buf, n) -> rleBlock(bits, buf, n);
        }
      case CONSTANT:
        {
          if (!e.getConstant().hasValue()) {
            throw DecodeException.unsupported("block encoding " + describe(e) + " without a value");
          }
          byte[] value = e.getConstant().getValue().toByteArray();
          return (buf, n) -> constant(value, n);
        }
      case GENERAL:
        {
          CompressionScheme scheme = e.getGeneral().getCompression().getScheme();
          BlockDecoder inner = block(e.getGeneral().getValues());
          return (buf, n) ->
              inner.decode(
                  ByteBuffer.wrap(GeneralCompression.decompress(scheme, buf, 0, buf.limit()))
                      .order(ByteOrder.LITTLE_ENDIAN),
                  n);
        }
      default:
        throw DecodeException.unsupported("block encoding " + describe(e));
    }
  }

  /**
   * A variable-width block. Layout (32-bit offsets; 64-bit uses u64 for the two header fields):
   *
   * <pre>
   *   [u32] bits per offset (32 or 64)
   *   [u32] byte position where the value bytes start
   *   [u32 x (n + 1)] offsets, relative to the start of the value bytes
   *   [bytes] values
   * </pre>
   *
   * Early 2.1 writers stored {@code [u8 bits][u32|u64 n][u32|u64 start]} instead; that form is
   * recognised by a non-zero second byte.
   */
  static VarValues binaryBlock(ByteBuffer buf, int n) {
    if (buf.limit() < 8) {
      throw DecodeException.corrupt(
          "variable-width block of " + buf.limit() + " bytes has no header");
    }
    boolean oldScheme = buf.get(1) != 0 || buf.get(2) != 0 || buf.get(3) != 0;
    int bits;
    long bytesStart;
    int offsetsStart;
    if (oldScheme) {
      bits = Byte.toUnsignedInt(buf.get(0));
      if (bits == 32) {
        bytesStart = Integer.toUnsignedLong(buf.getInt(5));
        offsetsStart = 9;
      } else if (bits == 64 && buf.limit() >= 17) {
        bytesStart = buf.getLong(9);
        offsetsStart = 17;
      } else {
        throw DecodeException.corrupt("variable-width block declares " + bits + "-bit offsets");
      }
    } else {
      bits = buf.getInt(0);
      if (bits == 32) {
        bytesStart = Integer.toUnsignedLong(buf.getInt(4));
        offsetsStart = 8;
      } else if (bits == 64 && buf.limit() >= 16) {
        bytesStart = buf.getLong(8);
        offsetsStart = 16;
      } else {
        throw DecodeException.corrupt("variable-width block declares " + bits + "-bit offsets");
      }
    }
    if (bytesStart < offsetsStart || bytesStart > buf.limit()) {
      throw DecodeException.corrupt(
          "variable-width block value bytes start at "
              + bytesStart
              + " in a buffer of "
              + buf.limit()
              + " bytes");
    }
    ByteBuffer data = slice(buf, (int) bytesStart, buf.limit() - (int) bytesStart);
    return new VarValues(data, buf, offsetsStart, bits / 8, n).validate();
  }

  /**
   * A run-length encoded block (format 2.2, e.g. definition levels). Layout:
   *
   * <pre>
   *   [u64] byte length L of the run values
   *   [L bytes] run values
   *   [u8 x runs] run lengths
   * </pre>
   */
  private static FixedValues rleBlock(int bits, ByteBuffer buf, int n) {
    if (buf.limit() < 8) {
      throw DecodeException.corrupt("run-length block of " + buf.limit() + " bytes has no header");
    }
    long valueBytes = buf.getLong(0);
    if (valueBytes < 0 || 8 + valueBytes > buf.limit() || valueBytes % (bits / 8) != 0) {
      throw DecodeException.corrupt(
          "run-length block declares "
              + valueBytes
              + " bytes of run values in a buffer of "
              + buf.limit()
              + " bytes");
    }
    int runs = (int) (valueBytes / (bits / 8));
    return Rle.decode(
        bits,
        slice(buf, 8, (int) valueBytes),
        slice(buf, 8 + (int) valueBytes, Math.min(runs, buf.limit() - 8 - (int) valueBytes)),
        n);
  }

  private static FixedValues constant(byte[] value, int n) {
    byte[] out = new byte[value.length * n];
    for (int i = 0; i < n; i++) {
      System.arraycopy(value, 0, out, i * value.length, value.length);
    }
    return FixedValues.wrap(out, value.length * 8, n);
  }

  // ---------------------------------------------------------------- per value (full-zip)

  /** Decoder of fixed-width full-zip values. */
  public static FixedPerValueDecoder fixedPerValue(CompressiveEncoding e) {
    switch (e.getCompressionCase()) {
      case FLAT:
        {
          int bits = flatBits(e);
          rejectBufferCompression(e);
          return new FixedPerValueDecoder() {
            @Override
            public int bitsPerValue() {
              return bits;
            }

            @Override
            public Values decode(ByteBuffer data, int offset, int n) {
              return new FixedValues(data, offset, bits, n);
            }
          };
        }
      case FIXED_SIZE_LIST:
        return fixedSizeListPerValue(e);
      default:
        throw DecodeException.unsupported("full-zip fixed-width encoding " + describe(e));
    }
  }

  private static FixedPerValueDecoder fixedSizeListPerValue(CompressiveEncoding e) {
    List<FixedSizeList> layers = new ArrayList<>();
    CompressiveEncoding cur = e;
    while (cur.hasFixedSizeList()) {
      layers.add(cur.getFixedSizeList());
      cur = cur.getFixedSizeList().getValues();
    }
    if (!cur.hasFlat() || flatBits(cur) % 8 != 0) {
      throw DecodeException.unsupported("full-zip fixed-width encoding " + describe(e));
    }
    int itemBits = flatBits(cur);
    long cum = 1;
    long validityBytes = 0;
    boolean anyValidity = false;
    long[] layerBits = new long[layers.size()];
    for (int i = 0; i < layers.size(); i++) {
      cum *= layers.get(i).getItemsPerValue();
      layerBits[i] = cum;
      if (layers.get(i).getHasValidity()) {
        validityBytes += (cum + 7) / 8;
        anyValidity = true;
      }
    }
    long dataBytes = cum * itemBits / 8;
    long totalBits = (validityBytes + dataBytes) * 8;
    if (totalBits > Integer.MAX_VALUE) {
      throw DecodeException.unsupported("full-zip values of " + totalBits + " bits");
    }
    boolean hasValidity = anyValidity;
    int validityTotal = (int) validityBytes;
    return new FixedPerValueDecoder() {
      @Override
      public int bitsPerValue() {
        return (int) totalBits;
      }

      @Override
      public Values decode(ByteBuffer data, int offset, int n) {
        if (!hasValidity) {
          return buildFsl(layers, new ByteBuffer[layers.size()], data, offset, itemBits, n);
        }
        return unzipFslValidity(
            layers, layerBits, validityTotal, (int) dataBytes, itemBits, data, offset, n);
      }
    };
  }

  /**
   * Splits values stored as {@code [validity bytes of each layer][item bytes]} into bitmaps and
   * items.
   */
  private static Values unzipFslValidity(
      List<FixedSizeList> layers,
      long[] layerBits,
      int validityBytes,
      int dataBytes,
      int itemBits,
      ByteBuffer data,
      int offset,
      int n) {
    int stride = validityBytes + dataBytes;
    if (offset + (long) stride * n > data.limit()) {
      throw DecodeException.corrupt(
          "full-zip buffer too short for " + n + " values of " + stride + " bytes");
    }
    ByteBuffer[] validity = new ByteBuffer[layers.size()];
    for (int i = 0; i < layers.size(); i++) {
      if (layers.get(i).getHasValidity()) {
        validity[i] =
            ByteBuffer.allocate((int) ((layerBits[i] * n + 7) / 8)).order(ByteOrder.LITTLE_ENDIAN);
      }
    }
    byte[] items = new byte[dataBytes * n];
    for (int r = 0; r < n; r++) {
      int pos = offset + r * stride;
      for (int i = 0; i < layers.size(); i++) {
        if (validity[i] != null) {
          int bits = (int) layerBits[i];
          if (bits % 8 == 0) {
            validity[i].put(r * (bits / 8), data, pos, bits / 8);
          } else {
            copyBits(data, pos, validity[i], (long) r * bits, bits);
          }
          pos += (bits + 7) / 8;
        }
      }
      data.get(pos, items, r * dataBytes, dataBytes);
    }
    return buildFsl(
        layers, validity, ByteBuffer.wrap(items).order(ByteOrder.LITTLE_ENDIAN), 0, itemBits, n);
  }

  /**
   * Copies {@code bits} bits from byte {@code srcByte} (bit 0) to bit {@code dstBit} of {@code
   * dst}.
   */
  private static void copyBits(ByteBuffer src, int srcByte, ByteBuffer dst, long dstBit, int bits) {
    for (int b = 0; b < bits; b++) {
      if ((src.get(srcByte + (b >>> 3)) & (1 << (b & 7))) != 0) {
        long d = dstBit + b;
        int idx = (int) (d >>> 3);
        dst.put(idx, (byte) (dst.get(idx) | (1 << (d & 7))));
      }
    }
  }

  /** Decoder of variable-width full-zip values. */
  public static VariablePerValueDecoder variablePerValue(CompressiveEncoding e) {
    switch (e.getCompressionCase()) {
      case VARIABLE:
        return expanding(v -> v, ValueExpander.VERBATIM);
      case FSST:
        {
          Fsst fsst = Fsst.fromSymbolTable(e.getFsst().getSymbolTable().asReadOnlyByteBuffer());
          VariablePerValueDecoder inner = variablePerValue(e.getFsst().getValues());
          VariablePerValueDecoder whole = v -> fsst.decode(asVar(inner.decode(v), e));
          return inner.expander() == ValueExpander.VERBATIM ? expanding(whole, fsst) : whole;
        }
      case GENERAL:
        {
          CompressionScheme scheme = e.getGeneral().getCompression().getScheme();
          return v -> perValueDecompress(scheme, v);
        }
      case VARIABLE_PACKED_STRUCT:
        return PackedStructs.variablePerValue(e);
      default:
        throw DecodeException.unsupported("full-zip variable-width encoding " + describe(e));
    }
  }

  private static VariablePerValueDecoder expanding(
      VariablePerValueDecoder whole, ValueExpander expander) {
    return new VariablePerValueDecoder() {
      @Override
      public Values decode(VarValues stored) {
        return whole.decode(stored);
      }

      @Override
      public ValueExpander expander() {
        return expander;
      }
    };
  }

  private static VarValues perValueDecompress(CompressionScheme scheme, VarValues stored) {
    int n = stored.count();
    int[] offsets = new int[n + 1];
    byte[][] parts = new byte[n][];
    long total = 0;
    for (int i = 0; i < n; i++) {
      int from = (int) stored.offset(i);
      int to = (int) stored.offset(i + 1);
      parts[i] =
          from == to ? new byte[0] : GeneralCompression.decompress(scheme, stored.data(), from, to);
      total += parts[i].length;
      if (total > Integer.MAX_VALUE - 16) {
        throw DecodeException.unsupported("more than 2 GiB of decompressed values in one read");
      }
      offsets[i + 1] = (int) total;
    }
    byte[] out = new byte[(int) total];
    for (int i = 0; i < n; i++) {
      System.arraycopy(parts[i], 0, out, offsets[i], parts[i].length);
    }
    return VarValues.wrap(out, out.length, offsets, n);
  }

  // ---------------------------------------------------------------- helpers

  private static VarValues asVar(Values v, CompressiveEncoding e) {
    if (v instanceof VarValues var) {
      return var;
    }
    throw DecodeException.corrupt(
        describe(e) + " wraps an encoding that does not produce variable-width values");
  }

  /**
   * Whether full-zip values in encoding {@code e} are stored as they are: flat values without
   * buffer compression, or fixed-size lists of them without item validity.
   */
  public static boolean isPlainFixed(CompressiveEncoding e) {
    CompressiveEncoding cur = e;
    while (cur.hasFixedSizeList()) {
      if (cur.getFixedSizeList().getHasValidity()) {
        return false;
      }
      cur = cur.getFixedSizeList().getValues();
    }
    return cur.hasFlat() && !cur.getFlat().hasData() && cur.getFlat().getBitsPerValue() % 8 == 0;
  }

  private static int flatBits(CompressiveEncoding e) {
    long bits = e.getFlat().getBitsPerValue();
    if (bits <= 0 || bits > (1L << 24)) {
      throw DecodeException.corrupt("flat encoding with " + bits + " bits per value");
    }
    return (int) bits;
  }

  private static void rejectBufferCompression(CompressiveEncoding e) {
    if (e.getFlat().hasData()) {
      throw DecodeException.unsupported(describe(e) + " with per-buffer compression");
    }
  }

  private static int offsetWidth(CompressiveEncoding e) {
    CompressiveEncoding offsets = e.getVariable().getOffsets();
    if (!offsets.hasFlat()
        || (flatBits(offsets) != 32 && flatBits(offsets) != 64)
        || e.getVariable().hasValues()) {
      throw DecodeException.unsupported("variable-width encoding " + describe(e));
    }
    return flatBits(offsets) / 8;
  }

  private static int typeBits(int bits, CompressiveEncoding e) {
    if (bits != 8 && bits != 16 && bits != 32 && bits != 64) {
      throw DecodeException.unsupported(describe(e) + " of " + bits + "-bit values");
    }
    return bits;
  }

  /** A compact description, e.g. {@code Fsst(Variable(Flat(32)))}, for errors and the inspector. */
  public static String describe(CompressiveEncoding e) {
    if (e == null) {
      return "none";
    }
    return switch (e.getCompressionCase()) {
      case FLAT ->
          "Flat("
              + e.getFlat().getBitsPerValue()
              + (e.getFlat().hasData() ? ", " + scheme(e.getFlat().getData().getScheme()) : "")
              + ")";
      case VARIABLE -> "Variable(" + describe(e.getVariable().getOffsets()) + ")";
      case CONSTANT ->
          "Constant("
              + (e.getConstant().hasValue() ? e.getConstant().getValue().size() + " bytes" : "null")
              + ")";
      case OUT_OF_LINE_BITPACKING ->
          "OutOfLineBitpacking("
              + e.getOutOfLineBitpacking().getUncompressedBitsPerValue()
              + " -> "
              + describe(e.getOutOfLineBitpacking().getValues())
              + ")";
      case INLINE_BITPACKING ->
          "InlineBitpacking(" + e.getInlineBitpacking().getUncompressedBitsPerValue() + ")";
      case FSST -> "Fsst(" + describe(e.getFsst().getValues()) + ")";
      case DICTIONARY ->
          "Dictionary("
              + describe(e.getDictionary().getIndices())
              + ", "
              + describe(e.getDictionary().getItems())
              + ")";
      case RLE ->
          "Rle("
              + describe(e.getRle().getValues())
              + ", "
              + describe(e.getRle().getRunLengths())
              + ")";
      case BYTE_STREAM_SPLIT ->
          "ByteStreamSplit(" + describe(e.getByteStreamSplit().getValues()) + ")";
      case GENERAL ->
          "General("
              + scheme(e.getGeneral().getCompression().getScheme())
              + ", "
              + describe(e.getGeneral().getValues())
              + ")";
      case FIXED_SIZE_LIST ->
          "FixedSizeList("
              + e.getFixedSizeList().getItemsPerValue()
              + (e.getFixedSizeList().getHasValidity() ? ", validity" : "")
              + ", "
              + describe(e.getFixedSizeList().getValues())
              + ")";
      case PACKED_STRUCT -> "PackedStruct(" + describe(e.getPackedStruct().getValues()) + ")";
      case VARIABLE_PACKED_STRUCT -> PackedStructs.describeVariable(e.getVariablePackedStruct());
      case COMPRESSION_NOT_SET -> "unset";
    };
  }

  private static String scheme(CompressionScheme s) {
    return switch (s) {
      case COMPRESSION_ALGORITHM_ZSTD -> "zstd";
      case COMPRESSION_ALGORITHM_LZ4 -> "lz4";
      default -> s.name();
    };
  }
}
