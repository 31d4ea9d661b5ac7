package dev.lancelot.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.CloseableIterator;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.SchemaMismatchException;
import dev.lancelot.engine.testing.LanceOracle;
import dev.lancelot.engine.testing.Rows;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.arrow.memory.util.Float16;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DateMilliVector;
import org.apache.arrow.vector.Decimal256Vector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float2Vector;
import org.apache.arrow.vector.LargeVarBinaryVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.UInt2Vector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.SparkException;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.lance.WriteParams;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;

/**
 * A dataset lance-core wrote with column types Spark has no exact type for (unsigned integers,
 * float16, large string/binary/list, fixed_size_binary, timestamps in s/ms/ns with and without
 * zone, date64, decimal256, a vector of float16): Spark appends, INSERTs, UPDATEs, DELETEs and
 * MERGEs into it, and afterwards lance-core and lancelot read the same values, with the dataset's
 * Arrow schema unchanged. Values a column cannot hold fail the statement naming column and value,
 * with nothing committed; columns the writer cannot produce are refused before any task runs.
 */
class SparkDatasetTypesTest extends SharedSpark {
  static final List<String> COLUMNS =
      List.of(
          "id",
          "u8",
          "u16",
          "u32",
          "u64",
          "f16",
          "ls",
          "lb",
          "fsb",
          "ll",
          "ts_s",
          "ts_ms",
          "ts_ns",
          "ts_ms_ntz",
          "d64",
          "dec",
          "v16");
  static Path root;

  @BeforeAll
  static void rootTheCatalog() throws Exception {
    root = Files.createTempDirectory("lance-wtypes");
    spark.conf().set("spark.sql.catalog.lance.root", root.toString());
    spark.sql("CREATE NAMESPACE lance.wt");
  }

  private static Field f(String name, ArrowType type, Field... children) {
    return new Field(name, FieldType.nullable(type), List.of(children));
  }

  static Schema schema() {
    return new Schema(
        List.of(
            new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
            f("u8", new ArrowType.Int(8, false)),
            f("u16", new ArrowType.Int(16, false)),
            f("u32", new ArrowType.Int(32, false)),
            f("u64", new ArrowType.Int(64, false)),
            f("f16", new ArrowType.FloatingPoint(FloatingPointPrecision.HALF)),
            f("ls", ArrowType.LargeUtf8.INSTANCE),
            f("lb", ArrowType.LargeBinary.INSTANCE),
            f("fsb", new ArrowType.FixedSizeBinary(16)),
            f("ll", ArrowType.LargeList.INSTANCE, f("item", new ArrowType.Int(64, true))),
            f("ts_s", new ArrowType.Timestamp(TimeUnit.SECOND, "UTC")),
            f("ts_ms", new ArrowType.Timestamp(TimeUnit.MILLISECOND, "America/New_York")),
            f("ts_ns", new ArrowType.Timestamp(TimeUnit.NANOSECOND, null)),
            f("ts_ms_ntz", new ArrowType.Timestamp(TimeUnit.MILLISECOND, null)),
            f("d64", new ArrowType.Date(DateUnit.MILLISECOND)),
            f("dec", new ArrowType.Decimal(30, 4, 256)),
            f(
                "v16",
                new ArrowType.FixedSizeList(2),
                f("item", new ArrowType.FloatingPoint(FloatingPointPrecision.HALF)))));
  }

  static long micros(String instant) {
    Instant i = Instant.parse(instant);
    return i.getEpochSecond() * 1_000_000L + i.getNano() / 1000;
  }

  static String hex(int... bytes) {
    byte[] b = new byte[bytes.length];
    for (int i = 0; i < b.length; i++) {
      b[i] = (byte) bytes[i];
    }
    return HexFormat.of().formatHex(b);
  }

  static String sixteen(int first) {
    int[] b = new int[16];
    for (int i = 0; i < 16; i++) {
      b[i] = first + i;
    }
    return hex(b);
  }

  /**
   * A row as Spark sees it: ids and longs as Long, u8 Short, u16 Integer, u32 Long, u64 and dec
   * BigDecimal, f16 Float, strings, binaries as hex, ll a list of Long, timestamps as microseconds
   * since the epoch (wall clock for those without zone), d64 as days since the epoch.
   */
  static List<Object> row(Object... values) {
    assertThat(values).hasSize(COLUMNS.size());
    return Arrays.asList(values);
  }

