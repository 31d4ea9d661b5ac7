package dev.lancelot.engine.internal.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.io.HadoopFileIO;
import dev.lancelot.engine.io.InputFile;
import dev.lancelot.engine.schema.LanceSchema;
import dev.lancelot.engine.schema.SchemaException;
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
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Files our writer writes are read by lance-core 7.0.0 (and by our reader) row for row. */
@Tag("oracle")
class LanceFileWriterOracleTest {
  @TempDir static Path dir;
  static BufferAllocator allocator;
  static final Map<String, String> WRITTEN = new TreeMap<>();

  @BeforeAll
  static void setUp() {
    allocator = new RootAllocator();
  }

  @AfterAll
  static void tearDown() {
    StringBuilder sb = new StringBuilder("Encodings written by lancelot:\n");
    WRITTEN.forEach((k, v) -> sb.append(String.format("  %-28s %s%n", k, v)));
    System.out.println(sb);
    allocator.close();
  }

  static WriteSummary write(
      Path path, LanceSchema schema, List<VectorSchemaRoot> batches, long maxPageBytes) {
    return write(path, schema, batches, WriterOptions.defaults().withMaxPageBytes(maxPageBytes));
  }

  static WriteSummary write(
      Path path, LanceSchema schema, List<VectorSchemaRoot> batches, WriterOptions options) {
    HadoopFileIO io = HadoopFileIO.local();
    try (LanceFileWriter w =
        LanceFileWriter.create(io.create(path.toUri().toString()), schema, options)) {
      for (VectorSchemaRoot b : batches) {
        w.write(b);
      }
      return w.finish();
    }
  }

