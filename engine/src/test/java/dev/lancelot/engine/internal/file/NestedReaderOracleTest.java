package dev.lancelot.engine.internal.file;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancelot.engine.io.HadoopFileIO;
import dev.lancelot.engine.io.InputFile;
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
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * lance-core 7.0.0 writes a file per nested shape (lists, structs, both; nulls at every level,
 * empty lists) in each file format; our reader must return identical values, nulls and order in
 * scans of several batch sizes, in a range scan and in takes. Prints the layouts Lance chose.
 */
@Tag("oracle")
class NestedReaderOracleTest {
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
        new StringBuilder("Layouts chosen by lance-core 7.0.0 for nested columns:\n");
    CHOSEN.forEach((k, v) -> sb.append(String.format("  %-36s %s%n", k, v)));
    System.out.println(sb);
    allocator.close();
  }

  static Stream<Arguments> cases() {
    List<Arguments> out = new ArrayList<>();
    for (String version : new String[] {"2.0", "2.1", "2.2"}) {
      for (NestedShapes.Shape shape : NestedShapes.all()) {
        out.add(Arguments.of(shape, version));
      }
    }
    return out.stream();
  }

  @ParameterizedTest(name = "{0} ({1})")
  @MethodSource("cases")
  void readsWhatLanceWrote(NestedShapes.Shape shape, String version) throws Exception {
    Path path = dir.resolve(shape.name() + "-" + version + ".lance");
    int first = shape.rows() / 2 + 7;
    List<Object> expected = new ArrayList<>();
    try (VectorSchemaRoot a = NestedShapes.batch(shape, allocator, 1, first);
        VectorSchemaRoot b = NestedShapes.batch(shape, allocator, 2, shape.rows() - first)) {
      OracleFiles.write(path, allocator, version, List.of(a, b));
      expected.addAll(Values.of(a.getVector(0)));
      expected.addAll(Values.of(b.getVector(0)));
    }
    List<Object> lance = OracleFiles.readColumn(path, allocator, "c");
    if (version.equals("2.0")) {
      // format 2.0 cannot store null structs: Lance reads them back as structs of nulls
      expected = lance;
    } else {
      assertThat(lance).as("read by lance-core").containsExactlyElementsOf(expected);
    }
    try (InputFile in = HadoopFileIO.local().newInputFile(path.toUri().toString())) {
      CHOSEN.put(shape.name() + " (" + version + ")", LanceFileInspector.encodings(in).toString());
      LanceFileReader reader = LanceFileReader.open(in);
      assertThat(reader.numRows()).isEqualTo(shape.rows());
      FileProjection all = FileProjection.all(reader.schema());
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
      Random r = new Random(7);
      long[] rows = r.longs(Math.min(50, shape.rows()), 0, shape.rows()).sorted().toArray();
      List<Object> wanted = new ArrayList<>();
      for (long row : rows) {
        wanted.add(expected.get((int) row));
      }
      try (VectorSchemaRoot taken = reader.take(all, rows, allocator)) {
        assertThat(Values.of(taken.getVector(0))).as("take").containsExactlyElementsOf(wanted);
      }
    }
  }
}
