package dev.lancelot.engine.internal.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.io.HadoopFileIO;
import dev.lancelot.engine.io.InputFile;
import dev.lancelot.engine.schema.LanceSchema;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.BiConsumer;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Columns the writer encodes (bit-packed integers and timestamps, bit-packed levels, dictionaries
 * of strings and binary), written by lancelot and by lance-core 7.0.0 from the same data in 2.1 and
 * 2.2: lance-core reads lancelot's files back value for value; where lance-core bit-packs plain
 * values or (2.1) makes a page dictionary, so does lancelot, and the column takes no more bytes
 * than lance-core's.
 */
@Tag("oracle")
class WriterEncodingsOracleTest {
  static final int ROWS = 10_000 + 321; // ten full 1024-value chunks and a short one
  @TempDir static Path dir;
  static BufferAllocator allocator;
  static final Map<String, String> REPORT = new TreeMap<>();

  @BeforeAll
  static void setUp() {
    allocator = new RootAllocator();
  }

  @AfterAll
  static void tearDown() {
    StringBuilder sb = new StringBuilder("Encoded columns, lancelot vs lance-core:\n");
    REPORT.forEach((k, v) -> sb.append(String.format("  %-34s %s%n", k, v)));
    System.out.println(sb);
    allocator.close();
  }

  record Case(String name, Field field, BiConsumer<FieldVector, Random> fill) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Field scalar(ArrowType type) {
    return new Field("c", FieldType.nullable(type), null);
  }