  /** Every shape, written as file format 2.1 and as 2.2. */
  static Stream<org.junit.jupiter.params.provider.Arguments> shapes() {
    return Shapes.all().stream()
        .flatMap(
            sh ->
                Stream.of(FileVersion.V2_1, FileVersion.V2_2)
                    .map(v -> org.junit.jupiter.params.provider.Arguments.of(sh, v)));
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("shapes")
  void lanceReadsWhatWeWrote(Shapes.Shape shape, FileVersion version) throws Exception {
    Path path = dir.resolve(shape.name() + "-" + version + ".lance");
    int first = shape.rows() / 3 + 11;
    List<Object> expected = new ArrayList<>();
    WriteSummary summary;
    try (VectorSchemaRoot a = Shapes.batch(shape, allocator, 1, first);
        VectorSchemaRoot b = Shapes.batch(shape, allocator, 2, shape.rows() - first)) {
      LanceSchema schema = LanceSchema.fromArrow(a.getSchema());
      // small pages, so every shape spans several pages
      summary =
          write(
              path,
              schema,
              List.of(a, b),
              WriterOptions.defaults().withMaxPageBytes(16 * 1024).withVersion(version));
      expected.addAll(Values.of(a.getVector(0)));
      expected.addAll(Values.of(b.getVector(0)));
    }
    assertThat(summary.numRows()).isEqualTo(shape.rows());
    assertThat(summary.version()).isEqualTo(version);
    assertThat(summary.fieldIds()).containsExactly(0);
    assertThat(summary.columnIndices()).containsExactly(0);
    assertThat(summary.fileSizeBytes()).isEqualTo(path.toFile().length());
    assertThat(OracleFiles.readColumn(path, allocator, "c"))
        .as("read by lance-core")
        .containsExactlyElementsOf(expected);
    try (InputFile in = HadoopFileIO.local().newInputFile(path.toUri().toString())) {
      LanceFileReader reader = LanceFileReader.open(in);
      assertThat(reader.metadata().version()).isEqualTo(version);
      WRITTEN.put(
          shape.name() + " " + version,
          summary.numPages()
              + " pages: "
              + String.join(" | ", LanceFileInspector.encodings(in).get("c")));
      assertThat(
              LanceFileReaderOracleTest.scan(
                  reader, FileProjection.all(reader.schema()), 0, reader.numRows(), 700, allocator))
          .as("read by lancelot")
          .containsExactlyElementsOf(expected);
    }
  }

  @Test
  void foundationColumnsInManyBatchesAndPages() throws Exception {
    Path path = dir.resolve("foundation.lance");
    LanceSchema schema = LanceSchema.fromArrow(FoundationData.schema());
    List<VectorSchemaRoot> batches = new ArrayList<>();
    int[] sizes = {1000, 1, 2500, 777, 4096};
    long row = 0;
    for (int s : sizes) {
      batches.add(FoundationData.batch(allocator, row, s, 5));
      row += s;
    }
    WriteSummary summary;
    try {
      summary = write(path, schema, batches, 256 * 1024);
    } finally {
      batches.forEach(VectorSchemaRoot::close);
    }
    assertThat(summary.numRows()).isEqualTo(row);
    assertThat(summary.fieldIds()).containsExactly(0, 1, 2, 3);
    assertThat(summary.columnIndices()).containsExactly(0, 1, 2, 3);
    assertThat(summary.version()).isEqualTo(FileVersion.V2_1);
    assertThat(summary.numPages()).isGreaterThan(4);

    List<List<Object>> lance =
        List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
    OracleFiles.read(
        path,
        allocator,
        List.of("id", "tenant_id", "name", "vec"),
        1000,
        root -> {
          for (int c = 0; c < 4; c++) {
            lance.get(c).addAll(Values.of(root.getVector(c)));
          }
        });
    row = 0;
    for (int s : sizes) {
      try (VectorSchemaRoot expected = FoundationData.batch(allocator, row, s, 5)) {
        for (int c = 0; c < 4; c++) {
          assertThat(lance.get(c).subList((int) row, (int) row + s))
              .as("column %d rows from %d", c, row)
              .containsExactlyElementsOf(Values.of(expected.getVector(c)));
        }
      }
      row += s;
    }
    try (InputFile in = HadoopFileIO.local().newInputFile(path.toUri().toString())) {
      System.out.println(LanceFileInspector.describe(in));
      LanceFileReader reader = LanceFileReader.open(in);
      assertThat(reader.schema()).isEqualTo(schema);
      assertThat(reader.metadata().column(3).pages()).hasSizeGreaterThan(2);
      long[] rows = new Random(1).longs(30, 0, reader.numRows()).sorted().toArray();
      try (VectorSchemaRoot taken =
          reader.take(FileProjection.all(reader.schema()), rows, allocator)) {
        for (int i = 0; i < rows.length; i++) {
          assertThat(taken.getVector("id").getObject(i)).isEqualTo(rows[i]);
          assertThat(Values.normalize(taken.getVector("vec").getObject(i)))
              .isEqualTo(lance.get(3).get((int) rows[i]));
          assertThat(Values.normalize(taken.getVector("name").getObject(i)))
              .isEqualTo(lance.get(2).get((int) rows[i]));
        }
      }
    }
  }

  @Test
  void emptyAndSingleRowFiles() throws Exception {
    LanceSchema schema = LanceSchema.fromArrow(FoundationData.schema());
    Path empty = dir.resolve("empty.lance");
    try (VectorSchemaRoot none = FoundationData.batch(allocator, 0, 0, 1)) {
      WriteSummary s = write(empty, schema, List.of(none), 1 << 20);
      assertThat(s.numRows()).isZero();
      assertThat(s.numPages()).isZero();
    }
    try (org.lance.file.LanceFileReader r =
        org.lance.file.LanceFileReader.open(empty.toString(), allocator)) {
      assertThat(r.numRows()).isZero();
    }
    try (InputFile in = HadoopFileIO.local().newInputFile(empty.toUri().toString())) {
      LanceFileReader reader = LanceFileReader.open(in);
      assertThat(reader.numRows()).isZero();
      assertThat(reader.schema()).isEqualTo(schema);
      try (LanceBatchReader batches = reader.read(FileProjection.all(schema), 10, allocator)) {
        assertThat(batches.loadNextBatch()).isFalse();
      }
    }
    Path one = dir.resolve("one.lance");
    List<Object> expected;
    try (VectorSchemaRoot b = FoundationData.batch(allocator, 5, 1, 1)) {
      write(one, schema, List.of(b), 1 << 20);
      expected = Values.of(b.getVector("vec"));
    }
    assertThat(OracleFiles.readColumn(one, allocator, "vec")).containsExactlyElementsOf(expected);
  }

  @Test
  void globalBuffersAndLateSchemaMetadataAsIndexFilesUseThem() throws Exception {
    Path path = dir.resolve("with-buffers.lance");
    LanceSchema schema =
        LanceSchema.fromArrow(
            new Schema(
                FoundationData.schema().getFields(),
                Map.of("lance:index", "{\"type\":\"IVF_PQ\"}")));
    byte[] centroids = new byte[1000];
    new Random(1).nextBytes(centroids);
    HadoopFileIO io = HadoopFileIO.local();
    try (VectorSchemaRoot b = FoundationData.batch(allocator, 0, 100, 2);
        LanceFileWriter w =
            LanceFileWriter.create(
                io.create(path.toUri().toString()), schema, WriterOptions.defaults())) {
      w.write(b);
      assertThat(w.addGlobalBuffer(centroids)).isEqualTo(1);
      assertThat(w.addGlobalBuffer(new byte[] {1, 2, 3})).isEqualTo(2);
      w.putSchemaMetadata("lance:ivf", "1");
      w.finish();
    }
    try (org.lance.file.LanceFileReader r =
        org.lance.file.LanceFileReader.open(path.toString(), allocator)) {
      assertThat(r.numRows()).isEqualTo(100);
      assertThat(r.schema().getCustomMetadata())
          .containsEntry("lance:ivf", "1")
          .containsEntry("lance:index", "{\"type\":\"IVF_PQ\"}");
    }
    assertThat(OracleFiles.readColumn(path, allocator, "id")).hasSize(100);
    try (InputFile in = io.newInputFile(path.toUri().toString())) {
      LanceFileReader reader = LanceFileReader.open(in);
      assertThat(reader.numGlobalBuffers()).isEqualTo(3);
      java.nio.ByteBuffer g1 = reader.readGlobalBuffer(1);
      byte[] got = new byte[g1.remaining()];
      g1.get(got);
      assertThat(got).isEqualTo(centroids);
      assertThat(reader.readGlobalBuffer(2).remaining()).isEqualTo(3);
      assertThat(reader.schema().metadata()).containsEntry("lance:ivf", "1");
    }
  }

  @Test
  void refusesNullsInNonNullableFields() throws Exception {
    Schema arrow =
        new Schema(
            List.of(new Field("x", FieldType.notNullable(new ArrowType.Int(32, true)), null)));
    try (VectorSchemaRoot root = VectorSchemaRoot.create(arrow, allocator)) {
      root.allocateNew();
      root.getVector(0).setNull(0);
      root.getVector(0).setValueCount(1);
      root.setRowCount(1);
      HadoopFileIO io = HadoopFileIO.local();
      try (LanceFileWriter w =
          LanceFileWriter.create(
              io.create(dir.resolve("nn.lance").toUri().toString()),
              LanceSchema.fromArrow(arrow),
              WriterOptions.defaults())) {
        assertThatThrownBy(() -> w.write(root))
            .isInstanceOf(SchemaException.class)
            .hasMessageContaining("\"x\"")
            .hasMessageContaining("not nullable");
      }
    }
  }

  @Test
  void refusesStructsWithoutFields() {
    Schema arrow =
        new Schema(
            List.of(new Field("s", FieldType.nullable(ArrowType.Struct.INSTANCE), List.of())));
    HadoopFileIO io = HadoopFileIO.local();
    assertThatThrownBy(
            () ->
                LanceFileWriter.create(
                    io.create(dir.resolve("nested.lance").toUri().toString()),
                    LanceSchema.fromArrow(arrow),
                    WriterOptions.defaults()))
        .isInstanceOf(SchemaException.class)
        .hasMessageContaining("\"s\"")
        .hasMessageContaining("without fields");
  }

  @Test
  void refusesPackedStructs() {
    Field packed =
        new Field(
            "p",
            new FieldType(
                true, ArrowType.Struct.INSTANCE, null, java.util.Map.of("packed", "true")),
            List.of(new Field("a", FieldType.nullable(new ArrowType.Int(32, true)), null)));
    Schema arrow =
        new Schema(
            List.of(new Field("l", FieldType.nullable(ArrowType.List.INSTANCE), List.of(packed))));
    HadoopFileIO io = HadoopFileIO.local();
    assertThatThrownBy(
            () ->
                LanceFileWriter.create(
                    io.create(dir.resolve("packed.lance").toUri().toString()),
                    LanceSchema.fromArrow(arrow),
                    WriterOptions.defaults()))
        .isInstanceOf(SchemaException.class)
        .hasMessageContaining("\"p\"")
        .hasMessageContaining("packed struct");
  }
}
