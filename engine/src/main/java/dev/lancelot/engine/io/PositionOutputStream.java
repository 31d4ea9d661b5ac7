package dev.lancelot.engine.io;

import java.io.OutputStream;

/** An output stream that knows how many bytes it has written. */
public abstract class PositionOutputStream extends OutputStream {
  /** Bytes written so far, which is also the offset of the next byte. */
  public abstract long position();
}
