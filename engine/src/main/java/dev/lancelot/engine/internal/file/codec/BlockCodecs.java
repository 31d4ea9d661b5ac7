package dev.lancelot.engine.internal.file.codec;

import dev.lancelot.engine.internal.file.proto.Encodings21Protos.CompressionScheme;
import dev.lancelot.engine.internal.file.proto.Encodings21Protos.CompressiveEncoding;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Decoders of self-contained blocks: the repetition and definition levels of pages and the
 * dictionaries of mini-block pages (see {@link Codecs#block}).
 */
final class BlockCodecs {
  private BlockCodecs() {}

  /** Decoder of a self-contained block (levels, dictionary items). */
  static BlockDecoder block(CompressiveEncoding e) {
    switch (e.getCompressionCase()) {
      case FLAT:
        {
          int bits = Codecs.flatBits(e);
          Codecs.rejectBufferCompression(e);
          return (buf, n) -> new FixedValues(buf, 0, bits, n);
        }
      case INLINE_BITPACKING:
        {
          int bits =
              Codecs.typeBits((int) e.getInlineBitpacking().getUncompressedBitsPerValue(), e);
          return (buf, n) -> Bitpacking.decodeInline(bits, buf, n);
        }
      case OUT_OF_LINE_BITPACKING:
        {
          int bits =
              Codecs.typeBits((int) e.getOutOfLineBitpacking().getUncompressedBitsPerValue(), e);
          CompressiveEncoding values = e.getOutOfLineBitpacking().getValues();
          if (!values.hasFlat()) {
            throw DecodeException.unsupported("block encoding " + Codecs.describe(e));
          }
          int width = Codecs.flatBits(values);
          if (width > bits) {
            throw DecodeException.corrupt(
                Codecs.describe(e) + " packs to more bits than the value type has");
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
        return BlockCodecs::binaryBlock;
      case RLE:
        {
          CompressiveEncoding values = e.getRle().getValues();
          CompressiveEncoding lengths = e.getRle().getRunLengths();
          if (!values.hasFlat() || !lengths.hasFlat() || Codecs.flatBits(lengths) != 8) {
            throw DecodeException.unsupported("block encoding " + Codecs.describe(e));
          }
          int bits = Codecs.flatBits(values);
          return (buf, n) -> rleBlock(bits, buf, n);
        }
      case CONSTANT:
        {
          if (!e.getConstant().hasValue()) {
            throw DecodeException.unsupported(
                "block encoding " + Codecs.describe(e) + " without a value");
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
        throw DecodeException.unsupported("block encoding " + Codecs.describe(e));
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
    ByteBuffer data = Codecs.slice(buf, (int) bytesStart, buf.limit() - (int) bytesStart);
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
        Codecs.slice(buf, 8, (int) valueBytes),
        Codecs.slice(buf, 8 + (int) valueBytes, Math.min(runs, buf.limit() - 8 - (int) valueBytes)),
        n);
  }

  private static FixedValues constant(byte[] value, int n) {
    byte[] out = new byte[value.length * n];
    for (int i = 0; i < n; i++) {
      System.arraycopy(value, 0, out, i * value.length, value.length);
    }
    return FixedValues.wrap(out, value.length * 8, n);
  }
}
