package dev.lancelot.engine.file.codec;

import java.nio.ByteBuffer;

/** Decodes one self-contained buffer (repetition/definition levels, dictionaries). */
@FunctionalInterface
public interface BlockDecoder {
  Values decode(ByteBuffer buffer, int numValues);
}
