package dev.lancelot.engine.internal.file.write;

import dev.lancelot.engine.io.PositionOutputStream;
import java.io.IOException;

/**
 * Writes buffers at 64-byte aligned positions, as Lance 2.1 requires for page and global buffers.
 */
public final class AlignedOutput {
  public static final int ALIGNMENT = 64;
  private static final byte[] PADDING = new byte[ALIGNMENT];

  private final PositionOutputStream out;

  public AlignedOutput(PositionOutputStream out) {
    this.out = out;
  }

  public long position() {
    return out.position();
  }

  /** Pads to the next aligned position, writes {@code bytes} there and returns that position. */
  public long writeAligned(byte[] bytes) throws IOException {
    pad();
    long pos = out.position();
    out.write(bytes);
    return pos;
  }

  /**
   * Pads to the next aligned position, writes {@code len} bytes of {@code bytes} from {@code off}.
   */
  public long writeAligned(byte[] bytes, int off, int len) throws IOException {
    pad();
    long pos = out.position();
    out.write(bytes, off, len);
    return pos;
  }

  public void pad() throws IOException {
    int pad = (int) ((ALIGNMENT - out.position() % ALIGNMENT) % ALIGNMENT);
    out.write(PADDING, 0, pad);
  }

  /** Writes unaligned and returns the position written at. */
  public long write(byte[] bytes) throws IOException {
    long pos = out.position();
    out.write(bytes);
    return pos;
  }

  public PositionOutputStream stream() {
    return out;
  }
}
