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
 * uses a different family: mini-block chunks (here), self-contained blocks for levels and
 * dictionaries ({@link BlockCodecs}), and per-value decoders for full-zip pages ({@link
 * PerValueCodecs}); packed structs are in {@link PackedStructs}. An encoding a family cannot decode
 * fails with a {@link DecodeException} naming it ({@link #describe}).
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

  static Values buildFsl(
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
    return BlockCodecs.block(e);
  }

  // ---------------------------------------------------------------- per value (full-zip)

  /** Decoder of fixed-width full-zip values. */
  public static FixedPerValueDecoder fixedPerValue(CompressiveEncoding e) {
    return PerValueCodecs.fixedPerValue(e);
  }

  /** Decoder of variable-width full-zip values. */
  public static VariablePerValueDecoder variablePerValue(CompressiveEncoding e) {
    return PerValueCodecs.variablePerValue(e);
  }

  // ---------------------------------------------------------------- helpers

  static VarValues asVar(Values v, CompressiveEncoding e) {
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

  static int flatBits(CompressiveEncoding e) {
    long bits = e.getFlat().getBitsPerValue();
    if (bits <= 0 || bits > (1L << 24)) {
      throw DecodeException.corrupt("flat encoding with " + bits + " bits per value");
    }
    return (int) bits;
  }

  static void rejectBufferCompression(CompressiveEncoding e) {
    if (e.getFlat().hasData()) {
      throw DecodeException.unsupported(describe(e) + " with per-buffer compression");
    }
  }

  static int offsetWidth(CompressiveEncoding e) {
    CompressiveEncoding offsets = e.getVariable().getOffsets();
    if (!offsets.hasFlat()
        || (flatBits(offsets) != 32 && flatBits(offsets) != 64)
        || e.getVariable().hasValues()) {
      throw DecodeException.unsupported("variable-width encoding " + describe(e));
    }
    return flatBits(offsets) / 8;
  }

  static int typeBits(int bits, CompressiveEncoding e) {
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
