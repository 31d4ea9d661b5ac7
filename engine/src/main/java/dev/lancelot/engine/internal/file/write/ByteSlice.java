package dev.lancelot.engine.internal.file.write;

/**
 * A byte range of an array, handed from encoders to the output without copying. The array may be a
 * reused buffer: a slice is valid only until its owner is appended to again.
 */
record ByteSlice(byte[] array, int offset, int length) {
  static ByteSlice of(byte[] a) {
    return new ByteSlice(a, 0, a.length);
  }
}
