package dev.lancelot.engine.internal.file.write;

import dev.lancelot.engine.internal.file.proto.Encodings21Protos.BufferCompression;
import dev.lancelot.engine.internal.file.proto.Encodings21Protos.CompressionScheme;
import dev.lancelot.engine.internal.file.proto.Encodings21Protos.CompressiveEncoding;
import dev.lancelot.engine.internal.file.proto.Encodings21Protos.General;
import dev.lancelot.engine.schema.LanceField;
import dev.lancelot.engine.schema.SchemaException;
import io.airlift.compress.lz4.Lz4Compressor;
import io.airlift.compress.zstd.ZstdCompressor;
import java.util.Locale;

/**
 * General compression of mini-block chunk values asked for by the field metadata {@code
 * lance-encoding:compression} ({@code zstd} or {@code lz4}; {@code none} and absent: none): each
 * chunk's value buffer is compressed on its own and the page's value encoding becomes {@code
 * General(scheme, inner)}. Framing as Lance reads it: zstd {@code [u64 uncompressed length][zstd
 * frame]}, lz4 {@code [u32 uncompressed length][lz4 block]}.
 */
final class ChunkCompression {
  static final String KEY = "lance-encoding:compression";

  private ChunkCompression() {}

  /** The scheme {@code field}'s metadata asks for, or null for none. */
  static CompressionScheme of(LanceField field) {
    String value = field.metadata().get(KEY);
    if (value == null) {
      return null;
    }
    return switch (value.trim().toLowerCase(Locale.ROOT)) {
      case "none" -> null;
      case "zstd" -> CompressionScheme.COMPRESSION_ALGORITHM_ZSTD;
      case "lz4" -> CompressionScheme.COMPRESSION_ALGORITHM_LZ4;
      default ->
          throw new SchemaException(
              "Cannot write field \""
                  + field.name()
                  + "\": its metadata "
                  + KEY
                  + " = \""
                  + value
                  + "\" is not a compression lancelot writes. Use \"zstd\", \"lz4\" or \"none\".");
    };
  }

  static ByteSlice compress(CompressionScheme scheme, ByteSlice in) {
    byte[] src = in.array();
    int off = in.offset();
    int len = in.length();
    if (scheme == CompressionScheme.COMPRESSION_ALGORITHM_ZSTD) {
      ZstdCompressor c = new ZstdCompressor();
      byte[] out = new byte[8 + c.maxCompressedLength(len)];
      int n = c.compress(src, off, len, out, 8, out.length - 8);
      long v = len;
      for (int i = 0; i < 8; i++) {
        out[i] = (byte) (v >>> (8 * i));
      }
      return new ByteSlice(out, 0, 8 + n);
    }
    Lz4Compressor c = new Lz4Compressor();
    byte[] out = new byte[4 + c.maxCompressedLength(len)];
    int n = c.compress(src, off, len, out, 4, out.length - 4);
    for (int i = 0; i < 4; i++) {
      out[i] = (byte) (len >>> (8 * i));
    }
    return new ByteSlice(out, 0, 4 + n);
  }

  static CompressiveEncoding wrap(CompressionScheme scheme, CompressiveEncoding inner) {
    return CompressiveEncoding.newBuilder()
        .setGeneral(
            General.newBuilder()
                .setCompression(BufferCompression.newBuilder().setScheme(scheme))
                .setValues(inner))
        .build();
  }
}
