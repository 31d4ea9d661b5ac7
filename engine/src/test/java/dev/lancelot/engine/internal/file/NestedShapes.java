package dev.lancelot.engine.internal.file;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Function;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Nested column shapes (lists, structs, both, with nulls at every level and empty lists) that make
 * Lance use each layout for nested data: mini-block with repetition index (rows spanning chunks),
 * full-zip with repetition levels, complex all-null pages. Each fills one column "c" from a seeded
 * row generator returning Java values (see {@link ArrowFill}).
 */
public final class NestedShapes {
  private NestedShapes() {}

  /** A shape: {@code row} gives row {@code i}'s value from the seeded random stream. */
  public record Shape(
      String name,
      Field field,
      int rows,
      java.util.function.BiFunction<Integer, Random, Object> row) {
    Shape(String name, Field field, int rows, Function<Random, Object> row) {
      this(name, field, rows, (i, r) -> row.apply(r));
    }

    Field field(String column) {
      return new Field(column, field.getFieldType(), field.getChildren());
    }

    @Override
    public String toString() {
      return name;
    }
  }

  static final ArrowType I32 = new ArrowType.Int(32, true);
  static final ArrowType U32 = new ArrowType.Int(32, false);
  static final ArrowType I64 = new ArrowType.Int(64, true);
  static final ArrowType F32 = new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
  static final ArrowType F64 = new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
  static final ArrowType UTF8 = ArrowType.Utf8.INSTANCE;

  static Field f(String name, ArrowType type, Field... children) {
    return new Field(
        name, FieldType.nullable(type), children.length == 0 ? null : List.of(children));
  }

  static Field list(Field item) {
    return f("c", ArrowType.List.INSTANCE, item);
  }

  static Field item(ArrowType type, Field... children) {
    return f("item", type, children);
  }

