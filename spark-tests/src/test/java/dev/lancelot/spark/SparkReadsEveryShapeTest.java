package dev.lancelot.spark;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancelot.engine.internal.file.NestedShapes;
import dev.lancelot.engine.internal.file.Shapes;
import dev.lancelot.engine.testing.ArrowStreams;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DateMilliVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float2Vector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.LargeVarBinaryVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every data shape of the file-format tests (flat types with each encoding Lance picks, encoding
 * hints, lists, large lists, structs, nulls at every level), written as a dataset by lance-core
 * 7.0.0 in formats 2.0, 2.1 and 2.2, read by {@code spark.read.format("lance")}: the column has the
 * documented Spark type and every row equals the Arrow data written, in order.
 */
class SparkReadsEveryShapeTest extends SharedSpark {
  static Path root;

  @BeforeAll
  static void java8Types() throws Exception {
    spark.conf().set("spark.sql.datetime.java8API.enabled", "true");
    root = Files.createTempDirectory("spark-shapes");
  }

  interface Batch {
    VectorSchemaRoot make(long seed, int rows);
  }

  /** {@code versions}: the formats lance-core can write the shape in. */
  record Case(String name, int rows, Batch batch, List<String> versions) {
    Case(String name, int rows, Batch batch) {
      this(name, rows, batch, List.of("2.0", "2.1", "2.2"));
    }

    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Arguments> cases() {
    List<Case> all = new ArrayList<>();
    List<Shapes.Shape> flat = new ArrayList<>(Shapes.all());
    flat.addAll(Shapes.withEncodingHints());
    for (Shapes.Shape s : flat) {
      all.add(new Case(s.name(), s.rows(), (seed, n) -> Shapes.batch(s, allocator, seed, n)));
    }
    for (NestedShapes.Shape s : NestedShapes.all()) {
      all.add(new Case(s.name(), s.rows(), (seed, n) -> NestedShapes.batch(s, allocator, seed, n)));
    }
    // Packed structs (one column for the whole struct) in each format lance-core writes them in,
    // and maps (format 2.2 only).
    for (NestedShapes.PackedShape p : NestedShapes.packed()) {
      NestedShapes.Shape s = p.shape();
      all.add(
          new Case(
              s.name(),
              s.rows(),
              (seed, n) -> NestedShapes.batch(s, allocator, seed, n),
              p.versions()));
    }
    for (NestedShapes.Shape s : NestedShapes.maps()) {
      all.add(
          new Case(
              s.name(),
              s.rows(),
              (seed, n) -> NestedShapes.batch(s, allocator, seed, n),
              List.of("2.2")));
    }
    List<Arguments> out = new ArrayList<>();
    for (String version : List.of("2.0", "2.1", "2.2")) {
      for (Case c : all) {
        if (c.versions().contains(version)) {
          out.add(Arguments.of(c, version));
        }
      }
    }
    return out.stream();
  }

  @ParameterizedTest(name = "{0} ({1})")
  @MethodSource("cases")
  void sparkReadsWhatLanceWrote(Case c, String version) throws Exception {
    Path dir = root.resolve(c.name().replaceAll("[^A-Za-z0-9_]", "_") + "-" + version);
    int first = c.rows() / 2 + 7;
    List<Object> expected = new ArrayList<>();
    Field field;
    try (VectorSchemaRoot a = c.batch().make(1, first);
        VectorSchemaRoot b = c.batch().make(2, c.rows() - first)) {
      field = a.getVector(0).getField();
      for (VectorSchemaRoot batch : List.of(a, b)) {
        for (int i = 0; i < batch.getRowCount(); i++) {
          expected.add(
              batch.getVector(0) instanceof MapVector map
                  ? mapEntries(map, i)
                  : arrowValue(batch.getVector(0), i, version.equals("2.0")));
        }
      }
      try (org.lance.Dataset ds =
          org.lance.Dataset.write()
              .allocator(allocator)
              .reader(ArrowStreams.readerOf(allocator, List.of(a, b)))
              .uri(dir.toString())
              .dataStorageVersion(version)
              .execute()) {
        assertThat(ds.getLanceFileFormatVersion()).isEqualTo(version);
      }
    }
    org.apache.spark.sql.Dataset<Row> df = spark.read().format("lance").load(dir.toString());
    assertThat(df.schema().apply("c").dataType())
        .as("Spark type of %s", field)
        .isEqualTo(sparkType(field));
    // A map is compared as its entries in stored order (duplicate keys included), which
    // map_entries keeps; collecting the map itself would fold duplicate keys.
    List<Row> rows =
        (field.getType() instanceof ArrowType.Map ? df.selectExpr("map_entries(c) AS c") : df)
            .collectAsList();
    List<Object> actual = new ArrayList<>(rows.size());
    for (Row r : rows) {
      actual.add(sparkValue(r.get(0)));
    }
    assertThat(actual).hasSize(expected.size());
    for (int i = 0; i < expected.size(); i++) {
      assertThat(actual.get(i)).as("row %d", i).isEqualTo(expected.get(i));
    }
  }