  static List<Object> nullRow(long id) {
    Object[] values = new Object[COLUMNS.size()];
    values[0] = id;
    return Arrays.asList(values);
  }

  static final long DAY_MS = 86_400_000L;

  /** The rows lance-core writes first; two carry digits Spark types cannot hold (ns and time). */
  static final List<Object> ROW1 =
      row(
          1L,
          (short) 255,
          65_535,
          4_294_967_295L,
          new BigDecimal("18446744073709551615"),
          65_504f,
          "ünïcode large",
          hex(0, 1, 2, 255),
          sixteen(0),
          Arrays.asList(1L, null, 3L),
          micros("2026-12-04T10:11:12Z"),
          micros("2026-12-04T10:11:12.345Z"),
          micros("2026-12-04T10:11:12.345678Z"),
          micros("2026-12-04T10:11:12.345Z"),
          LocalDate.of(2026, 12, 4).toEpochDay(),
          new BigDecimal("12345678901234567890123456.7890"),
          List.of(65_504f, -0.5f));

  static final List<Object> ROW2 =
      row(
          2L,
          (short) 0,
          0,
          0L,
          new BigDecimal("0"),
          -1.5f,
          "",
          "",
          sixteen(100),
          List.of(),
          micros("1969-12-31T23:59:59Z"),
          micros("1969-12-31T23:59:59.999Z"),
          micros("1969-12-31T23:59:59.999999Z"),
          micros("1969-12-31T23:59:59.999Z"),
          LocalDate.of(1969, 12, 31).toEpochDay(),
          new BigDecimal("-0.0001"),
          List.of(0f, 1f));

  static final List<Object> ROW3 =
      row(
          3L,
          (short) 7,
          300,
          70_000L,
          new BigDecimal("9223372036854775808"),
          0.5f,
          "three",
          hex(3),
          sixteen(3),
          List.of(3L),
          micros("2000-01-01T00:00:00Z"),
          micros("2000-01-01T00:00:00.001Z"),
          micros("2000-01-01T00:00:00.000001Z"),
          micros("2000-01-01T00:00:00.001Z"),
          LocalDate.of(2000, 1, 1).toEpochDay(),
          new BigDecimal("3.0000"),
          List.of(0.25f, 2f));

  /** Sub-microsecond nanoseconds of ROW1's and ROW2's ts_ns, time of day of their d64. */
  static final long ROW1_EXTRA_NANOS = 789;

  static final long ROW2_EXTRA_NANOS = 999;
  static final long ROW1_D64_TIME_MS = 12 * 3_600_000L;
  static final long ROW2_D64_TIME_MS = DAY_MS - 60_000L;

  static VectorSchemaRoot lanceBatch(List<List<Object>> rows) {
    VectorSchemaRoot batch = VectorSchemaRoot.create(schema(), allocator);
    batch.allocateNew();
    for (int r = 0; r < rows.size(); r++) {
      for (int c = 0; c < COLUMNS.size(); c++) {
        set(batch.getVector(c), r, rows.get(r).get(c));
      }
    }
    for (FieldVector v : batch.getFieldVectors()) {
      v.setValueCount(rows.size());
    }
    batch.setRowCount(rows.size());
    return batch;
  }

