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
import org.junit.jupiter.params.provider.MethodSource;

/**
 * lance-core 7.0.0 writes a file per data shape (default format, two batches); our reader must
 * return identical values, nulls and order, in scans with several batch sizes and in takes. Prints
 * which layout and encodings Lance chose for each shape.
 */
@Tag("oracle")
class LanceFileReaderOracleTest {
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
        new StringBuilder("Encodings chosen by lance-core 7.0.0 (default format):\n");
    CHOSEN.forEach((k, v) -> sb.append(String.format("  %-28s %s%n", k, v)));
    System.out.println(sb);
    allocator.close();
  }

  static Stream<Shapes.Shape> shapes() {
    return Shapes.all().stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("shapes")
  void readsWhatLanceWrote(Shapes.Shape shape) throws Exception {
    check(shape, null, FileVersion.V2_1);
  }

  /** Format 2.2 adds large chunks, constant pages, RLE levels and compressed dictionaries. */
  @ParameterizedTest(name = "{0}")
  @MethodSource("shapes")
  void readsWhatLanceWroteInFormat22(Shapes.Shape shape) throws Exception {
    check(shape, "2.2", FileVersion.V2_2);
  }

  /**
   * Format 2.0 (footer 0.3): ArrayEncoding trees (Nullable, Flat, Binary, Dictionary,
   * FixedSizeList).
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("shapes")
  void readsWhatLanceWroteInFormat20(Shapes.Shape shape) throws Exception {
    check(shape, "2.0", FileVersion.V2_0);
  }

  static Stream<Shapes.Shape> hintedShapes() {
    return Shapes.withEncodingHints().stream();
  }

  /** Field metadata makes Lance use general compression, byte-stream-split and forced layouts. */
  @ParameterizedTest(name = "{0}")
  @MethodSource("hintedShapes")
  void readsEncodingsLanceUsesWhenAsked(Shapes.Shape shape) throws Exception {
    check(shape, null, FileVersion.V2_1);
  }

  /** Compression hints in format 2.0 compress binary value buffers whole. */
  @ParameterizedTest(name = "{0}")
  @MethodSource("hintedShapes")
  void readsEncodingsLanceUsesWhenAskedInFormat20(Shapes.Shape shape) throws Exception {
    check(shape, "2.0", FileVersion.V2_0);
  }

  private void check(Shapes.Shape shape, String version, FileVersion expectedVersion)
      throws Exception {
    Path path = dir.resolve(shape.name() + "-" + expectedVersion + ".lance");
    int first = shape.rows() / 2 + 7;
    List<Object> expected = new ArrayList<>();
    try (VectorSchemaRoot a = Shapes.batch(shape, allocator, 1, first);
        VectorSchemaRoot b = Shapes.batch(shape, allocator, 2, shape.rows() - first)) {
      OracleFiles.write(path, allocator, version, List.of(a, b));
      expected.addAll(Values.of(a.getVector(0)));
      expected.addAll(Values.of(b.getVector(0)));
    }
    HadoopFileIO io = HadoopFileIO.local();
    try (InputFile in = io.newInputFile(path.toUri().toString())) {
      CHOSEN.put(
          shape.name() + (version == null ? "" : " (" + version + ")"),
          String.join(" | ", LanceFileInspector.encodings(in).get("c")));
      LanceFileReader reader = LanceFileReader.open(in);
      assertThat(reader.numRows()).isEqualTo(shape.rows());
      assertThat(reader.version()).isEqualTo(expectedVersion);
      FileProjection all = FileProjection.all(reader.schema());
      for (int batchSize : new int[] {1024, 333}) {
        assertThat(scan(reader, all, 0, reader.numRows(), batchSize))
            .as("scan, batch size %d", batchSize)
            .containsExactlyElementsOf(expected);
      }
      long from = shape.rows() / 3;
      long to = shape.rows() - 5;
      assertThat(scan(reader, all, from, to, 500))
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

  static List<Object> scan(
      LanceFileReader reader, FileProjection p, long from, long to, int batchSize)
      throws Exception {
    return scan(reader, p, from, to, batchSize, allocator);
  }

  static List<Object> scan(
      LanceFileReader reader,
      FileProjection p,
      long from,
      long to,
      int batchSize,
      BufferAllocator allocator)
      throws Exception {
    List<Object> out = new ArrayList<>();
    try (LanceBatchReader batches = reader.read(p, from, to, batchSize, allocator)) {
      while (batches.loadNextBatch()) {
        VectorSchemaRoot root = batches.getVectorSchemaRoot();
        assertThat(root.getRowCount()).isLessThanOrEqualTo(batchSize);
        out.addAll(Values.of(root.getVector(0)));
      }
    }
    return out;
  }
}
