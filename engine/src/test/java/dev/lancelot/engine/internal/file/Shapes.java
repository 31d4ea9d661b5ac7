package dev.lancelot.engine.internal.file;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DateMilliVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float2Vector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.LargeVarBinaryVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Column data shapes that make Lance pick each encoding (small, seeded). Each shape fills one
 * nullable column "c" with a deterministic generator.
 */
public final class Shapes {
  private Shapes() {}

  public interface Filler {
    void fill(FieldVector v, int row, Random r);
  }

  public record Shape(
      String name,
      ArrowType type,
      int rows,
      Filler filler,
      int dim,
      java.util.Map<String, String> metadata) {
    Shape(String name, ArrowType type, int rows, Filler filler, int dim) {
      this(name, type, rows, filler, dim, null);
    }

    Shape withMetadata(String suffix, java.util.Map<String, String> meta) {
      return new Shape(name + suffix, type, rows, filler, dim, meta);
    }

    Field field(String column) {
      FieldType ft = new FieldType(true, type, null, metadata);
      if (type instanceof ArrowType.FixedSizeList) {
        ArrowType itemType =
            name.contains("uint8")
                ? new ArrowType.Int(8, false)
                : name.contains("f16")
                    ? new ArrowType.FloatingPoint(FloatingPointPrecision.HALF)
                    : F32;
        Field item = new Field("item", FieldType.nullable(itemType), null);
        return new Field(column, ft, List.of(item));
      }
      return new Field(column, ft, null);
    }

    @Override
    public String toString() {
      return name;
    }
  }

