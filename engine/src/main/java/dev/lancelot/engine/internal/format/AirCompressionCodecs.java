package dev.lancelot.engine.internal.format;

import io.airlift.compress.zstd.ZstdCompressor;
import io.airlift.compress.zstd.ZstdDecompressor;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.compression.AbstractCompressionCodec;
import org.apache.arrow.vector.compression.CompressionCodec;
import org.apache.arrow.vector.compression.CompressionUtil;
import org.apache.arrow.vector.compression.NoCompressionCodec;

/**
 * Arrow IPC body compression (ZSTD) in pure Java, backed by aircompressor. Lance writes its {@code
 * .arrow} deletion files with ZSTD-compressed buffers; Arrow Java alone would need the native
 * zstd-jni library to read them.
 *
 * <p>Each compressed IPC buffer is {@code [i64 LE uncompressed length][compressed bytes]}; a length
 * of -1 marks a buffer stored uncompressed (handled by {@link AbstractCompressionCodec}).
 */
public final class AirCompressionCodecs implements CompressionCodec.Factory {
  public static final AirCompressionCodecs INSTANCE = new AirCompressionCodecs();

  private AirCompressionCodecs() {}

  @Override
  public CompressionCodec createCodec(CompressionUtil.CodecType codecType) {
    return switch (codecType) {
      case NO_COMPRESSION -> NoCompressionCodec.INSTANCE;
      case ZSTD -> new Zstd();
      case LZ4_FRAME ->
          throw new UnsupportedOperationException(
              "LZ4-compressed Arrow IPC buffers are not supported (Lance writes ZSTD)");
    };
  }

  @Override
  public CompressionCodec createCodec(CompressionUtil.CodecType codecType, int compressionLevel) {
    return createCodec(codecType);
  }

  private abstract static class ByteArrayCodec extends AbstractCompressionCodec {
    abstract byte[] compressBytes(byte[] input);

    abstract void decompressBytes(byte[] input, byte[] output);

    @Override
    protected ArrowBuf doCompress(BufferAllocator allocator, ArrowBuf uncompressed) {
      byte[] in = new byte[Math.toIntExact(uncompressed.writerIndex())];
      uncompressed.getBytes(0, in, 0, in.length);
      byte[] out = compressBytes(in);
      ArrowBuf buf = allocator.buffer(CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH + out.length);
      buf.setBytes(CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH, out);
      writeUncompressedLength(buf, in.length);
      buf.writerIndex(CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH + out.length);
      return buf;
    }

    @Override
    protected ArrowBuf doDecompress(BufferAllocator allocator, ArrowBuf compressed) {
      long decompressedLength = readUncompressedLength(compressed);
      long start = CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH;
      byte[] in = new byte[Math.toIntExact(compressed.writerIndex() - start)];
      compressed.getBytes(start, in, 0, in.length);
      byte[] out = new byte[Math.toIntExact(decompressedLength)];
      decompressBytes(in, out);
      ArrowBuf buf = allocator.buffer(out.length);
      buf.setBytes(0, out);
      buf.writerIndex(out.length);
      return buf;
    }
  }

  private static final class Zstd extends ByteArrayCodec {
    @Override
    byte[] compressBytes(byte[] input) {
      ZstdCompressor c = new ZstdCompressor();
      byte[] out = new byte[c.maxCompressedLength(input.length)];
      int n = c.compress(input, 0, input.length, out, 0, out.length);
      return java.util.Arrays.copyOf(out, n);
    }

    @Override
    void decompressBytes(byte[] input, byte[] output) {
      int n = new ZstdDecompressor().decompress(input, 0, input.length, output, 0, output.length);
      if (n != output.length) {
        throw new IllegalStateException(
            "ZSTD buffer decompressed to " + n + " bytes, expected " + output.length);
      }
    }

    @Override
    public CompressionUtil.CodecType getCodecType() {
      return CompressionUtil.CodecType.ZSTD;
    }
  }
}
