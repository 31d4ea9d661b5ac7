package dev.lancelot.engine.internal.file.codec;

import dev.lancelot.engine.internal.file.proto.Encodings21Protos.CompressionScheme;
import io.airlift.compress.MalformedInputException;
import io.airlift.compress.lz4.Lz4Decompressor;
import io.airlift.compress.zstd.ZstdDecompressor;
import io.airlift.compress.zstd.ZstdInputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * General-purpose buffer compression (pure Java, via aircompressor). Framing, as Lance writes it:
 *
 * <ul>
 *   <li>zstd: {@code [u64 uncompressed length][zstd frame]}; buffers that start directly with a
 *       zstd frame (magic 0xFD2FB528, older writers) are also accepted;
 *   <li>lz4: {@code [u32 uncompressed length][lz4 block]}.
 * </ul>
 */
public final class GeneralCompression {
  private static final int ZSTD_MAGIC = 0xFD2FB528;

  private GeneralCompression() {}

  /** Decompresses {@code src[from, to)}. */
  public static byte[] decompress(CompressionScheme scheme, ByteBuffer src, int from, int to) {
    byte[] in = new byte[to - from];
    src.get(from, in);
    try {
      return switch (scheme) {
        case COMPRESSION_ALGORITHM_ZSTD -> zstd(in);
        case COMPRESSION_ALGORITHM_LZ4 -> lz4(in);
        default -> throw DecodeException.unsupported("general compression scheme " + scheme);
      };
    } catch (MalformedInputException | IndexOutOfBoundsException | IllegalArgumentException e) {
      throw DecodeException.corrupt(scheme + " data is malformed: " + e.getMessage(), e);
    }
  }

  private static byte[] zstd(byte[] in) {
    if (in.length == 0) {
      return in;
    }
    ByteBuffer b = ByteBuffer.wrap(in).order(ByteOrder.LITTLE_ENDIAN);
    boolean rawFrame = in.length < 8 || (b.getInt(0) == ZSTD_MAGIC && (in[4] & 0x10) == 0);
    if (rawFrame) {
      try (ZstdInputStream zin = new ZstdInputStream(new ByteArrayInputStream(in))) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(in.length * 4);
        zin.transferTo(out);
        return out.toByteArray();
      } catch (IOException e) {
        throw DecodeException.corrupt("zstd stream is malformed: " + e.getMessage(), e);
      }
    }
    long len = b.getLong(0);
    if (len < 0 || len > Integer.MAX_VALUE - 16) {
      throw DecodeException.corrupt(
          "zstd buffer declares an uncompressed length of " + len + " bytes");
    }
    byte[] out = new byte[(int) len];
    int n = new ZstdDecompressor().decompress(in, 8, in.length - 8, out, 0, out.length);
    if (n != len) {
      throw DecodeException.corrupt(
          "zstd buffer decompressed to " + n + " bytes, " + len + " expected");
    }
    return out;
  }

  private static byte[] lz4(byte[] in) {
    if (in.length < 4) {
      throw DecodeException.corrupt("lz4 buffer of " + in.length + " bytes has no length prefix");
    }
    int len = ByteBuffer.wrap(in).order(ByteOrder.LITTLE_ENDIAN).getInt(0);
    if (len < 0) {
      throw DecodeException.corrupt("lz4 buffer declares a negative uncompressed length");
    }
    byte[] out = new byte[len];
    int n = new Lz4Decompressor().decompress(in, 4, in.length - 4, out, 0, out.length);
    if (n != len) {
      throw DecodeException.corrupt(
          "lz4 buffer decompressed to " + n + " bytes, " + len + " expected");
    }
    return out;
  }
}
