package dev.lancelot.engine.internal.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.CloseableIterator;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.internal.format.SchemaProtos;
import dev.lancelot.engine.io.HadoopFileIO;
import dev.lancelot.engine.io.InputFile;
import dev.lancelot.engine.schema.LanceSchema;
import dev.lancelot.engine.schema.SchemaException;
import dev.lancelot.engine.testing.ArrowStreams;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Map columns ({@link NestedShapes#maps()}), which lance-core 7.0.0 writes in format 2.2 only: our
 * reader returns Arrow map vectors with the values written and lance-core reads, in scans of
 * several batch sizes, a range scan and takes of a file, and through a dataset lance-core wrote.
 */
@Tag("oracle")
class MapReaderOracleTest {
  @TempDir static Path dir;
  static BufferAllocator allocator;

  @BeforeAll
  static void setUp() {
    allocator = new RootAllocator();
  }

  @AfterAll
  static void tearDown() {
    allocator.close();
  }

  static Stream<NestedShapes.Shape> shapes() {
    return NestedShapes.maps().stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("shapes")
  void readsTheFileLanceWrote(NestedShapes.Shape shape) throws Exception {
    Path path = dir.resolve(shape.name() + ".lance");
    List<Object> expected = PackedStructReaderOracleTest.write(shape, "2.2", path, allocator);
    assertThat(OracleFiles.readColumn(path, allocator, "c"))
        .as("read by lance-core")
        .containsExactlyElementsOf(expected);
    try (InputFile in = HadoopFileIO.local().newInputFile(path.toUri().toString())) {
      LanceFileReader reader = LanceFileReader.open(in);
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
      long[] rows = PackedStructReaderOracleTest.takeRows(shape.rows());
      assertThat(PackedStructReaderOracleTest.take(reader, all, rows, allocator))
          .as("take")
          .containsExactlyElementsOf(PackedStructReaderOracleTest.pick(expected, rows));
    }
  }

  @Test
  void aMapIsReadAsAnArrowMapVectorAndItsEntriesCannotBeProjected() throws Exception {
    NestedShapes.Shape shape = NestedShapes.maps().get(0);
    Path path = dir.resolve("map-vector.lance");
    PackedStructReaderOracleTest.write(shape, "2.2", path, allocator);
    try (InputFile in = HadoopFileIO.local().newInputFile(path.toUri().toString())) {
      LanceFileReader reader = LanceFileReader.open(in);
      try (LanceBatchReader batches =
          reader.read(FileProjection.all(reader.schema()), 0, 10, 10, allocator)) {
        assertThat(batches.loadNextBatch()).isTrue();
        assertThat(batches.getVectorSchemaRoot().getVector(0)).isInstanceOf(MapVector.class);
      }
      assertThat(reader.schema().toArrow().getFields()).containsExactly(shape.field("c"));
      assertThat(SchemaProtos.toProtos(reader.schema()))
          .as("the schema Lance wrote is the one we derive from Arrow")
          .containsExactlyElementsOf(
              SchemaProtos.toProtos(LanceSchema.fromArrow(new Schema(List.of(shape.field("c"))))));
      assertThatThrownBy(() -> FileProjection.ofPaths(reader.schema(), List.of("c.entries.key")))
          .isInstanceOf(SchemaException.class)
          .hasMessageContaining("inside map \"c\"");
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("shapes")
  void readsTheDatasetLanceWrote(NestedShapes.Shape shape) throws Exception {
    Path uri = dir.resolve("ds-" + shape.name());
    Schema schema =
        new Schema(
            List.of(
                NestedShapes.f("id", NestedShapes.I64),
                shape.field("c"),
                NestedShapes.f("z", NestedShapes.UTF8)));
    List<List<Object>> written = new ArrayList<>();
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
      root.allocateNew();
      Random r = new Random(3);
      for (int i = 0; i < shape.rows(); i++) {
        ArrowFill.set(root.getVector(0), i, (long) i);
        ArrowFill.set(root.getVector(1), i, shape.row().apply(i, r));
        ArrowFill.set(root.getVector(2), i, "z" + i);
      }
      root.setRowCount(shape.rows());
      for (FieldVector v : root.getFieldVectors()) {
        written.add(Values.of(v));
      }
      try (ArrowReader source = ArrowStreams.readerOf(allocator, List.of(root));
          org.lance.Dataset ds =
              org.lance.Dataset.write()
                  .allocator(allocator)
                  .reader(source)
                  .uri(uri.toString())
                  .dataStorageVersion("2.2")
                  .execute()) {
        assertThat(ds.getLanceFileFormatVersion()).isEqualTo("2.2");
      }
    }
    assertThat(PackedStructDatasetTest.lanceRows(uri, "c", allocator))
        .as("read by lance-core")
        .containsExactlyElementsOf(written.get(1));
    List<List<Object>> ours = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
    try (Dataset ds = Dataset.open(uri.toString());
        CloseableIterator<VectorSchemaRoot> it = ds.newScan().batchSize(600).batches()) {
      while (it.hasNext()) {
        try (VectorSchemaRoot root = it.next()) {
          for (int c = 0; c < 3; c++) {
            ours.get(c).addAll(Values.of(root.getVector(c)));
          }
        }
      }
    }
    for (int c = 0; c < 3; c++) {
      assertThat(ours.get(c)).as("column %d", c).containsExactlyElementsOf(written.get(c));
    }
    long[] rows = PackedStructReaderOracleTest.takeRows(shape.rows());
    try (Dataset ds = Dataset.open(uri.toString());
        VectorSchemaRoot taken = ds.take(rows, List.of("c", "z"))) {
      assertThat(Values.of(taken.getVector(0)))
          .as("take")
          .containsExactlyElementsOf(PackedStructReaderOracleTest.pick(written.get(1), rows));
      assertThat(Values.of(taken.getVector(1)))
          .containsExactlyElementsOf(PackedStructReaderOracleTest.pick(written.get(2), rows));
    }
  }
}