  static final ArrowType I64 = new ArrowType.Int(64, true);
  static final ArrowType I32 = new ArrowType.Int(32, true);
  static final ArrowType F32 = new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
  static final ArrowType F64 = new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);

  static Shape shape(String name, ArrowType type, int rows, Filler f) {
    return new Shape(name, type, rows, f, 0);
  }

  public static List<Shape> all() {
    List<Shape> s = new ArrayList<>();
    s.add(shape("int64_sequential", I64, 5000, (v, i, r) -> ((BigIntVector) v).set(i, i)));
    s.add(shape("int64_random", I64, 5000, (v, i, r) -> ((BigIntVector) v).set(i, r.nextLong())));
    s.add(
        shape(
            "int64_small_range",
            I64,
            5000,
            (v, i, r) -> ((BigIntVector) v).set(i, r.nextInt(1000))));
    s.add(shape("int64_long_runs", I64, 5000, (v, i, r) -> ((BigIntVector) v).set(i, i / 300)));
    s.add(shape("int64_constant", I64, 5000, (v, i, r) -> ((BigIntVector) v).set(i, 42)));
    s.add(
        shape(
            "int64_negative_small",
            I64,
            3000,
            (v, i, r) -> ((BigIntVector) v).set(i, -r.nextInt(50))));
    s.add(
        shape(
            "int64_nulls",
            I64,
            5000,
            (v, i, r) -> {
              if (r.nextInt(7) == 0) {
                v.setNull(i);
              } else {
                ((BigIntVector) v).set(i, r.nextLong());
              }
            }));
    s.add(
        shape(
            "int64_nulls_bitpacked",
            I64,
            5000,
            (v, i, r) -> {
              if (i % 10 == 3) {
                v.setNull(i);
              } else {
                ((BigIntVector) v).set(i, r.nextInt(100));
              }
            }));
    s.add(shape("int64_all_null", I64, 3000, (v, i, r) -> v.setNull(i)));
    s.add(
        shape(
            "int32_tenant_skewed",
            I32,
            5000,
            (v, i, r) ->
                ((IntVector) v).set(i, (int) Math.floor(Math.pow(r.nextDouble(), 3) * 100))));
    s.add(shape("int32_random", I32, 5000, (v, i, r) -> ((IntVector) v).set(i, r.nextInt())));
    s.add(
        shape(
            "int16_random",
            new ArrowType.Int(16, true),
            5000,
            (v, i, r) -> ((SmallIntVector) v).set(i, (short) r.nextInt())));
    s.add(
        shape(
            "int8_random",
            new ArrowType.Int(8, true),
            5000,
            (v, i, r) -> ((TinyIntVector) v).set(i, (byte) r.nextInt())));
    s.add(
        shape(
            "int8_small",
            new ArrowType.Int(8, true),
            5000,
            (v, i, r) -> ((TinyIntVector) v).set(i, (byte) r.nextInt(4))));
    s.add(
        shape(
            "uint8_runs",
            new ArrowType.Int(8, false),
            5000,
            (v, i, r) -> ((UInt1Vector) v).set(i, (byte) (i / 500))));
    s.add(
        shape(
            "bool_random",
            ArrowType.Bool.INSTANCE,
            5000,
            (v, i, r) -> ((BitVector) v).set(i, r.nextBoolean() ? 1 : 0)));
    s.add(
        shape(
            "bool_nulls",
            ArrowType.Bool.INSTANCE,
            5000,
            (v, i, r) -> {
              if (r.nextInt(5) == 0) {
                v.setNull(i);
              } else {
                ((BitVector) v).set(i, r.nextBoolean() ? 1 : 0);
              }
            }));
    s.add(shape("float32_unit", F32, 5000, (v, i, r) -> ((Float4Vector) v).set(i, r.nextFloat())));
    s.add(
        shape(
            "float32_full_range",
            F32,
            5000,
            (v, i, r) -> ((Float4Vector) v).set(i, (float) (r.nextGaussian() * 1e6))));
    s.add(
        shape(
            "float32_few_distinct",
            F32,
            5000,
            (v, i, r) -> ((Float4Vector) v).set(i, r.nextInt(5) * 0.5f)));
    s.add(
        shape(
            "float64_random", F64, 5000, (v, i, r) -> ((Float8Vector) v).set(i, r.nextGaussian())));
    s.add(
        shape(
            "float64_nulls",
            F64,
            5000,
            (v, i, r) -> {
              if (i % 13 == 0) {
                v.setNull(i);
              } else {
                ((Float8Vector) v).set(i, r.nextDouble() * 1e9);
              }
            }));
    s.add(
        shape(
            "date32",
            new ArrowType.Date(DateUnit.DAY),
            3000,
            (v, i, r) -> ((DateDayVector) v).set(i, 18000 + r.nextInt(3000))));
    s.add(
        shape(
            "timestamp_us_utc",
            new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC"),
            3000,
            (v, i, r) ->
                ((TimeStampMicroTZVector) v)
                    .set(i, 1_700_000_000_000_000L + r.nextInt(1_000_000_000))));
    s.add(
        shape(
            "utf8_names_nulls",
            ArrowType.Utf8.INSTANCE,
            5000,
            (v, i, r) -> {
              if (r.nextInt(11) == 0) {
                v.setNull(i);
              } else {
                ((VarCharVector) v).setSafe(i, utf8("name_" + r.nextInt(100000)));
              }
            }));
    s.add(
        shape(
            "utf8_short_few_rows",
            ArrowType.Utf8.INSTANCE,
            50,
            (v, i, r) -> ((VarCharVector) v).setSafe(i, utf8("x" + i))));
    s.add(
        shape(
            "utf8_low_cardinality",
            ArrowType.Utf8.INSTANCE,
            5000,
            (v, i, r) -> ((VarCharVector) v).setSafe(i, utf8("category-" + r.nextInt(12)))));
    s.add(
        shape(
            "utf8_low_cardinality_nulls",
            ArrowType.Utf8.INSTANCE,
            5000,
            (v, i, r) -> {
              if (i % 9 == 0) {
                v.setNull(i);
              } else {
                ((VarCharVector) v).setSafe(i, utf8("tenant-" + r.nextInt(5)));
              }
            }));
    s.add(
        shape(
            "utf8_300_1000_bytes",
            ArrowType.Utf8.INSTANCE,
            2000,
            (v, i, r) -> ((VarCharVector) v).setSafe(i, utf8(text(r, 300 + r.nextInt(700))))));
    s.add(
        shape(
            "utf8_300_1000_nulls",
            ArrowType.Utf8.INSTANCE,
            2000,
            (v, i, r) -> {
              if (i % 6 == 1) {
                v.setNull(i);
              } else {
                ((VarCharVector) v).setSafe(i, utf8(text(r, 300 + r.nextInt(700))));
              }
            }));
    s.add(
        shape(
            "utf8_random_bytes_300",
            ArrowType.Utf8.INSTANCE,
            1000,
            (v, i, r) ->
                ((VarCharVector) v).setSafe(i, utf8(randomAscii(r, 300 + r.nextInt(100))))));
    s.add(
        shape(
            "utf8_over_32k",
            ArrowType.Utf8.INSTANCE,
            40,
            (v, i, r) ->
                ((VarCharVector) v).setSafe(i, utf8(text(r, 33 * 1024 + r.nextInt(4000))))));
    s.add(
        shape(
            "utf8_empty_strings",
            ArrowType.Utf8.INSTANCE,
            5000,
            (v, i, r) -> ((VarCharVector) v).setSafe(i, utf8(i % 3 == 0 ? "" : "value-" + i))));
    s.add(shape("utf8_all_null", ArrowType.Utf8.INSTANCE, 2000, (v, i, r) -> v.setNull(i)));
    s.add(
        shape(
            "large_utf8",
            ArrowType.LargeUtf8.INSTANCE,
            5000,
            (v, i, r) -> ((LargeVarCharVector) v).setSafe(i, utf8("v" + r.nextInt()))));
    s.add(
        shape(
            "large_utf8_300_1000_nulls",
            ArrowType.LargeUtf8.INSTANCE,
            1500,
            (v, i, r) -> {
              if (i % 5 == 1) {
                v.setNull(i);
              } else {
                ((LargeVarCharVector) v).setSafe(i, utf8(text(r, 300 + r.nextInt(700))));
              }
            }));
    s.add(
        shape(
            "binary_random",
            ArrowType.Binary.INSTANCE,
            5000,
            (v, i, r) -> {
              byte[] b = new byte[r.nextInt(24)];
              r.nextBytes(b);
              ((VarBinaryVector) v).setSafe(i, b);
            }));
    s.add(new Shape("fsl_f32_128", new ArrowType.FixedSizeList(128), 3000, null, 128));
    s.add(new Shape("fsl_f32_128_nulls", new ArrowType.FixedSizeList(128), 3000, null, 128));
    s.add(new Shape("fsl_f32_16", new ArrowType.FixedSizeList(16), 5000, null, 16));
    s.add(new Shape("fsl_f32_16_nulls", new ArrowType.FixedSizeList(16), 5000, null, 16));
    s.add(new Shape("fsl_uint8_32", new ArrowType.FixedSizeList(32), 3000, null, 32));
    s.add(new Shape("fsl_f16_64_nulls", new ArrowType.FixedSizeList(64), 3000, null, 64));
    s.add(new Shape("fsl_uint8_300", new ArrowType.FixedSizeList(300), 1000, null, 300));
    s.add(
        shape(
            "uint64_random",
            new ArrowType.Int(64, false),
            3000,
            (v, i, r) -> ((UInt8Vector) v).set(i, r.nextLong())));
    s.add(
        shape(
            "uint32_small",
            new ArrowType.Int(32, false),
            3000,
            (v, i, r) -> ((UInt4Vector) v).set(i, r.nextInt(300))));
    s.add(
        shape(
            "decimal128",
            new ArrowType.Decimal(18, 3, 128),
            3000,
            (v, i, r) ->
                ((DecimalVector) v).set(i, java.math.BigDecimal.valueOf(r.nextInt(1_000_000), 3))));
    s.add(
        shape(
            "fixed_size_binary_16",
            new ArrowType.FixedSizeBinary(16),
            3000,
            (v, i, r) -> {
              byte[] b = new byte[16];
              r.nextBytes(b);
              ((FixedSizeBinaryVector) v).set(i, b);
            }));
    s.add(
        shape(
            "large_binary_nulls",
            ArrowType.LargeBinary.INSTANCE,
            3000,
            (v, i, r) -> {
              if (i % 4 == 0) {
                v.setNull(i);
              } else {
                byte[] b = new byte[r.nextInt(40)];
                r.nextBytes(b);
                ((LargeVarBinaryVector) v).setSafe(i, b);
              }
            }));
    s.add(
        shape(
            "date64",
            new ArrowType.Date(DateUnit.MILLISECOND),
            3000,
            (v, i, r) -> ((DateMilliVector) v).set(i, 1_600_000_000_000L + r.nextInt(1 << 30))));
    s.add(
        shape(
            "bool_constant",
            ArrowType.Bool.INSTANCE,
            3000,
            (v, i, r) -> ((BitVector) v).set(i, 1)));
    s.add(
        shape(
            "utf8_constant",
            ArrowType.Utf8.INSTANCE,
            3000,
            (v, i, r) -> ((VarCharVector) v).setSafe(i, utf8("same"))));
    s.add(
        shape(
            "int32_constant_nulls",
            I32,
            3000,
            (v, i, r) -> {
              if (i % 5 == 0) {
                v.setNull(i);
              } else {
                ((IntVector) v).set(i, 7);
              }
            }));
    s.add(
        shape(
            "utf8_constant_nulls",
            ArrowType.Utf8.INSTANCE,
            3000,
            (v, i, r) -> {
              if (i % 7 == 2) {
                v.setNull(i);
              } else {
                ((VarCharVector) v).setSafe(i, utf8("always"));
              }
            }));
    s.add(
        shape(
            "float16",
            new ArrowType.FloatingPoint(FloatingPointPrecision.HALF),
            3000,
            (v, i, r) -> ((Float2Vector) v).setWithPossibleTruncate(i, (float) r.nextGaussian())));
    return s;
  }

  static final String COMPRESSION = "lance-encoding:compression";
  static final String STRUCTURAL = "lance-encoding:structural-encoding";
  static final String BSS = "lance-encoding:bss";

  /**
   * Shapes whose field metadata asks Lance for encodings it does not pick by default: general
   * compression of mini-blocks and full-zip values, byte-stream-split, and forced layouts.
   */
  public static List<Shape> withEncodingHints() {
    java.util.Map<String, Shape> base = new java.util.HashMap<>();
    for (Shape sh : all()) {
      base.put(sh.name(), sh);
    }
    List<Shape> s = new ArrayList<>();
    s.add(base.get("int64_random").withMetadata("+zstd", java.util.Map.of(COMPRESSION, "zstd")));
    s.add(base.get("int64_nulls").withMetadata("+lz4", java.util.Map.of(COMPRESSION, "lz4")));
    s.add(
        base.get("int64_small_range").withMetadata("+zstd", java.util.Map.of(COMPRESSION, "zstd")));
    s.add(
        base.get("float32_full_range")
            .withMetadata("+bss+zstd", java.util.Map.of(COMPRESSION, "zstd", BSS, "on")));
    s.add(
        base.get("float64_random")
            .withMetadata("+bss+lz4", java.util.Map.of(COMPRESSION, "lz4", BSS, "on")));
    s.add(
        base.get("utf8_names_nulls").withMetadata("+zstd", java.util.Map.of(COMPRESSION, "zstd")));
    s.add(
        base.get("utf8_300_1000_nulls").withMetadata("+lz4", java.util.Map.of(COMPRESSION, "lz4")));
    s.add(
        base.get("utf8_300_1000_bytes")
            .withMetadata("+none", java.util.Map.of(COMPRESSION, "none")));
    s.add(
        base.get("int64_nulls").withMetadata("+fullzip", java.util.Map.of(STRUCTURAL, "fullzip")));
    s.add(
        base.get("int32_random").withMetadata("+fullzip", java.util.Map.of(STRUCTURAL, "fullzip")));
    s.add(
        base.get("utf8_names_nulls")
            .withMetadata("+fullzip", java.util.Map.of(STRUCTURAL, "fullzip")));
    s.add(
        base.get("fsl_f32_16_nulls")
            .withMetadata("+fullzip", java.util.Map.of(STRUCTURAL, "fullzip")));
    s.add(
        base.get("fsl_f32_128_nulls")
            .withMetadata("+miniblock", java.util.Map.of(STRUCTURAL, "miniblock")));
    s.add(
        base.get("utf8_300_1000_nulls")
            .withMetadata("+miniblock", java.util.Map.of(STRUCTURAL, "miniblock")));
    return s;
  }

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static String text(Random r, int len) {
    String[] words = {
      "lance", "arrow", "vector", "search", "column", "the", "a", "data", "file", "format", "spark",
      "über", "naïve"
    };
    StringBuilder sb = new StringBuilder(len + 10);
    while (sb.length() < len) {
      sb.append(words[r.nextInt(words.length)]).append(' ');
    }
    return sb.substring(0, len);
  }

  static String randomAscii(Random r, int len) {
    char[] c = new char[len];
    for (int i = 0; i < len; i++) {
      c[i] = (char) (33 + r.nextInt(94));
    }
    return new String(c);
  }

  /** A batch with column "c" of the shape, rows {@code [offset, offset + rows)} of its sequence. */
  public static VectorSchemaRoot batch(
      Shape shape, BufferAllocator allocator, long seed, int rows) {
    Schema schema = new Schema(List.of(shape.field("c")));
    VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
    Random r = new Random(seed);
    FieldVector v = root.getVector(0);
    if (v instanceof FixedSizeListVector fsl) {
      fillVectors(fsl, shape, rows, r);
    } else {
      v.setInitialCapacity(rows);
      v.allocateNew();
      for (int i = 0; i < rows; i++) {
        shape.filler().fill(v, i, r);
      }
      v.setValueCount(rows);
    }
    root.setRowCount(rows);
    return root;
  }

  private static void fillVectors(FixedSizeListVector v, Shape shape, int rows, Random r) {
    int dim = shape.dim();
    boolean nulls = shape.name().contains("nulls");
    v.setInitialCapacity(rows);
    v.allocateNew();
    FieldVector items = (FieldVector) v.getDataVector();
    for (int i = 0; i < rows; i++) {
      if (nulls && r.nextInt(9) == 0) {
        v.setNull(i);
        for (int j = 0; j < dim; j++) {
          items.setNull(i * dim + j);
        }
        continue;
      }
      v.setNotNull(i);
      for (int j = 0; j < dim; j++) {
        int k = i * dim + j;
        if (nulls && j == 3 && i % 13 == 0) {
          items.setNull(k);
        } else if (items instanceof Float4Vector f) {
          f.set(k, (float) r.nextGaussian());
        } else if (items instanceof Float2Vector h) {
          h.setWithPossibleTruncate(k, (float) r.nextGaussian());
        } else {
          ((UInt1Vector) items).set(k, r.nextInt(256));
        }
      }
    }
    items.setValueCount(rows * dim);
    v.setValueCount(rows);
  }
}