  /**
   * A list of {@code n} values from {@code gen}, or null / empty with the given odds (in 1/100).
   */
  static Object listOf(
      Random r, int maxLen, int nullPct, int emptyPct, Function<Random, Object> gen) {
    int p = r.nextInt(100);
    if (p < nullPct) {
      return null;
    }
    if (p < nullPct + emptyPct) {
      return List.of();
    }
    int n = 1 + r.nextInt(maxLen);
    List<Object> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      out.add(gen.apply(r));
    }
    return out;
  }

  static Function<Random, Object> nullable(int nullPct, Function<Random, Object> gen) {
    return r -> r.nextInt(100) < nullPct ? null : gen.apply(r);
  }

  static Map<String, Object> struct(Object... kv) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put((String) kv[i], kv[i + 1]);
    }
    return m;
  }

  public static List<Shape> all() {
    List<Shape> s = new ArrayList<>();
    s.add(
        new Shape(
            "list_int32_nulls_empties",
            list(item(I32)),
            3000,
            r -> listOf(r, 6, 10, 10, nullable(10, x -> x.nextInt(1000) - 500))));
    s.add(
        new Shape(
            "list_int64_plain", list(item(I64)), 3000, r -> listOf(r, 5, 0, 0, x -> x.nextLong())));
    s.add(
        new Shape(
            "list_uint32_neighbors",
            list(item(U32)),
            2000,
            r -> listOf(r, 40, 0, 2, x -> (long) x.nextInt(100_000))));
    s.add(
        new Shape(
            "list_uint32_long_rows",
            list(item(U32)),
            60,
            r -> listOf(r, 6000, 5, 5, x -> (long) x.nextInt(1 << 20))));
    s.add(
        new Shape(
            "list_float32", list(item(F32)), 2000, r -> listOf(r, 20, 3, 3, x -> x.nextFloat())));
    s.add(new Shape("list_int64_runs", list(item(I64)), 3000, r -> listOf(r, 8, 0, 0, x -> 7L)));
    s.add(
        new Shape(
            "list_bool",
            list(item(ArrowType.Bool.INSTANCE)),
            2000,
            r -> listOf(r, 9, 5, 5, nullable(5, x -> x.nextBoolean()))));
    s.add(
        new Shape(
            "list_utf8",
            list(item(UTF8)),
            2000,
            r -> listOf(r, 5, 8, 8, nullable(8, x -> "w" + x.nextInt(100000)))));
    s.add(
        new Shape(
            "list_utf8_low_cardinality",
            list(item(UTF8)),
            3000,
            r -> listOf(r, 5, 2, 2, x -> "tag-" + x.nextInt(6))));
    s.add(
        new Shape(
            "list_utf8_300_1000",
            list(item(UTF8)),
            300,
            r -> listOf(r, 4, 10, 10, nullable(10, x -> Shapes.text(x, 300 + x.nextInt(700))))));
    s.add(
        new Shape(
            "large_list_int64",
            f("c", ArrowType.LargeList.INSTANCE, item(I64)),
            2000,
            r -> listOf(r, 6, 10, 10, nullable(5, x -> (long) x.nextInt()))));
    s.add(
        new Shape(
            "list_fsl_f32_8",
            list(item(new ArrowType.FixedSizeList(8), item(F32))),
            1500,
            r -> listOf(r, 4, 5, 5, nullable(5, NestedShapes::vector8))));
    s.add(
        new Shape(
            "list_fsl_f32_128",
            list(item(new ArrowType.FixedSizeList(128), item(F32))),
            300,
            r -> listOf(r, 3, 10, 10, nullable(10, x -> vector(x, 128)))));
    s.add(
        new Shape(
            "list_list_int32",
            list(item(ArrowType.List.INSTANCE, item(I32))),
            2000,
            r -> listOf(r, 4, 8, 8, x -> listOf(x, 3, 10, 10, nullable(10, y -> y.nextInt(50))))));
    s.add(new Shape("list_all_null", list(item(I32)), 2000, r -> null));
    s.add(new Shape("list_all_empty", list(item(I32)), 2000, r -> List.of()));
    s.add(
        new Shape(
            "list_empty_or_null", list(item(UTF8)), 2000, r -> r.nextBoolean() ? null : List.of()));
    // long runs of rows without values between rows with values (all-null pages between others)
    s.add(
        new Shape(
            "list_long_null_runs",
            list(item(I64)),
            9000,
            (i, r) ->
                (i / 1500) % 2 == 0
                    ? (i % 3 == 0 ? null : List.of())
                    : listOf(r, 3, 20, 20, x -> (long) x.nextInt(9))));
    s.add(
        new Shape(
            "struct_primitives",
            f("c", ArrowType.Struct.INSTANCE, f("a", I32), f("b", UTF8), f("d", F64)),
            3000,
            r ->
                r.nextInt(10) == 0
                    ? null
                    : struct(
                        "a",
                        r.nextInt(5) == 0 ? null : r.nextInt(),
                        "b",
                        r.nextInt(7) == 0 ? null : "b" + r.nextInt(1000),
                        "d",
                        r.nextGaussian())));
    s.add(
        new Shape(
            "struct_no_nulls",
            f("c", ArrowType.Struct.INSTANCE, f("a", I64), f("b", F32)),
            3000,
            r -> struct("a", r.nextLong(), "b", r.nextFloat())));
    s.add(
        new Shape(
            "struct_nested",
            f(
                "c",
                ArrowType.Struct.INSTANCE,
                f("x", I64),
                f("inner", ArrowType.Struct.INSTANCE, f("y", F32), f("z", UTF8))),
            2000,
            r ->
                r.nextInt(12) == 0
                    ? null
                    : struct(
                        "x",
                        (long) r.nextInt(100),
                        "inner",
                        r.nextInt(8) == 0
                            ? null
                            : struct(
                                "y",
                                r.nextInt(6) == 0 ? null : r.nextFloat(),
                                "z",
                                "z" + r.nextInt(30)))));
    s.add(
        new Shape(
            "struct_all_null", f("c", ArrowType.Struct.INSTANCE, f("a", I32)), 2000, r -> null));
    s.add(
        new Shape(
            "list_struct",
            list(item(ArrowType.Struct.INSTANCE, f("a", I32), f("b", UTF8))),
            2000,
            r ->
                listOf(
                    r,
                    4,
                    8,
                    8,
                    nullable(
                        8,
                        x ->
                            struct(
                                "a",
                                x.nextInt(6) == 0 ? null : x.nextInt(100),
                                "b",
                                "s" + x.nextInt(500))))));
    s.add(
        new Shape(
            "struct_list",
            f(
                "c",
                ArrowType.Struct.INSTANCE,
                f("tags", ArrowType.List.INSTANCE, item(UTF8)),
                f("n", I32)),
            2000,
            r ->
                r.nextInt(10) == 0
                    ? null
                    : struct(
                        "tags",
                        listOf(r, 4, 10, 10, x -> "t" + x.nextInt(40)),
                        "n",
                        r.nextInt(9) == 0 ? null : r.nextInt())));
    return s;
  }

  /**
   * A shape of packed structs, the file formats lance-core 7.0.0 writes it in, and whether
   * lance-core reads those files back.
   */
  public record PackedShape(Shape shape, List<String> versions, boolean lanceReadsBack) {
    PackedShape(Shape shape, List<String> versions) {
      this(shape, versions, true);
    }

    @Override
    public String toString() {
      return shape.name();
    }
  }

  /** A struct marked packed with {@code key} = "true". */
  static Field packed(String name, String key, Field... members) {
    return new Field(
        name,
        new org.apache.arrow.vector.types.pojo.FieldType(
            true, ArrowType.Struct.INSTANCE, null, Map.of(key, "true")),
        List.of(members));
  }

  static Field packed(String name, Field... members) {
    return packed(name, "packed", members);
  }

  /**
   * Packed structs (field metadata {@code packed} or {@code lance-encoding:packed} = "true"): Lance
   * stores each in one column, as a 2.0 {@code PackedStruct} page, a 2.1/2.2 mini-block {@code
   * PackedStruct} when every member is fixed-width, or a 2.2 full-zip {@code VariablePackedStruct}
   * otherwise. lance-core 7.0.0 writes no nulls in them (it fails, or aborts the process, on a null
   * struct or member) and only some member types per format, so each shape lists the formats it can
   * be written in; lists of packed structs may be null or empty.
   */
  public static List<PackedShape> packed() {
    List<PackedShape> s = new ArrayList<>();
    List<String> all = List.of("2.0", "2.1", "2.2");
    s.add(
        new PackedShape(
            new Shape(
                "packed_fixed",
                packed("c", f("a", I32), f("b", F64), f("n", I64)),
                3000,
                r -> struct("a", r.nextInt(), "b", r.nextGaussian(), "n", r.nextLong())),
            all));
    s.add(
        new PackedShape(
            new Shape(
                "packed_small_members",
                packed(
                    "c",
                    "lance-encoding:packed",
                    f("x", new ArrowType.Int(16, true)),
                    f("y", F32),
                    f("z", new ArrowType.Int(8, false))),
                3000,
                r ->
                    struct(
                        "x",
                        (short) r.nextInt(1 << 16),
                        "y",
                        r.nextFloat(),
                        "z",
                        (short) r.nextInt(256))),
            all));
    s.add(
        new PackedShape(
            new Shape(
                "packed_many_rows",
                packed("c", f("a", I64), f("b", I64)),
                100_000,
                (i, r) -> struct("a", (long) i, "b", r.nextLong())),
            all));
    s.add(
        new PackedShape(
            new Shape(
                "packed_fsl",
                packed("c", f("id", I32), f("v", new ArrowType.FixedSizeList(4), item(F32))),
                3000,
                r -> struct("id", r.nextInt(), "v", vector(r, 4))),
            List.of("2.0", "2.2")));
    s.add(
        new PackedShape(
            new Shape(
                "packed_nested_struct",
                packed(
                    "c",
                    f("a", I32),
                    f("inner", ArrowType.Struct.INSTANCE, f("x", I64), f("y", F32))),
                3000,
                r ->
                    struct(
                        "a", r.nextInt(), "inner", struct("x", r.nextLong(), "y", r.nextFloat()))),
            List.of("2.0"),
            false)); // lance-core's 2.0 reader panics on the inner struct ("fixed stride" expected)
    s.add(
        new PackedShape(
            new Shape(
                "packed_utf8",
                packed("c", f("a", I32), f("s", UTF8)),
                3000,
                r -> struct("a", r.nextInt(), "s", r.nextInt(9) == 0 ? "" : "s" + r.nextInt(1000))),
            List.of("2.2")));
    s.add(
        new PackedShape(
            new Shape(
                "packed_large_utf8_binary",
                packed(
                    "c",
                    f("n", I64),
                    f("s", ArrowType.LargeUtf8.INSTANCE),
                    f("bin", ArrowType.Binary.INSTANCE)),
                3000,
                r ->
                    struct(
                        "n",
                        r.nextLong(),
                        "s",
                        "large-" + r.nextInt(100_000),
                        "bin",
                        Shapes.utf8("b" + r.nextInt(50)))),
            List.of("2.2")));
    s.add(
        new PackedShape(
            new Shape(
                "packed_long_text",
                packed("c", f("a", I32), f("text", UTF8)),
                40,
                r -> struct("a", r.nextInt(), "text", Shapes.text(r, 40_000 + r.nextInt(1000)))),
            List.of("2.2")));
    s.add(
        new PackedShape(
            new Shape(
                "struct_with_packed",
                f(
                    "c",
                    ArrowType.Struct.INSTANCE,
                    f("x", I32),
                    packed("p", f("a", I32), f("b", F64)),
                    f("y", UTF8)),
                3000,
                (i, r) ->
                    struct(
                        "x",
                        i,
                        "p",
                        struct("a", r.nextInt(), "b", r.nextGaussian()),
                        "y",
                        "y" + r.nextInt(100))),
            all));
    s.add(
        new PackedShape(
            new Shape(
                "list_packed",
                list(packed("item", f("a", I32), f("b", F64))),
                3000,
                r -> listOf(r, 4, 10, 10, x -> struct("a", x.nextInt(), "b", x.nextGaussian()))),
            all));
    s.add(
        new PackedShape(
            new Shape(
                "list_packed_utf8",
                list(packed("item", f("a", I32), f("s", UTF8))),
                3000,
                r -> listOf(r, 4, 10, 10, x -> struct("a", x.nextInt(), "s", "t" + x.nextInt(99)))),
            List.of("2.2")));
    return s;
  }

  /** A map field (keys not sorted) with entries {@code key} (not null) and {@code value}. */
  static Field map(String name, ArrowType key, Field value) {
    Field entries =
        new Field(
            "entries",
            org.apache.arrow.vector.types.pojo.FieldType.notNullable(ArrowType.Struct.INSTANCE),
            List.of(
                new Field(
                    "key", org.apache.arrow.vector.types.pojo.FieldType.notNullable(key), null),
                value));
    return new Field(
        name,
        org.apache.arrow.vector.types.pojo.FieldType.nullable(new ArrowType.Map(false)),
        List.of(entries));
  }

  /**
   * Entries of a map value: {@code n} entries with keys from {@code key} and values from {@code
   * value}.
   */
  static Object mapOf(
      Random r,
      int maxLen,
      int nullPct,
      int emptyPct,
      Function<Random, Object> key,
      Function<Random, Object> value) {
    return listOf(
        r, maxLen, nullPct, emptyPct, x -> struct("key", key.apply(x), "value", value.apply(x)));
  }

  /**
   * Map columns (Arrow Map, keys not sorted), which lance-core 7.0.0 writes in format 2.2 only (2.1
   * refuses them, 2.0 aborts): stored as a list of entry structs, one column per key and value
   * leaf. Null maps, empty maps and null values.
   */
  public static List<Shape> maps() {
    List<Shape> s = new ArrayList<>();
    s.add(
        new Shape(
            "map_utf8_int32",
            map("c", UTF8, f("value", I32)),
            3000,
            r ->
                mapOf(r, 5, 10, 10, x -> "k" + x.nextInt(50), nullable(15, x -> x.nextInt(1000)))));
    s.add(
        new Shape(
            "map_int64_utf8_long_rows",
            map("c", I64, f("value", UTF8)),
            1000,
            r ->
                mapOf(r, 60, 5, 5, x -> x.nextLong(), nullable(5, x -> "v" + x.nextInt(100_000)))));
    s.add(
        new Shape(
            "map_struct_values",
            map("c", UTF8, f("value", ArrowType.Struct.INSTANCE, f("a", I32), f("b", UTF8))),
            2000,
            r ->
                mapOf(
                    r,
                    4,
                    8,
                    8,
                    x -> "k" + x.nextInt(20),
                    nullable(
                        10,
                        x ->
                            struct(
                                "a",
                                x.nextInt(5) == 0 ? null : x.nextInt(100),
                                "b",
                                "b" + x.nextInt(30))))));
    s.add(
        new Shape(
            "struct_map",
            f("c", ArrowType.Struct.INSTANCE, f("id", I32), map("m", UTF8, f("value", F64))),
            2000,
            r ->
                r.nextInt(10) == 0
                    ? null
                    : struct(
                        "id",
                        r.nextInt(),
                        "m",
                        mapOf(r, 3, 10, 10, x -> "k" + x.nextInt(9), x -> x.nextGaussian()))));
    s.add(
        new Shape(
            "list_map",
            list(map("item", UTF8, f("value", I32))),
            2000,
            r ->
                listOf(
                    r,
                    3,
                    8,
                    8,
                    x -> mapOf(x, 3, 10, 10, y -> "k" + y.nextInt(9), y -> y.nextInt(50)))));
    return s;
  }

  static List<Object> vector8(Random r) {
    return vector(r, 8);
  }

  static List<Object> vector(Random r, int dim) {
    Float[] v = new Float[dim];
    for (int i = 0; i < dim; i++) {
      v[i] = (float) r.nextGaussian();
    }
    return Arrays.asList(v);
  }

  /** A batch with column "c" holding {@code rows} rows of the shape from {@code seed}. */
  public static VectorSchemaRoot batch(
      Shape shape, BufferAllocator allocator, long seed, int rows) {
    VectorSchemaRoot root =
        VectorSchemaRoot.create(new Schema(List.of(shape.field("c"))), allocator);
    Random r = new Random(seed);
    FieldVector v = root.getVector(0);
    v.allocateNew();
    for (int i = 0; i < rows; i++) {
      ArrowFill.set(v, i, shape.row().apply(i, r));
    }
    root.setRowCount(rows);
    return root;
  }
}
