package dev.lancelot.engine.internal.file;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancelot.engine.io.HadoopFileIO;
import dev.lancelot.engine.io.InputFile;
import dev.lancelot.engine.schema.LanceSchema;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Nested columns our writer writes (lists, structs, both; nulls at every level, empty lists; small
 * pages so that rows span chunks and pages) are read by lance-core 7.0.0 and by our reader row for
 * row, in scans and takes.
 */
@Tag("oracle")
class NestedWriterOracleTest {
  @TempDir static Path dir;
  static BufferAllocator allocator;
  static final Map<String, String> WRITTEN = new TreeMap<>();

  @BeforeAll
  static void setUp() {
    allocator = new RootAllocator();
  }

  @AfterAll
  static void tearDown() {
    StringBuilder sb = new StringBuilder("Nested layouts written by lancelot:\n");
    WRITTEN.forEach((k, v) -> sb.append(String.format("  %-28s %s%n", k, v)));
    System.out.println(sb);
    allocator.close();
  }

  /** Every shape, written as file format 2.1 and as 2.2. */
  static Stream<org.junit.jupiter.params.provider.Arguments> shapes() {
    return NestedShapes.all().stream()
        .flatMap(
            sh ->
                Stream.of(FileVersion.V2_1, FileVersion.V2_2)
                    .map(v -> org.junit.jupiter.params.provider.Arguments.of(sh, v)));
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("shapes")
  void lanceReadsWhatWeWrote(NestedShapes.Shape shape, FileVersion version) throws Exception {
    Path path = dir.resolve(shape.name() + "-" + version + ".lance");
    int first = shape.rows() / 3 + 11;
    List<Object> expected = new ArrayList<>();
    WriteSummary summary;
    try (VectorSchemaRoot a = NestedShapes.batch(shape, allocator, 1, first);
        VectorSchemaRoot b = NestedShapes.batch(shape, allocator, 2, shape.rows() - first)) {
      LanceSchema schema = LanceSchema.fromArrow(a.getSchema());
      summary =
          LanceFileWriterOracleTest.write(
              path,
              schema,
              List.of(a, b),
              WriterOptions.defaults().withMaxPageBytes(16 * 1024).withVersion(version));
      assertThat(summary.version()).isEqualTo(version);
      expected.addAll(Values.of(a.getVector(0)));
      expected.addAll(Values.of(b.getVector(0)));
      assertThat(summary.fieldIds())
          .containsExactly(schema.leaves().stream().mapToInt(f -> f.id()).toArray());
    }
    assertThat(summary.numRows()).isEqualTo(shape.rows());
    assertThat(OracleFiles.readColumn(path, allocator, "c"))
        .as("read by lance-core")
        .containsExactlyElementsOf(expected);
    try (InputFile in = HadoopFileIO.local().newInputFile(path.toUri().toString())) {
      WRITTEN.put(
          shape.name() + " " + version,
          summary.numPages() + " pages: " + LanceFileInspector.encodings(in));
      LanceFileReader reader = LanceFileReader.open(in);
      FileProjection all = FileProjection.all(reader.schema());
      assertThat(LanceFileReaderOracleTest.scan(reader, all, 0, reader.numRows(), 700, allocator))
          .as("read by lancelot")
          .containsExactlyElementsOf(expected);
      long[] rows = new Random(3).longs(40, 0, shape.rows()).sorted().toArray();
      List<Object> wanted = new ArrayList<>();
      for (long row : rows) {
        wanted.add(expected.get((int) row));
      }
      try (VectorSchemaRoot taken = reader.take(all, rows, allocator)) {
        assertThat(Values.of(taken.getVector(0)))
            .as("take by lancelot")
            .containsExactlyElementsOf(wanted);
      }
    }
  }
}