  /** Sets a Spark-view value into an Arrow vector of the dataset's type (the oracle's input). */
  static void set(FieldVector v, int i, Object value) {
    if (value == null) {
      v.setNull(i);
    } else if (v instanceof BigIntVector b) {
      b.setSafe(i, (Long) value);
    } else if (v instanceof UInt1Vector u) {
      u.setSafe(i, (byte) (short) (Short) value);
    } else if (v instanceof UInt2Vector u) {
      u.setSafe(i, (char) (int) (Integer) value);
    } else if (v instanceof UInt4Vector u) {
      u.setSafe(i, (int) (long) (Long) value);
    } else if (v instanceof UInt8Vector u) {
      u.setSafe(i, ((BigDecimal) value).toBigIntegerExact().longValue());
    } else if (v instanceof Float2Vector h) {
      h.setSafe(i, Float16.toFloat16((Float) value));
    } else if (v instanceof LargeVarCharVector s) {
      s.setSafe(i, ((String) value).getBytes(StandardCharsets.UTF_8));
    } else if (v instanceof LargeVarBinaryVector b) {
      b.setSafe(i, HexFormat.of().parseHex((String) value));
    } else if (v instanceof FixedSizeBinaryVector b) {
      b.setSafe(i, HexFormat.of().parseHex((String) value));
    } else if (v instanceof LargeListVector l) {
      BigIntVector items = (BigIntVector) l.getDataVector();
      List<?> list = (List<?>) value;
      int start = Math.toIntExact(l.startNewValue(i));
      for (int e = 0; e < list.size(); e++) {
        set(items, start + e, list.get(e));
      }
      items.setValueCount(start + list.size());
      l.endValue(i, list.size());
    } else if (v instanceof TimeStampVector t) {
      long micros = (Long) value;
      TimeUnit unit = ((ArrowType.Timestamp) t.getField().getType()).getUnit();
      t.setSafe(
          i,
          switch (unit) {
            case SECOND -> Math.floorDiv(micros, 1_000_000L);
            case MILLISECOND -> Math.floorDiv(micros, 1000L);
            case MICROSECOND -> micros;
            case NANOSECOND -> micros * 1000;
          });
    } else if (v instanceof DateMilliVector d) {
      d.setSafe(i, (Long) value * DAY_MS);
    } else if (v instanceof Decimal256Vector d) {
      d.setSafe(i, (BigDecimal) value);
    } else if (v instanceof FixedSizeListVector l) {
      List<?> list = (List<?>) value;
      l.setNotNull(i);
      for (int e = 0; e < list.size(); e++) {
        set(l.getDataVector(), i * l.getListSize() + e, list.get(e));
      }
      l.getDataVector().setValueCount((i + 1) * l.getListSize());
    } else {
      throw new IllegalArgumentException(v.getClass().getSimpleName());
    }
  }

  /** An Arrow value (as lance-core or lancelot's engine reads it) in the Spark view of row(). */
  static Object view(FieldVector v, int i) {
    if (v.isNull(i)) {
      return null;
    } else if (v instanceof UInt1Vector u) {
      return (short) Byte.toUnsignedInt(u.get(i));
    } else if (v instanceof UInt2Vector u) {
      return (int) u.get(i);
    } else if (v instanceof UInt4Vector u) {
      return Integer.toUnsignedLong(u.get(i));
    } else if (v instanceof UInt8Vector u) {
      return new BigDecimal(new BigInteger(Long.toUnsignedString(u.get(i))));
    } else if (v instanceof Float2Vector h) {
      return h.getValueAsFloat(i);
    } else if (v instanceof LargeVarCharVector s) {
      return new String(s.get(i), StandardCharsets.UTF_8);
    } else if (v instanceof LargeVarBinaryVector b) {
      return HexFormat.of().formatHex(b.get(i));
    } else if (v instanceof FixedSizeBinaryVector b) {
      return HexFormat.of().formatHex(b.get(i));
    } else if (v instanceof LargeListVector l) {
      return new ArrayList<>(l.getObject(i));
    } else if (v instanceof TimeStampVector t) {
      long raw = t.get(i);
      return switch (((ArrowType.Timestamp) t.getField().getType()).getUnit()) {
        case SECOND -> raw * 1_000_000L;
        case MILLISECOND -> raw * 1000L;
        case MICROSECOND -> raw;
        case NANOSECOND -> Math.floorDiv(raw, 1000L);
      };
    } else if (v instanceof DateMilliVector d) {
      return Math.floorDiv(d.get(i), DAY_MS);
    } else if (v instanceof FixedSizeListVector l) {
      List<Object> out = new ArrayList<>();
      for (int e = 0; e < l.getListSize(); e++) {
        out.add(view(l.getDataVector(), i * l.getListSize() + e));
      }
      return out;
    }
    return v.getObject(i);
  }

