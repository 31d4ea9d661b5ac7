package dev.lancelot.engine.internal.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.io.HadoopFileIO;
import dev.lancelot.engine.io.InputFile;
import dev.lancelot.engine.schema.LanceField;
import dev.lancelot.engine.schema.LanceSchema;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * lance-core 7.0.0 writes a file per packed struct shape ({@link NestedShapes#packed()}) in each
 * format it can write the shape in; our reader returns the values written (lance-core writes no
 * nulls into packed structs, so these are also what lance-core reads, see {@link
 * PackedStructDatasetTest}) in scans of several batch sizes, a range scan, takes, and projections
 * of single members ({@code c.b}, {@code c.p.a}, {@code c.item.s}).
 */
@Tag("oracle")
class PackedStructReaderOracleTest {
  @TempDir static Path dir;
  static BufferAllocator allocator;
  static final Map<String, String> CHOSEN = new TreeMap<>();

  @BeforeAll
  static void setUp() {
    allocator = new RootAllocator();
  }

  @AfterAll
  static void tearDown() {
    StringBuilder sb =
        new StringBuilder("Layouts chosen by lance-core 7.0.0 for packed structs:\n");
    CHOSEN.forEach((k, v) -> sb.append(String.format("  %-36s %s%n", k, v)));
    System.out.println(sb);
    allocator.close();
  }

  static Stream<Arguments> cases() {
    List<Arguments> out = new ArrayList<>();
    for (NestedShapes.PackedShape p : NestedShapes.packed()) {
      for (String version : p.versions()) {
        out.add(Arguments.of(p.shape(), version, p.lanceReadsBack()));
      }
    }
    return out.stream();
  }

  /** Writes the shape in two batches; returns the values written. */
  static List<Object> write(
      NestedShapes.Shape shape, String version, Path path, BufferAllocator allocator) {
    int first = shape.rows() / 2 + 7;
    List<Object> expected = new ArrayList<>();
    try (VectorSchemaRoot a = NestedShapes.batch(shape, allocator, 1, first);
        VectorSchemaRoot b = NestedShapes.batch(shape, allocator, 2, shape.rows() - first)) {
      OracleFiles.write(path, allocator, version, List.of(a, b));
      expected.addAll(Values.of(a.getVector(0)));
      expected.addAll(Values.of(b.getVector(0)));
    }
    return expected;
  }

  @ParameterizedTest(name = "{0} ({1})")
  @MethodSource("cases")
  void readsWhatLanceWrote(NestedShapes.Shape shape, String version, boolean lanceReadsBack)
      throws Exception {
    Path path = dir.resolve(shape.name() + "-" + version + ".lance");
    List<Object> expected = write(shape, version, path, allocator);
    try (InputFile in = HadoopFileIO.local().newInputFile(path.toUri().toString())) {
      String encodings = LanceFileInspector.encodings(in).toString();
      CHOSEN.put(shape.name() + " (" + version + ")", encodings);
      assertThat(encodings).as("page encodings").contains("PackedStruct(");
      LanceFileReader reader = LanceFileReader.open(in);
      LanceSchema schema = reader.schema();
      assertThat(reader.numColumns())
          .as("columns (a packed struct is one)")
          .isEqualTo(
              version.equals("2.0")
                  ? Nested20Field.fieldsWithColumns20(schema.fields()).size()
                  : schema.columnFields().size());
      FileProjection all = FileProjection.all(schema);
      for (int batchSize : new int[] {1024, 333, 17}) {
        assertThat(
                LanceFileReaderOracleTest.scan(
                    reader, all, 0, reader.numRows(), batchSize, allocator))
            .as("scan, batch size %d", batchSize)
            .containsExactlyElementsOf(expected);
      }
      long from = shape.rows() / 3;
      long to = shape.rows() - 5;
      assertThat(LanceFileReaderOracleTest.scan(reader, all, from, to, 500, allocator))
          .as("scan of rows [%d, %d)", from, to)
          .containsExactlyElementsOf(expected.subList((int) from, (int) to));
      long[] rows = takeRows(shape.rows());
      assertThat(take(reader, all, rows, allocator))
          .as("take")
          .containsExactlyElementsOf(pick(expected, rows));
      for (List<String> paths : memberPaths(schema)) {
        FileProjection p = FileProjection.ofPaths(schema, paths);
        List<Object> projected = new ArrayList<>();
        for (Object v : expected) {
          projected.add(project(v, paths));
        }
        assertThat(LanceFileReaderOracleTest.scan(reader, p, 0, reader.numRows(), 700, allocator))
            .as("scan of %s", paths)
            .containsExactlyElementsOf(projected);
        assertThat(take(reader, p, rows, allocator))
            .as("take of %s", paths)
            .containsExactlyElementsOf(pick(projected, rows));
      }
    }
  }

  /** Sorted random rows with some repeated. */
  static long[] takeRows(int n) {
    Random r = new Random(7);
    long[] rows = r.longs(Math.min(60, n), 0, n).sorted().toArray();
    rows[rows.length / 2] = rows[rows.length / 2 - 1];
    return rows;
  }

  static List<Object> take(
      LanceFileReader reader, FileProjection p, long[] rows, BufferAllocator allocator) {
    try (VectorSchemaRoot taken = reader.take(p, rows, allocator)) {
      return Values.of(taken.getVector(0));
    }
  }

  static List<Object> pick(List<Object> values, long[] rows) {
    List<Object> out = new ArrayList<>();
    for (long row : rows) {
      out.add(values.get((int) row));
    }
    return out;
  }

  /**
   * Projections into each packed struct of the schema: each member alone, and the last and first
   * members together.
   */
  static List<List<String>> memberPaths(LanceSchema schema) {
    List<List<String>> out = new ArrayList<>();
    for (LanceField top : schema.fields()) {
      collectPaths(top, top.name(), out);
    }
    return out;
  }

  private static void collectPaths(LanceField f, String path, List<List<String>> out) {
    if (f.isPackedStruct()) {
      List<LanceField> members = f.children();
      for (LanceField m : members) {
        out.add(List.of(path + "." + m.name()));
      }
      if (members.size() > 1) {
        out.add(
            List.of(
                path + "." + members.get(members.size() - 1).name(),
                path + "." + members.get(0).name()));
      }
      for (LanceField m : members) {
        if (m.logicalType().equals("struct")) {
          out.add(List.of(path + "." + m.name() + "." + m.children().get(0).name()));
        }
      }
      return;
    }
    for (LanceField c : f.children()) {
      collectPaths(c, path + "." + c.name(), out);
    }
  }

  /** A value of the top-level field restricted to the members at {@code paths} (dotted). */
  static Object project(Object value, List<String> paths) {
    Map<String, Object> tree = new LinkedHashMap<>();
    for (String path : paths) {
      String[] parts = path.split("\\.");
      Map<String, Object> node = tree;
      for (int i = 1; i < parts.length; i++) {
        @SuppressWarnings("unchecked")
        Map<String, Object> next =
            (Map<String, Object>)
                node.computeIfAbsent(parts[i], k -> new LinkedHashMap<String, Object>());
        node = next;
      }
    }
    return prune(value, tree);
  }

  @SuppressWarnings("unchecked")
  private static Object prune(Object value, Map<String, Object> tree) {
    if (value == null || tree.isEmpty()) {
      return value;
    }
    if (value instanceof List<?> list) {
      Map<String, Object> items = (Map<String, Object>) tree.get("item");
      List<Object> out = new ArrayList<>();
      for (Object item : list) {
        out.add(prune(item, items));
      }
      return out;
    }
    Map<String, Object> struct = (Map<String, Object>) value;
    Map<String, Object> out = new LinkedHashMap<>();
    for (Map.Entry<String, Object> e : struct.entrySet()) {
      if (tree.containsKey(e.getKey())) {
        out.put(e.getKey(), prune(e.getValue(), (Map<String, Object>) tree.get(e.getKey())));
      }
    }
    return out;
  }

  @ParameterizedTest(name = "format {0}")
  @ValueSource(strings = {"2.1", "2.2"})
  void aBooleanMemberIsRefusedNamingTheEncoding(String version) throws Exception {
    // lance-core packs no bytes for a 1-bit member (and cannot read such a file back itself)
    NestedShapes.Shape shape =
        new NestedShapes.Shape(
            "packed_bool",
            NestedShapes.packed(
                "c",
                NestedShapes.f("a", NestedShapes.I32),
                NestedShapes.f("flag", ArrowType.Bool.INSTANCE)),
            100,
            r -> NestedShapes.struct("a", r.nextInt(), "flag", r.nextBoolean()));
    Path path = dir.resolve("packed_bool-" + version + ".lance");
    write(shape, version, path, allocator);
    try (InputFile in = HadoopFileIO.local().newInputFile(path.toUri().toString())) {
      LanceFileReader reader = LanceFileReader.open(in);
      assertThatThrownBy(
              () ->
                  LanceFileReaderOracleTest.scan(
                      reader, FileProjection.all(reader.schema()), 0, 100, 100, allocator))
          .isInstanceOf(UnsupportedFileFeatureException.class)
          .hasMessageContaining("PackedStruct(Flat(33))")
          .hasMessageContaining("1 bits");
    }
  }
}