  /** The Spark type the connector documents for an Arrow field (docs/format-compatibility.md). */
  static DataType sparkType(Field f) {
    ArrowType t = f.getType();
    if (t instanceof ArrowType.Int i) {
      if (i.getIsSigned()) {
        return switch (i.getBitWidth()) {
          case 8 -> DataTypes.ByteType;
          case 16 -> DataTypes.ShortType;
          case 32 -> DataTypes.IntegerType;
          default -> DataTypes.LongType;
        };
      }
      return switch (i.getBitWidth()) {
        case 8 -> DataTypes.ShortType;
        case 16 -> DataTypes.IntegerType;
        case 32 -> DataTypes.LongType;
        default -> DataTypes.createDecimalType(20, 0);
      };
    }
    if (t instanceof ArrowType.FloatingPoint fp) {
      return fp.getPrecision() == FloatingPointPrecision.DOUBLE
          ? DataTypes.DoubleType
          : DataTypes.FloatType;
    }
    if (t instanceof ArrowType.Bool) {
      return DataTypes.BooleanType;
    }
    if (t instanceof ArrowType.Utf8 || t instanceof ArrowType.LargeUtf8) {
      return DataTypes.StringType;
    }
    if (t instanceof ArrowType.Binary
        || t instanceof ArrowType.LargeBinary
        || t instanceof ArrowType.FixedSizeBinary) {
      return DataTypes.BinaryType;
    }
    if (t instanceof ArrowType.Date) {
      return DataTypes.DateType;
    }
    if (t instanceof ArrowType.Timestamp ts) {
      return ts.getTimezone() == null ? DataTypes.TimestampNTZType : DataTypes.TimestampType;
    }
    if (t instanceof ArrowType.Decimal d) {
      return DataTypes.createDecimalType(d.getPrecision(), d.getScale());
    }
    if (t instanceof ArrowType.FixedSizeList
        || t instanceof ArrowType.List
        || t instanceof ArrowType.LargeList) {
      Field item = f.getChildren().get(0);
      return DataTypes.createArrayType(sparkType(item), item.isNullable());
    }
    if (t instanceof ArrowType.Map) {
      Field entries = f.getChildren().get(0);
      Field value = entries.getChildren().get(1);
      return DataTypes.createMapType(
          sparkType(entries.getChildren().get(0)), sparkType(value), value.isNullable());
    }
    if (t instanceof ArrowType.Struct) {
      List<StructField> fields = new ArrayList<>();
      for (Field c : f.getChildren()) {
        fields.add(
            c.getType() instanceof ArrowType.FixedSizeList l
                ? DataTypes.createStructField(
                    c.getName(),
                    sparkType(c),
                    c.isNullable(),
                    new org.apache.spark.sql.types.MetadataBuilder()
                        .putLong("arrow.fixed-size-list.size", l.getListSize())
                        .build())
                : DataTypes.createStructField(c.getName(), sparkType(c), c.isNullable()));
      }
      return DataTypes.createStructType(fields);
    }
    throw new AssertionError("no documented Spark type for " + t);
  }