  static Stream<Arguments> cases() {
    List<Case> cases = new ArrayList<>();
    cases.add(
        new Case(
            "int64_ids",
            scalar(new ArrowType.Int(64, true)),
            (v, r) -> {
              for (int i = 0; i < ROWS; i++) {
                ((BigIntVector) v).set(i, i);
              }
            }));
    cases.add(
        new Case(
            "int32_skewed",
            scalar(new ArrowType.Int(32, true)),
            (v, r) -> {
              for (int i = 0; i < ROWS; i++) {
                int x = r.nextInt(100) < 90 ? r.nextInt(16) : r.nextInt(100_000);
                ((IntVector) v).set(i, x);
              }
            }));
    cases.add(
        new Case(
            "int64_nulls_over_garbage",
            scalar(new ArrowType.Int(64, true)),
            (v, r) -> {
              BigIntVector b = (BigIntVector) v;
              for (int i = 0; i < ROWS; i++) {
                // a null slot keeps a wide value behind it, which must not widen the chunk
                b.set(i, i % 3 == 0 ? -1L : r.nextInt(1000));
                if (i % 3 == 0) {
                  b.setNull(i);
                }
              }
            }));
    cases.add(
        new Case(
            "int16_small",
            scalar(new ArrowType.Int(16, true)),
            (v, r) -> {
              for (int i = 0; i < ROWS; i++) {
                ((SmallIntVector) v).set(i, (short) r.nextInt(200));
              }
            }));
    cases.add(
        new Case(
            "uint8_small",
            scalar(new ArrowType.Int(8, false)),
            (v, r) -> {
              for (int i = 0; i < ROWS; i++) {
                ((UInt1Vector) v).set(i, r.nextInt(5));
              }
            }));
    cases.add(
        new Case(
            "int32_chunk_widths",
            scalar(new ArrowType.Int(32, true)),
            (v, r) -> {
              // each 1024-value chunk has its own width, zero (all 0) and full (negative) included
              for (int i = 0; i < ROWS; i++) {
                int chunk = i / 1024;
                int x =
                    chunk == 2
                        ? 0
                        : chunk == 5 ? -r.nextInt(1000) - 1 : r.nextInt(1 << (chunk + 1));
                ((IntVector) v).set(i, x);
              }
            }));
    cases.add(
        new Case(
            "timestamp_us",
            scalar(new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC")),
            (v, r) -> {
              long t = 1_700_000_000_000_000L;
              for (int i = 0; i < ROWS; i++) {
                t += r.nextInt(5_000_000);
                ((TimeStampMicroTZVector) v).set(i, t);
              }
            }));
    cases.add(
        new Case(
            "list_int32_small",
            new Field(
                "c",
                FieldType.nullable(ArrowType.List.INSTANCE),
                List.of(scalar(new ArrowType.Int(32, true)))),
            (v, r) -> {
              ListVector l = (ListVector) v;
              IntVector inner = (IntVector) l.getDataVector();
              int k = 0;
              for (int i = 0; i < ROWS; i++) {
                if (i % 17 == 0) {
                  l.setNull(i);
                  continue;
                }
                l.startNewValue(i);
                int n = r.nextInt(5);
                for (int j = 0; j < n; j++) {
                  inner.setSafe(k++, r.nextInt(300));
                }
                l.endValue(i, n);
              }
              inner.setValueCount(k);
            }));
    String[] words = {"books", "music", "garden", "toys", "sports", "kitchen", "health", "auto"};
    cases.add(
        new Case(
            "utf8_low_cardinality",
            scalar(ArrowType.Utf8.INSTANCE),
            (v, r) -> {
              for (int i = 0; i < ROWS; i++) {
                ((VarCharVector) v).setSafe(i, utf8(words[r.nextInt(words.length)]));
              }
            }));
    cases.add(
        new Case(
            "utf8_low_cardinality_nulls",
            scalar(ArrowType.Utf8.INSTANCE),
            (v, r) -> {
              for (int i = 0; i < ROWS; i++) {
                if (r.nextInt(4) == 0) {
                  ((VarCharVector) v).setNull(i);
                } else {
                  ((VarCharVector) v).setSafe(i, utf8(words[r.nextInt(words.length)] + i % 40));
                }
              }
            }));
    cases.add(
        new Case(
            "utf8_high_cardinality",
            scalar(ArrowType.Utf8.INSTANCE),
            (v, r) -> {
              for (int i = 0; i < ROWS; i++) {
                ((VarCharVector) v).setSafe(i, utf8("user-" + Long.toHexString(r.nextLong())));
              }
            }));
    cases.add(
        new Case(
            "binary_low_cardinality",
            scalar(ArrowType.Binary.INSTANCE),
            (v, r) -> {
              for (int i = 0; i < ROWS; i++) {
                ((VarBinaryVector) v).setSafe(i, new byte[] {(byte) r.nextInt(3), 7, 7, 7, 7, 7});
              }
            }));
    cases.add(
        new Case(
            "list_utf8_tags",
            new Field(
                "c",
                FieldType.nullable(ArrowType.List.INSTANCE),
                List.of(scalar(ArrowType.Utf8.INSTANCE))),
            (v, r) -> {
              ListVector l = (ListVector) v;
              VarCharVector inner = (VarCharVector) l.getDataVector();
              int k = 0;
              for (int i = 0; i < ROWS; i++) {
                l.startNewValue(i);
                int n = r.nextInt(5);
                for (int j = 0; j < n; j++) {
                  inner.setSafe(k++, utf8(words[r.nextInt(words.length)]));
                }
                l.endValue(i, n);
              }
              inner.setValueCount(k);
            }));
    for (String scheme : List.of("zstd", "lz4")) {
      cases.add(
          new Case(
              "int64_gaussian+" + scheme,
              compressed(new ArrowType.Int(64, true), scheme),
              (v, r) -> {
                for (int i = 0; i < ROWS; i++) {
                  ((BigIntVector) v).set(i, (long) (r.nextGaussian() * 1e12));
                }
              }));
      cases.add(
          new Case(
              "utf8_words+" + scheme,
              compressed(ArrowType.Utf8.INSTANCE, scheme),
              (v, r) -> {
                for (int i = 0; i < ROWS; i++) {
                  if (i % 11 == 0) {
                    ((VarCharVector) v).setNull(i);
                    continue;
                  }
                  StringBuilder sb = new StringBuilder();
                  for (int w = 0; w < 6; w++) {
                    sb.append(words[r.nextInt(words.length)]).append(i % 97).append(' ');
                  }
                  ((VarCharVector) v).setSafe(i, utf8(sb.toString()));
                }
              }));
    }
    cases.add(
        new Case(
            "utf8_low_cardinality+zstd",
            compressed(ArrowType.Utf8.INSTANCE, "zstd"),
            (v, r) -> {
              for (int i = 0; i < ROWS; i++) {
                ((VarCharVector) v).setSafe(i, utf8(words[r.nextInt(words.length)]));
              }
            }));
    return cases.stream()
        .flatMap(c -> Stream.of("2.1", "2.2").map(version -> Arguments.of(c, version)));
  }

  static Field compressed(ArrowType type, String scheme) {
    return new Field(
        "c", new FieldType(true, type, null, Map.of("lance-encoding:compression", scheme)), null);
  }

  static byte[] utf8(String s) {
    return s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
  }

  static VectorSchemaRoot batch(Case c) {
    VectorSchemaRoot root = VectorSchemaRoot.create(new Schema(List.of(c.field())), allocator);
    root.allocateNew();
    FieldVector v = root.getVector(0);
    v.setInitialCapacity(ROWS);
    v.allocateNew();
    c.fill().accept(v, new Random(c.name().hashCode()));
    v.setValueCount(ROWS);
    root.setRowCount(ROWS);
    return root;
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("cases")
  void lanceReadsOurEncodedColumnsAndEncodesAsWeDo(Case c, String version) throws Exception {
    Path ours = dir.resolve(c.name() + "-" + version + "-ours.lance");
    Path lance = dir.resolve(c.name() + "-" + version + "-lance.lance");
    FileVersion fileVersion = version.equals("2.2") ? FileVersion.V2_2 : FileVersion.V2_1;
    List<Object> expected;
    try (VectorSchemaRoot b = batch(c)) {
      expected = Values.of(b.getVector(0));
      LanceFileWriterOracleTest.write(
          ours,
          LanceSchema.fromArrow(b.getSchema()),
          List.of(b),
          WriterOptions.defaults().withVersion(fileVersion));
      OracleFiles.write(lance, allocator, version, List.of(b));
    }
    assertThat(OracleFiles.readColumn(ours, allocator, "c"))
        .as("lance-core reads lancelot's file")
        .containsExactlyElementsOf(expected);
    HadoopFileIO io = HadoopFileIO.local();
    try (InputFile oursIn = io.newInputFile(ours.toUri().toString());
        InputFile lanceIn = io.newInputFile(lance.toUri().toString())) {
      LanceFileReader reader = LanceFileReader.open(oursIn);
      assertThat(
              LanceFileReaderOracleTest.scan(
                  reader, FileProjection.all(reader.schema()), 0, reader.numRows(), 999, allocator))
          .as("lancelot reads its own file")
          .containsExactlyElementsOf(expected);
      LanceFileReader theirs = LanceFileReader.open(lanceIn);
      List<String> ourEncodings = LanceFileInspector.encodings(oursIn).get("c");
      List<String> lanceEncodings = LanceFileInspector.encodings(lanceIn).get("c");
      long ourBytes = reader.metadata().column(0).dataBytes();
      long lanceBytes = theirs.metadata().column(0).dataBytes();
      REPORT.put(
          c.name() + " " + version,
          String.format(
              "%,9d vs %,9d bytes (%.2fx)  ours %s | lance %s",
              ourBytes, lanceBytes, (double) ourBytes / lanceBytes, ourEncodings, lanceEncodings));
      List<String> ourValues =
          ourEncodings.stream().map(WriterEncodingsOracleTest::values).toList();
      List<String> lanceValues =
          lanceEncodings.stream().map(WriterEncodingsOracleTest::values).toList();
      boolean lancePlain =
          lanceValues.stream()
                  .allMatch(e -> e.startsWith("Flat(") || e.startsWith("InlineBitpacking("))
              && lanceEncodings.stream().noneMatch(e -> e.contains("dictionary="));
      if (lancePlain && lanceValues.stream().anyMatch(e -> e.startsWith("InlineBitpacking("))) {
        // where lance-core bit-packs plain values, lancelot does too
        assertThat(ourValues).isEqualTo(lanceValues);
      }
      if (lancePlain) {
        // values and levels (bit-packed as lance-core packs them) take no more bytes
        assertThat(ourBytes).isLessThanOrEqualTo(lanceBytes);
      }
      boolean lanceDictionary = lanceEncodings.stream().anyMatch(e -> e.contains("dictionary="));
      String scheme = c.field().getMetadata().get("lance-encoding:compression");
      if (lanceDictionary && version.equals("2.1") && scheme == null) {
        // a 2.1 page dictionary as lance-core makes it: uncompressed values, bit-packed indices
        // (lance-core also puts the empty value of null items in it: the item counts may differ)
        assertThat(ourEncodings.stream().map(e -> e.replaceAll(" x\\d+", "")).toList())
            .isEqualTo(lanceEncodings.stream().map(e -> e.replaceAll(" x\\d+", "")).toList());
        assertThat(ourBytes).isLessThanOrEqualTo(lanceBytes);
      }
      if (!lanceDictionary) {
        assertThat(String.join(" ", ourEncodings)).doesNotContain("dictionary=");
      }
      if (scheme != null) {
        // every page's chunk values compressed as the field metadata asks
        assertThat(ourEncodings).allMatch(e -> e.contains("values=General(" + scheme + ", "));
      }
      if (hasLevels(ourEncodings)) {
        assertThat(String.join(" ", ourEncodings)).contains("def=OutOfLineBitpacking(16 -> Flat(");
      }
    }
  }

  @org.junit.jupiter.api.Test
  void unknownCompressionIsRefusedNamingFieldAndValue() {
    Schema schema = new Schema(List.of(compressed(new ArrowType.Int(32, true), "gzip")));
    assertThatThrownBy(
            () ->
                LanceFileWriter.create(
                    HadoopFileIO.local().create(dir.resolve("gzip.lance").toUri().toString()),
                    LanceSchema.fromArrow(schema),
                    WriterOptions.defaults()))
        .isInstanceOf(dev.lancelot.engine.schema.SchemaException.class)
        .hasMessageContaining("\"c\"")
        .hasMessageContaining("lance-encoding:compression = \"gzip\"")
        .hasMessageContaining("\"zstd\", \"lz4\" or \"none\"");
  }

  /** The values encoding of a page description ("values=X, ..."). */
  static String values(String page) {
    int at = page.indexOf("values=");
    int end = page.indexOf(", ", at);
    return page.substring(at + "values=".length(), end < 0 ? page.length() - 1 : end);
  }

  static boolean hasLevels(List<String> pages) {
    return pages.stream().anyMatch(p -> p.contains("def=") || p.contains("rep="));
  }
}
