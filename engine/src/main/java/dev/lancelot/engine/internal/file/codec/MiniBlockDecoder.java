package dev.lancelot.engine.internal.file.codec;

import java.nio.ByteBuffer;
import java.util.List;

/** Decodes the value buffers of one mini-block chunk (each buffer a little-endian view at 0). */
@FunctionalInterface
public interface MiniBlockDecoder {
  Values decode(List<ByteBuffer> buffers, int numValues);
}
