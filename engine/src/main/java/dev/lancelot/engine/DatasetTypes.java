package dev.lancelot.engine;

import dev.lancelot.engine.schema.LanceField;
import dev.lancelot.engine.schema.LanceSchema;
import dev.lancelot.engine.schema.LogicalTypes;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.memory.util.Float16;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * Writing values into a dataset's own column types when they arrive in a wider or different type (a
 * Spark {@code int} into {@code uint16}, microseconds into {@code timestamp[ns]}, …): which columns
 * can be written at all, and the value conversions with their range checks. Every conversion either
 * returns the exact stored value or, for the documented lossy cases (half floats rounded to
 * nearest, timestamps truncated towards the past), the nearest one the type holds; a value the type
 * cannot hold fails with a {@link ValueOutOfRangeException} naming the column and the value, never
 * a wrapped or clamped value.
 */
public final class DatasetTypes {
  private static final long MAX_UINT32 = 0xFFFF_FFFFL;
  private static final BigInteger MAX_UINT64 =
      BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);
  private static final long MILLIS_PER_DAY = 86_400_000L;

  private DatasetTypes() {}

  /** A value the column's type cannot hold; the message names the column, value and range. */
  public static final class ValueOutOfRangeException extends InvalidInputException {
    private static final long serialVersionUID = 1L;

    ValueOutOfRangeException(String column, Object value, String type, String holds) {
      super(
          "value "
              + value
              + " does not fit column \""
              + column
              + "\": the dataset stores it as "
              + type
              + ", which holds "
              + holds
              + ".");
    }
  }

  /**
   * Why a column cannot be written by lancelot's writer, or empty when it can: dictionary-encoded
   * fields (the writer stores plain values only) and Arrow extension types (e.g. {@code
   * arrow.json}, {@code lance.bfloat16}), whose bytes the writer does not produce, at any depth.
   */
  public static Optional<String> whyNotWritable(LanceField field) {
    return whyNotWritable(field, field.name());
  }

  private static Optional<String> whyNotWritable(LanceField field, String path) {
    String logical = field.logicalType();
    if (logical.startsWith("dict:")) {
      return Optional.of(
          "column \""
              + path
              + "\" is dictionary-encoded ("
              + logical
              + "), which the writer does not produce");
    }
    Optional<String> extension = extensionOf(field.toArrow());
    if (extension.isPresent()) {
      return Optional.of(
          "column \""
              + path
              + "\" has the Arrow extension type "
              + extension.get()
              + " ("
              + logical
              + "), which the writer does not produce");
    }
    for (LanceField child : field.children()) {
      Optional<String> why = whyNotWritable(child, path + "." + child.name());
      if (why.isPresent()) {
        return why;
      }
    }
    return Optional.empty();
  }

  /** The extension name of the field itself or, for a fixed-size list, of its item. */
  private static Optional<String> extensionOf(Field arrow) {
    Map<String, String> meta = arrow.getMetadata();
    if (meta != null && meta.containsKey(LogicalTypes.ARROW_EXT_NAME)) {
      return Optional.of(meta.get(LogicalTypes.ARROW_EXT_NAME));
    }
    if (arrow.getType() instanceof ArrowType.FixedSizeList) {
      return extensionOf(arrow.getChildren().get(0));
    }
    return Optional.empty();
  }

  /**
   * Refuses, before anything is written, a write of {@code columns} of {@code schema} that the
   * writer cannot produce (see {@link #whyNotWritable(LanceField)}); names every such column.
   */
  public static void checkWritable(
      String location, LanceSchema schema, Collection<String> columns) {
    List<String> problems = new ArrayList<>();
    for (String name : columns) {
      schema.field(name).flatMap(DatasetTypes::whyNotWritable).ifPresent(problems::add);
    }
    if (!problems.isEmpty()) {
      throw new SchemaMismatchException(
          "Cannot write to "
              + location
              + ": "
              + String.join("; ", problems)
              + ". Rewrite the dataset with plain (non-dictionary, non-extension) types to write to it"
              + " with lancelot.");
    }
  }

  /** An unsigned 8-bit value from a wider signed one: 0 to 255. */
  public static byte toUInt8(String column, long value) {
    if (value < 0 || value > 0xFF) {
      throw new ValueOutOfRangeException(column, value, "uint8", "0 to 255");
    }
    return (byte) value;
  }

  /** An unsigned 16-bit value from a wider signed one: 0 to 65535. */
  public static char toUInt16(String column, long value) {
    if (value < 0 || value > 0xFFFF) {
      throw new ValueOutOfRangeException(column, value, "uint16", "0 to 65535");
    }
    return (char) value;
  }

  /** The bits of an unsigned 32-bit value from a wider signed one: 0 to 4294967295. */
  public static int toUInt32(String column, long value) {
    if (value < 0 || value > MAX_UINT32) {
      throw new ValueOutOfRangeException(column, value, "uint32", "0 to 4294967295");
    }
    return (int) value;
  }

  /**
   * The bits of an unsigned 64-bit value from an integral decimal: 0 to 18446744073709551615, no
   * fraction.
   */
  public static long toUInt64(String column, BigDecimal value) {
    BigInteger integral;
    try {
      integral = value.toBigIntegerExact();
    } catch (ArithmeticException e) {
      integral = null;
    }
    if (integral == null || integral.signum() < 0 || integral.compareTo(MAX_UINT64) > 0) {
      throw new ValueOutOfRangeException(
          column, value.toPlainString(), "uint64", "the integers 0 to 18446744073709551615");
    }
    return integral.longValue();
  }

  /**
   * The half-precision bits of a float, rounded to the nearest half float (ties to even); NaN and
   * infinities are kept. A finite value beyond ±65504 (the largest half float) is refused.
   */
  public static short toFloat16(String column, float value) {
    short bits = Float16.toFloat16(value);
    if (Float.isFinite(value) && Float.isInfinite(Float16.toFloat(bits))) {
      throw new ValueOutOfRangeException(
          column, value, "float16", "finite values from -65504 to 65504");
    }
    return bits;
  }

  /**
   * A timestamp given in microseconds since the epoch, in {@code unit}: seconds and milliseconds
   * are truncated towards the past (floor, so 1969-12-31 23:59:59.5 becomes 23:59:59), nanoseconds
   * are exact and refused outside their range (years 1677 to 2262).
   */
  public static long fromMicros(String column, long micros, TimeUnit unit) {
    return switch (unit) {
      case SECOND -> Math.floorDiv(micros, 1_000_000L);
      case MILLISECOND -> Math.floorDiv(micros, 1_000L);
      case MICROSECOND -> micros;
      case NANOSECOND -> {
        try {
          yield Math.multiplyExact(micros, 1_000L);
        } catch (ArithmeticException e) {
          throw new ValueOutOfRangeException(
              column,
              micros + " µs",
              "timestamp[ns]",
              "instants from 1677-09-21T00:12:43.145224192Z to 2262-04-11T23:47:16.854775807Z");
        }
      }
    };
  }

  /** A date given in days since the epoch as {@code date64}: milliseconds at midnight. */
  public static long daysToMillis(int days) {
    return days * MILLIS_PER_DAY;
  }

  /** Refuses a {@code fixed_size_binary(width)} value whose length is not {@code width}. */
  public static byte[] checkFixedSize(String column, byte[] value, int width) {
    if (value.length != width) {
      throw new ValueOutOfRangeException(
          column,
          "of " + value.length + " bytes",
          "fixed_size_binary(" + width + ")",
          "values of exactly " + width + " bytes");
    }
    return value;
  }

  /** Refuses a decimal whose unscaled digits exceed the column's precision. */
  public static BigDecimal checkDecimal(String column, BigDecimal value, ArrowType.Decimal type) {
    BigDecimal scaled;
    try {
      scaled = value.setScale(type.getScale());
    } catch (ArithmeticException e) {
      scaled = null;
    }
    if (scaled == null || scaled.precision() > type.getPrecision()) {
      throw new ValueOutOfRangeException(
          column,
          value.toPlainString(),
          "decimal" + type.getBitWidth() + "(" + type.getPrecision() + "," + type.getScale() + ")",
          "at most "
              + type.getPrecision()
              + " digits with "
              + type.getScale()
              + " after the point");
    }
    return scaled;
  }
}