  static List<Object> sparkView(Row r) {
    List<Object> out = new ArrayList<>();
    for (int c = 0; c < COLUMNS.size(); c++) {
      Object o = r.get(c);
      if (o instanceof byte[] b) {
        o = HexFormat.of().formatHex(b);
      } else if (o instanceof Timestamp t) {
        Instant instant = t.toInstant();
        o = instant.getEpochSecond() * 1_000_000L + instant.getNano() / 1000;
      } else if (o instanceof LocalDateTime t) {
        o = t.toEpochSecond(ZoneOffset.UTC) * 1_000_000L + t.getNano() / 1000;
      } else if (o instanceof java.sql.Date d) {
        o = d.toLocalDate().toEpochDay();
      } else if (o instanceof scala.collection.Seq<?> seq) {
        o = new ArrayList<>(scala.jdk.javaapi.CollectionConverters.asJava(seq));
      }
      out.add(o);
    }
    return out;
  }

  static Path location(String table) {
    return root.resolve("wt").resolve(table + ".lance");
  }

  /** Creates the table's dataset with lance-core: ROW1, ROW2, ROW3 and a row of nulls (id 4). */
  static Path createWithLance(String table) throws Exception {
    Path dir = location(table);
    try (VectorSchemaRoot batch = lanceBatch(List.of(ROW1, ROW2, ROW3, nullRow(4)))) {
      TimeStampVector ns = (TimeStampVector) batch.getVector("ts_ns");
      ns.setSafe(0, ns.get(0) + ROW1_EXTRA_NANOS);
      ns.setSafe(1, ns.get(1) + ROW2_EXTRA_NANOS);
      DateMilliVector d64 = (DateMilliVector) batch.getVector("d64");
      d64.setSafe(0, d64.get(0) + ROW1_D64_TIME_MS);
      d64.setSafe(1, d64.get(1) + ROW2_D64_TIME_MS);
      org.lance.Dataset.write()
          .allocator(allocator)
          .reader(inMemory(batch))
          .uri(dir.toString())
          .mode(WriteParams.WriteMode.CREATE)
          .execute()
          .close();
    }
    return dir;
  }

  /**
   * The batch as an Arrow reader sharing its buffers: an IPC stream would hand Lance buffers only
   * 8-byte aligned, which its import of 16-bit and 256-bit values refuses.
   */
  static ArrowReader inMemory(VectorSchemaRoot batch) {
    return new ArrowReader(allocator) {
      private boolean done;

      @Override
      public boolean loadNextBatch() {
        if (done) {
          return false;
        }
        done = true;
        try (ArrowRecordBatch data = new VectorUnloader(batch).getRecordBatch()) {
          loadRecordBatch(data);
        }
        return true;
      }

      @Override
      public long bytesRead() {
        return 0;
      }

      @Override
      protected void closeReadSource() {}

      @Override
      protected Schema readSchema() {
        return batch.getSchema();
      }
    };
  }

  /** Names, types, nullability and children, not metadata. */
  static String describe(Schema schema) {
    StringBuilder sb = new StringBuilder();
    for (Field f : schema.getFields()) {
      describe(f, sb);
      sb.append('\n');
    }
    return sb.toString();
  }

  static void describe(Field f, StringBuilder sb) {
    sb.append(f.getName()).append(':').append(f.getType()).append(f.isNullable() ? "?" : "!");
    if (!f.getChildren().isEmpty()) {
      sb.append('<');
      for (Field c : f.getChildren()) {
        describe(c, sb);
        sb.append(',');
      }
      sb.append('>');
    }
  }

  /** Rows by id in the Spark view, read with lance-core; also its Arrow schema. */
  static Map<Long, List<Object>> lanceRows(Path dir, List<List<Object>> raw, Schema[] schema)
      throws Exception {
    Map<Long, List<Object>> out = new TreeMap<>();
    try (org.lance.Dataset ds = LanceOracle.open(allocator, dir)) {
      schema[0] = ds.getSchema();
      try (LanceScanner scanner = ds.newScan(new ScanOptions.Builder().columns(COLUMNS).build());
          ArrowReader reader = scanner.scanBatches()) {
        while (reader.loadNextBatch()) {
          VectorSchemaRoot batch = reader.getVectorSchemaRoot();
          collect(batch, out, raw);
        }
      }
    }
    return out;
  }

  static void collect(VectorSchemaRoot batch, Map<Long, List<Object>> out, List<List<Object>> raw) {
    for (int r = 0; r < batch.getRowCount(); r++) {
      List<Object> row = new ArrayList<>();
      List<Object> rawRow = new ArrayList<>();
      for (String c : COLUMNS) {
        row.add(view(batch.getVector(c), r));
        rawRow.add(Rows.normalize(batch.getVector(c).getObject(r)));
      }
      out.put((Long) row.get(0), row);
      raw.add(rawRow);
    }
  }

