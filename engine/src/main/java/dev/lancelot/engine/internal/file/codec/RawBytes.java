package dev.lancelot.engine.internal.file.codec;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Field;
import java.nio.ByteOrder;

/**
 * Unchecked access to primitive arrays for the innermost decoding loops, where the JIT cannot prove
 * indexes in range and the per-access checks cost more than the work. Callers validate every range
 * before the loop. {@link #AVAILABLE} is false when {@code sun.misc.Unsafe} is not accessible or
 * the platform is big endian; callers then take their checked path.
 *
 * <p>The accessors go through method handles bound to the {@code Unsafe} instance and held in
 * constants, which the JIT inlines down to the plain loads and stores; the class never names {@code
 * sun.misc.Unsafe} in a type, so main code compiles without the proprietary-API warning that {@code
 * -Werror} would turn into an error.
 */
final class RawBytes {
  static final boolean AVAILABLE;
  static final long BYTES;
  static final long INTS;
  static final long LONGS;
  private static final MethodHandle GET_BYTE;
  private static final MethodHandle GET_INT;
  private static final MethodHandle GET_LONG;
  private static final MethodHandle PUT_BYTE;
  private static final MethodHandle PUT_LONG;

  static {
    MethodHandle[] h = load();
    AVAILABLE = h != null;
    GET_BYTE = AVAILABLE ? h[0] : null;
    GET_INT = AVAILABLE ? h[1] : null;
    GET_LONG = AVAILABLE ? h[2] : null;
    PUT_BYTE = AVAILABLE ? h[3] : null;
    PUT_LONG = AVAILABLE ? h[4] : null;
    long[] offsets = AVAILABLE ? offsets() : new long[3];
    BYTES = offsets[0];
    INTS = offsets[1];
    LONGS = offsets[2];
  }

  private RawBytes() {}

  static byte getByte(byte[] array, long offset) {
    try {
      return (byte) GET_BYTE.invokeExact((Object) array, offset);
    } catch (Throwable t) {
      throw new AssertionError(t);
    }
  }

  static int getInt(int[] array, long offset) {
    try {
      return (int) GET_INT.invokeExact((Object) array, offset);
    } catch (Throwable t) {
      throw new AssertionError(t);
    }
  }

  static long getLong(long[] array, long offset) {
    try {
      return (long) GET_LONG.invokeExact((Object) array, offset);
    } catch (Throwable t) {
      throw new AssertionError(t);
    }
  }

  static void putByte(byte[] array, long offset, byte value) {
    try {
      PUT_BYTE.invokeExact((Object) array, offset, value);
    } catch (Throwable t) {
      throw new AssertionError(t);
    }
  }

  static void putLong(byte[] array, long offset, long value) {
    try {
      PUT_LONG.invokeExact((Object) array, offset, value);
    } catch (Throwable t) {
      throw new AssertionError(t);
    }
  }

  private static MethodHandle[] load() {
    if (ByteOrder.nativeOrder() != ByteOrder.LITTLE_ENDIAN
        || Boolean.getBoolean("lancelot.checkedDecoding")) {
      return null;
    }
    try {
      Class<?> type = Class.forName("sun.misc.Unsafe");
      Field f = type.getDeclaredField("theUnsafe");
      f.setAccessible(true);
      Object unsafe = f.get(null);
      MethodHandles.Lookup lookup = MethodHandles.publicLookup();
      return new MethodHandle[] {
        accessor(
            lookup,
            type,
            unsafe,
            "getByte",
            MethodType.methodType(byte.class, Object.class, long.class)),
        accessor(
            lookup,
            type,
            unsafe,
            "getInt",
            MethodType.methodType(int.class, Object.class, long.class)),
        accessor(
            lookup,
            type,
            unsafe,
            "getLong",
            MethodType.methodType(long.class, Object.class, long.class)),
        accessor(
            lookup,
            type,
            unsafe,
            "putByte",
            MethodType.methodType(void.class, Object.class, long.class, byte.class)),
        accessor(
            lookup,
            type,
            unsafe,
            "putLong",
            MethodType.methodType(void.class, Object.class, long.class, long.class)),
      };
    } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
      return null;
    }
  }

  private static MethodHandle accessor(
      MethodHandles.Lookup lookup, Class<?> type, Object unsafe, String name, MethodType signature)
      throws ReflectiveOperationException {
    return lookup.findVirtual(type, name, signature).bindTo(unsafe);
  }

  private static long[] offsets() {
    try {
      Class<?> type = Class.forName("sun.misc.Unsafe");
      return new long[] {
        type.getField("ARRAY_BYTE_BASE_OFFSET").getInt(null),
        type.getField("ARRAY_INT_BASE_OFFSET").getInt(null),
        type.getField("ARRAY_LONG_BASE_OFFSET").getInt(null),
      };
    } catch (ReflectiveOperationException e) {
      throw new LinkageError("sun.misc.Unsafe has no array base offsets", e);
    }
  }
}
