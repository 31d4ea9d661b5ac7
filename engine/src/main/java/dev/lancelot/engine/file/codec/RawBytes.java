package dev.lancelot.engine.file.codec;

import java.lang.reflect.Field;
import java.nio.ByteOrder;

/**
 * Unchecked access to primitive arrays for the innermost decoding loops, where the JIT cannot
 * prove indexes in range and the per-access checks cost more than the work. Callers validate
 * every range before the loop. Null when {@code sun.misc.Unsafe} is not accessible or the
 * platform is big endian; callers then take their checked path.
 */
final class RawBytes {
  static final sun.misc.Unsafe UNSAFE = load();
  static final long BYTES = UNSAFE == null ? 0 : sun.misc.Unsafe.ARRAY_BYTE_BASE_OFFSET;
  static final long INTS = UNSAFE == null ? 0 : sun.misc.Unsafe.ARRAY_INT_BASE_OFFSET;
  static final long LONGS = UNSAFE == null ? 0 : sun.misc.Unsafe.ARRAY_LONG_BASE_OFFSET;

  private RawBytes() {}

  private static sun.misc.Unsafe load() {
    if (ByteOrder.nativeOrder() != ByteOrder.LITTLE_ENDIAN || Boolean.getBoolean("lancelot.checkedDecoding")) {
      return null;
    }
    try {
      Field f = sun.misc.Unsafe.class.getDeclaredField("theUnsafe");
      f.setAccessible(true);
      return (sun.misc.Unsafe) f.get(null);
    } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
      return null;
    }
  }
}