  /** Rows by id in the Spark view, read with lancelot's engine (Arrow, no Spark). */
  static Map<Long, List<Object>> lancelotRows(Path dir, List<List<Object>> raw, Schema[] schema) {
    Map<Long, List<Object>> out = new TreeMap<>();
    try (Dataset ds = Dataset.open(dir.toString());
        CloseableIterator<VectorSchemaRoot> batches = ds.newScan().columns(COLUMNS).batches()) {
      schema[0] = ds.schema();
      while (batches.hasNext()) {
        collect(batches.next(), out, raw);
      }
    }
    return out;
  }

  static Map<Long, List<Object>> sparkRows(String table) {
    Map<Long, List<Object>> out = new TreeMap<>();
    for (Row r :
        spark.sql("SELECT " + String.join(", ", COLUMNS) + " FROM " + table).collectAsList()) {
      List<Object> row = sparkView(r);
      out.put((Long) row.get(0), row);
    }
    return out;
  }

  static long version(Path dir) {
    try (Dataset ds = Dataset.open(dir.toString())) {
      return ds.version();
    }
  }

  /** The SELECT list of a Spark row with these values, cast to the table's Spark types. */
  static String select(
      long id,
      int u8,
      long u16,
      long u32,
      String u64,
      String f16,
      String ls,
      String lbHex,
      String fsbHex,
      String ll,
      String tsS,
      String tsMs,
      String tsNs,
      String tsMsNtz,
      String d64,
      String dec,
      String v16) {
    return "SELECT cast("
        + id
        + " AS BIGINT) AS id, cast("
        + u8
        + " AS SMALLINT) AS u8, cast("
        + u16
        + " AS INT) AS u16, cast("
        + u32
        + " AS BIGINT) AS u32, cast('"
        + u64
        + "' AS DECIMAL(20,0)) AS u64, cast('"
        + f16
        + "' AS FLOAT) AS f16, '"
        + ls
        + "' AS ls, unhex('"
        + lbHex
        + "') AS lb, unhex('"
        + fsbHex
        + "') AS fsb, "
        + ll
        + " AS ll, TIMESTAMP'"
        + tsS
        + "' AS ts_s, TIMESTAMP'"
        + tsMs
        + "' AS ts_ms, TIMESTAMP_NTZ'"
        + tsNs
        + "' AS ts_ns, TIMESTAMP_NTZ'"
        + tsMsNtz
        + "' AS ts_ms_ntz, DATE'"
        + d64
        + "' AS d64, cast('"
        + dec
        + "' AS DECIMAL(30,4)) AS dec, "
        + v16
        + " AS v16";
  }