  /**
   * Row {@code i} of an Arrow vector as the Java value Spark should return (java8 date/time API),
   * normalized: lists as lists, structs as name-value maps, binary as text. Format 2.0 cannot store
   * null structs, so a null struct is expected back as a struct of nulls.
   */
  static Object arrowValue(FieldVector v, int i, boolean v20) {
    if (v.isNull(i)) {
      if (v20 && v instanceof StructVector s) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (FieldVector c : s.getChildrenFromFields()) {
          m.put(c.getName(), c instanceof StructVector ? arrowValue(c, i, true) : null);
        }
        return m;
      }
      return null;
    }
    if (v instanceof UInt1Vector u) {
      return (long) (u.get(i) & 0xFF);
    }
    if (v instanceof UInt4Vector u) {
      return u.get(i) & 0xFFFFFFFFL;
    }
    if (v instanceof UInt8Vector u) {
      return new BigInteger(Long.toUnsignedString(u.get(i)));
    }
    if (v instanceof BaseIntVector ints && !(v instanceof BitVector)) {
      return ints.getValueAsLong(i);
    }
    if (v instanceof BitVector b) {
      return b.get(i) != 0;
    }
    if (v instanceof Float2Vector h) {
      return h.getValueAsFloat(i);
    }
    if (v instanceof Float4Vector f) {
      return f.get(i);
    }
    if (v instanceof Float8Vector d) {
      return d.get(i);
    }
    if (v instanceof VarCharVector || v instanceof LargeVarCharVector) {
      return v.getObject(i).toString();
    }
    if (v instanceof VarBinaryVector
        || v instanceof LargeVarBinaryVector
        || v instanceof FixedSizeBinaryVector) {
      return "bytes:" + Arrays.toString((byte[]) v.getObject(i));
    }
    if (v instanceof DateDayVector d) {
      return LocalDate.ofEpochDay(d.get(i));
    }
    if (v instanceof DateMilliVector d) {
      return LocalDate.ofEpochDay(Math.floorDiv(d.get(i), 86_400_000L));
    }
    if (v instanceof TimeStampMicroTZVector ts) {
      long us = ts.get(i);
      return Instant.ofEpochSecond(
          Math.floorDiv(us, 1_000_000L), Math.floorMod(us, 1_000_000L) * 1000);
    }
    if (v instanceof DecimalVector d) {
      return d.getObject(i).stripTrailingZeros();
    }
    if (v instanceof FixedSizeListVector fsl) {
      int n = fsl.getListSize();
      List<Object> out = new ArrayList<>(n);
      for (int k = 0; k < n; k++) {
        out.add(arrowValue((FieldVector) fsl.getDataVector(), i * n + k, v20));
      }
      return out;
    }
    if (v instanceof MapVector map) {
      // A map inside another value reaches a Spark Row as a Scala map: duplicate keys folded (the
      // last wins) and, past four entries, in no particular order; compared as that.
      StructVector entries = (StructVector) map.getDataVector();
      Map<String, Object> m = new java.util.TreeMap<>();
      for (int k = map.getElementStartIndex(i); k < map.getElementEndIndex(i); k++) {
        m.put(
            String.valueOf(arrowValue((FieldVector) entries.getChildByOrdinal(0), k, v20)),
            arrowValue((FieldVector) entries.getChildByOrdinal(1), k, v20));
      }
      return m;
    }
    if (v instanceof ListVector list) {
      List<Object> out = new ArrayList<>();
      for (int k = list.getElementStartIndex(i); k < list.getElementEndIndex(i); k++) {
        out.add(arrowValue(list.getDataVector(), k, v20));
      }
      return out;
    }
    if (v instanceof LargeListVector list) {
      List<Object> out = new ArrayList<>();
      for (long k = list.getElementStartIndex(i); k < list.getElementEndIndex(i); k++) {
        out.add(arrowValue(list.getDataVector(), (int) k, v20));
      }
      return out;
    }
    if (v instanceof StructVector s) {
      Map<String, Object> m = new LinkedHashMap<>();
      for (FieldVector c : s.getChildrenFromFields()) {
        m.put(c.getName(), arrowValue(c, i, v20));
      }
      return m;
    }
    throw new AssertionError("unexpected vector " + v.getClass().getSimpleName());
  }

  /**
   * A top-level map row as {@code map_entries} returns it: its entries in stored order, duplicate
   * keys included.
   */
  static Object mapEntries(MapVector map, int i) {
    if (map.isNull(i)) {
      return null;
    }
    List<Object> out = new ArrayList<>();
    for (int k = map.getElementStartIndex(i); k < map.getElementEndIndex(i); k++) {
      out.add(arrowValue(map.getDataVector(), k, false));
    }
    return out;
  }

  /** A Spark value in the form of {@link #arrowValue}. */
  static Object sparkValue(Object o) {
    if (o == null) {
      return null;
    }
    if (o instanceof Byte || o instanceof Short || o instanceof Integer || o instanceof Long) {
      return ((Number) o).longValue();
    }
    if (o instanceof BigDecimal d) {
      return d.scale() == 0
          ? d.toBigIntegerExact()
          : d.stripTrailingZeros(); // decimal(20,0): uint64
    }
    if (o instanceof byte[] b) {
      return "bytes:" + Arrays.toString(b);
    }
    if (o instanceof scala.collection.Seq<?> seq) {
      List<Object> out = new ArrayList<>(seq.size());
      for (Object x : scala.jdk.javaapi.CollectionConverters.asJava(seq)) {
        out.add(sparkValue(x));
      }
      return out;
    }
    if (o instanceof scala.collection.Map<?, ?> map) {
      Map<String, Object> m = new java.util.TreeMap<>();
      scala.jdk.javaapi.CollectionConverters.asJava(map)
          .forEach((k, val) -> m.put(String.valueOf(sparkValue(k)), sparkValue(val)));
      return m;
    }
    if (o instanceof Row r) {
      Map<String, Object> m = new LinkedHashMap<>();
      StructType schema = r.schema();
      for (int k = 0; k < r.length(); k++) {
        m.put(schema.fields()[k].name(), sparkValue(r.get(k)));
      }
      return m;
    }
    return o;
  }
}
