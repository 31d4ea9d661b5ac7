package dev.lancelot.engine.internal.file.codec;

import java.nio.ByteBuffer;

/** Decodes the values of a fixed-width full-zip page once the control words are removed. */
public interface FixedPerValueDecoder {
  /** Width of one stored value, including any inner validity bytes. */
  int bitsPerValue();

  /**
   * Decodes {@code numValues} values stored back to back in {@code data} from byte {@code offset}.
   */
  Values decode(ByteBuffer data, int offset, int numValues);
}