  @Test
  void appendInsertUpdateDeleteAndMergeKeepTheDatasetsOwnTypes() throws Exception {
    Path dir = createWithLance("items");
    String table = "lance.wt.items";
    Schema[] lanceSchema = new Schema[1];
    lanceRows(dir, new ArrayList<>(), lanceSchema);
    String original = describe(lanceSchema[0]);
    assertThat(original).isEqualTo(describe(schema()));
    assertThat(sparkRows(table).get(3L)).isEqualTo(ROW3);

    // 1. DataFrame append (columns cast to the Spark types the dataset is read as); the coarser
    // timestamp units truncate towards the past
    spark
        .sql(
            select(
                5,
                200,
                40_000,
                3_000_000_000L,
                "12345678901234567890",
                "0.1",
                "appended",
                "0a0b",
                sixteen(5),
                "array(cast(7 AS BIGINT), NULL)",
                "2026-01-02 03:04:05.999999",
                "2026-01-02 03:04:05.123456",
                "2026-01-02 03:04:05.123456",
                "1900-01-02 03:04:05.987654",
                "1900-01-02",
                "-99.5",
                "array(cast(0.1 AS FLOAT), cast(-3 AS FLOAT))"))
        .unionByName(
            spark.sql(
                "SELECT cast(6 AS BIGINT) AS id, cast(NULL AS SMALLINT) AS u8, cast(NULL AS INT) AS"
                    + " u16, cast(NULL AS BIGINT) AS u32, cast(NULL AS DECIMAL(20,0)) AS u64,"
                    + " cast(NULL AS FLOAT) AS f16, cast(NULL AS STRING) AS ls, cast(NULL AS BINARY)"
                    + " AS lb, cast(NULL AS BINARY) AS fsb, cast(NULL AS ARRAY<BIGINT>) AS ll,"
                    + " cast(NULL AS TIMESTAMP) AS ts_s, cast(NULL AS TIMESTAMP) AS ts_ms, cast(NULL"
                    + " AS TIMESTAMP_NTZ) AS ts_ns, cast(NULL AS TIMESTAMP_NTZ) AS ts_ms_ntz,"
                    + " cast(NULL AS DATE) AS d64, cast(NULL AS DECIMAL(30,4)) AS dec, cast(NULL AS ARRAY<FLOAT>) AS v16"))
        .write()
        .format("lance")
        .mode("append")
        .save(dir.toString());
    List<Object> row5 =
        row(
            5L,
            (short) 200,
            40_000,
            3_000_000_000L,
            new BigDecimal("12345678901234567890"),
            Float16.toFloat(Float16.toFloat16(0.1f)),
            "appended",
            hex(10, 11),
            sixteen(5),
            Arrays.asList(7L, null),
            micros("2026-01-02T03:04:05Z"),
            micros("2026-01-02T03:04:05.123Z"),
            micros("2026-01-02T03:04:05.123456Z"),
            micros("1900-01-02T03:04:05.987Z"),
            LocalDate.of(1900, 1, 2).toEpochDay(),
            new BigDecimal("-99.5000"),
            List.of(Float16.toFloat(Float16.toFloat16(0.1f)), -3f));

    // 2. INSERT INTO: SQL casts the literals to the table's types, the writer to the dataset's
    spark.sql(
        "INSERT INTO "
            + table
            + " VALUES (7, 1, 2, 3, 4, 0.25, 'ins', X'AB', X'"
            + sixteen(7)
            + "', array(8, 9), TIMESTAMP'2026-06-01 00:00:01.5', TIMESTAMP'2026-06-01 00:00:01.5',"
            + " TIMESTAMP_NTZ'2026-06-01 00:00:01.5', TIMESTAMP_NTZ'2026-06-01 00:00:01.5',"
            + " DATE'2026-06-01', 1.5, array(1.5, 2.5))");
    List<Object> row7 =
        row(
            7L,
            (short) 1,
            2,
            3L,
            new BigDecimal("4"),
            0.25f,
            "ins",
            hex(0xAB),
            sixteen(7),
            List.of(8L, 9L),
            micros("2026-06-01T00:00:01Z"),
            micros("2026-06-01T00:00:01.500Z"),
            micros("2026-06-01T00:00:01.500Z"),
            micros("2026-06-01T00:00:01.500Z"),
            LocalDate.of(2026, 6, 1).toEpochDay(),
            new BigDecimal("1.5000"),
            List.of(1.5f, 2.5f));
    assertThat(sparkRows(table)).containsEntry(5L, row5).containsEntry(7L, row7);

    // values the dataset's types cannot hold fail the statement, naming column and value, and
    // commit nothing
    long before = version(dir);
    assertThatThrownBy(
            () ->
                spark.sql(
                    "INSERT INTO "
                        + table
                        + " VALUES (8, 1, 70000, 3, 4, 0.25, 'x', X'AB', X'"
                        + sixteen(7)
                        + "', array(8), NULL, NULL, NULL, NULL, NULL, NULL, NULL)"))
        .hasStackTraceContaining("value 70000 does not fit column \"u16\"")
        .hasStackTraceContaining("uint16, which holds 0 to 65535");
    assertThatThrownBy(() -> spark.sql("UPDATE " + table + " SET u16 = -1 WHERE id = 3"))
        .hasStackTraceContaining("value -1 does not fit column \"u16\"");
    assertThatThrownBy(
            () ->
                spark
                    .sql(
                        select(
                            8,
                            1,
                            1,
                            1,
                            "1",
                            "1",
                            "x",
                            "00",
                            sixteen(0).substring(2),
                            "array(cast(1 AS BIGINT))",
                            "2026-01-01 00:00:00",
                            "2026-01-01 00:00:00",
                            "2026-01-01 00:00:00",
                            "2026-01-01 00:00:00",
                            "2026-01-01",
                            "1",
                            "array(cast(1 AS FLOAT), cast(2 AS FLOAT))"))
                    .write()
                    .format("lance")
                    .mode("append")
                    .save(dir.toString()))
        .hasStackTraceContaining(
            "value of 15 bytes does not fit column \"fsb\": the dataset stores it as"
                + " fixed_size_binary(16)");
    assertThatThrownBy(() -> spark.sql("UPDATE " + table + " SET u64 = -1 WHERE id = 1"))
        .hasStackTraceContaining("value -1 does not fit column \"u64\"");
    assertThatThrownBy(() -> spark.sql("UPDATE " + table + " SET f16 = 65520 WHERE id = 3"))
        .hasStackTraceContaining("value 65520.0 does not fit column \"f16\"");
    assertThat(version(dir)).isEqualTo(before);

    // 3. UPDATE rewrites row 2 through Spark's types: ns digits and the time of day of d64 are
    // lost for it (documented), everything else is kept
    spark.sql(
        "UPDATE "
            + table
            + " SET u16 = u16 + 1, ls = concat(ls, '!'), ts_ns = ts_ns + INTERVAL 1 SECOND"
            + " WHERE id = 2");
    List<Object> row2 = new ArrayList<>(ROW2);
    row2.set(2, 1);
    row2.set(6, "!");
    row2.set(12, micros("1970-01-01T00:00:00.999999Z"));

    // 4. DELETE: a condition the engine evaluates (metadata only) and one Spark evaluates
    // (row-level plan, no rows written)
    spark.sql("DELETE FROM " + table + " WHERE id = 3");
    spark.sql("DELETE FROM " + table + " WHERE concat(ls, '?') = 'ins?'");

    // 5. MERGE INTO: row 5 updated, row 1 copied as a new row 9 through Spark's types
    spark.sql(
        "MERGE INTO "
            + table
            + " t USING (SELECT CASE WHEN id = 1 THEN 9 ELSE id END AS id, u8, u16, u32, u64, f16,"
            + " ls, lb, fsb, ll, ts_s, ts_ms, ts_ns, ts_ms_ntz, d64, dec, v16 FROM "
            + table
            + " WHERE id IN (1, 5)) s ON t.id = s.id"
            + " WHEN MATCHED THEN UPDATE SET u32 = 123, ll = array(42), u8 = s.u8 + 1"
            + " WHEN NOT MATCHED THEN INSERT *");
    row5 = new ArrayList<>(row5);
    row5.set(1, (short) 201);
    row5.set(3, 123L);
    row5.set(9, List.of(42L));
    List<Object> row9 = new ArrayList<>(ROW1);
    row9.set(0, 9L);

    Map<Long, List<Object>> expected = new TreeMap<>();
    for (List<Object> r : List.of(ROW1, row2, nullRow(4), row5, nullRow(6), row9)) {
      expected.put((Long) r.get(0), r);
    }

    // lancelot through Spark, lancelot's engine and lance-core read the same rows and schema
    assertThat(sparkRows(table)).isEqualTo(expected);
    List<List<Object>> lanceRaw = new ArrayList<>();
    List<List<Object>> ourRaw = new ArrayList<>();
    Schema[] ourSchema = new Schema[1];
    assertThat(lanceRows(dir, lanceRaw, lanceSchema)).isEqualTo(expected);
    assertThat(lancelotRows(dir, ourRaw, ourSchema)).isEqualTo(expected);
    assertThat(describe(lanceSchema[0])).isEqualTo(original);
    assertThat(describe(ourSchema[0])).isEqualTo(original);
    Comparator<List<Object>> byId = Comparator.comparing(r -> (Long) r.get(0));
    lanceRaw.sort(byId);
    ourRaw.sort(byId);
    assertThat(ourRaw).isEqualTo(lanceRaw);

    // the stored values, as lance-core reads them: row 1 (never rewritten) keeps its nanoseconds
    // and time of day; rows written through Spark hold whole microseconds and midnights
    Map<Long, long[]> stored = storedNanosAndMillis(dir);
    assertThat(stored.get(1L))
        .containsExactly(
            micros("2026-12-04T10:11:12.345678Z") * 1000 + ROW1_EXTRA_NANOS,
            LocalDate.of(2026, 12, 4).toEpochDay() * DAY_MS + ROW1_D64_TIME_MS);
    assertThat(stored.get(2L))
        .containsExactly(
            micros("1970-01-01T00:00:00.999999Z") * 1000,
            LocalDate.of(1969, 12, 31).toEpochDay() * DAY_MS);
    assertThat(stored.get(9L))
        .containsExactly(
            micros("2026-12-04T10:11:12.345678Z") * 1000,
            LocalDate.of(2026, 12, 4).toEpochDay() * DAY_MS);
  }

  /** id to {raw ts_ns, raw d64} as lance-core reads them. */
  static Map<Long, long[]> storedNanosAndMillis(Path dir) throws Exception {
    Map<Long, long[]> out = new TreeMap<>();
    try (org.lance.Dataset ds = LanceOracle.open(allocator, dir);
        LanceScanner scanner =
            ds.newScan(new ScanOptions.Builder().columns(List.of("id", "ts_ns", "d64")).build());
        ArrowReader reader = scanner.scanBatches()) {
      while (reader.loadNextBatch()) {
        VectorSchemaRoot batch = reader.getVectorSchemaRoot();
        BigIntVector id = (BigIntVector) batch.getVector("id");
        TimeStampVector ns = (TimeStampVector) batch.getVector("ts_ns");
        DateMilliVector d64 = (DateMilliVector) batch.getVector("d64");
        for (int i = 0; i < batch.getRowCount(); i++) {
          if (!ns.isNull(i)) {
            out.put(id.get(i), new long[] {ns.get(i), d64.get(i)});
          }
        }
      }
    }
    return out;
  }

  @Test
  void columnsTheWriterCannotProduceAreRefusedBeforeAnyTaskRunsAndDeletesStillWork()
      throws Exception {
    Path dir = location("docs");
    Schema schema =
        new Schema(
            List.of(
                new Field("id", FieldType.nullable(new ArrowType.Int(64, true)), null),
                new Field(
                    "doc",
                    new FieldType(
                        true,
                        ArrowType.Utf8.INSTANCE,
                        null,
                        Map.of("ARROW:extension:name", "arrow.json")),
                    null)));
    try (VectorSchemaRoot batch = VectorSchemaRoot.create(schema, allocator)) {
      batch.allocateNew();
      BigIntVector id = (BigIntVector) batch.getVector("id");
      VarCharVector doc = (VarCharVector) batch.getVector("doc");
      for (int i = 0; i < 3; i++) {
        id.setSafe(i, i + 1);
        doc.setSafe(i, ("{\"n\":" + (i + 1) + "}").getBytes(StandardCharsets.UTF_8));
      }
      batch.setRowCount(3);
      org.lance.Dataset.write()
          .allocator(allocator)
          .reader(inMemory(batch))
          .uri(dir.toString())
          .mode(WriteParams.WriteMode.CREATE)
          .execute()
          .close();
    }
    String table = "lance.wt.docs";
    long before = version(dir);
    for (String statement :
        List.of(
            "INSERT INTO " + table + " SELECT 4, doc FROM " + table + " WHERE id = 1",
            "UPDATE " + table + " SET id = id + 10 WHERE id = 2",
            "MERGE INTO "
                + table
                + " t USING (SELECT 2 AS id) s ON t.id = s.id"
                + " WHEN MATCHED THEN UPDATE SET id = 20")) {
      assertThatThrownBy(() -> spark.sql(statement))
          .as(statement)
          .isInstanceOf(SchemaMismatchException.class)
          .isNotInstanceOf(SparkException.class)
          .hasMessageContaining("column \"doc\" has the Arrow extension type")
          .hasMessageContaining("which the writer does not produce");
    }
    assertThat(version(dir)).isEqualTo(before);

    spark.sql("DELETE FROM " + table + " WHERE id = 1");
    spark.sql("DELETE FROM " + table + " WHERE id + 0 = 2");
    assertThat(spark.sql("SELECT id FROM " + table).collectAsList())
        .extracting(r -> r.getLong(0))
        .containsExactly(3L);
    assertThat(LanceOracle.countRows(allocator, dir)).isEqualTo(1);
  }
}
