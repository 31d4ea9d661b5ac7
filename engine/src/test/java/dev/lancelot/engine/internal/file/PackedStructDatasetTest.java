package dev.lancelot.engine.internal.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.CloseableIterator;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.LancelotException;
import dev.lancelot.engine.io.HadoopFileIO;
import dev.lancelot.engine.io.InputFile;
import dev.lancelot.engine.schema.LanceSchema;
import dev.lancelot.engine.testing.ArrowStreams;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Datasets lance-core 7.0.0 writes with a packed struct between two ordinary columns, in each file
 * format: the manifest maps the struct's own field id to one column (its members have none), and
 * lancelot reads every column through that mapping.
 */
@Tag("oracle")
class PackedStructDatasetTest {
  static final int ROWS = 3000;
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

  static Field packed(String name, Field... members) {
    return new Field(
        name,
        new FieldType(true, ArrowType.Struct.INSTANCE, null, Map.of("packed", "true")),
        List.of(members));
  }

  static final Schema SCHEMA =
      new Schema(
          List.of(
              NestedShapes.f("id", NestedShapes.I64),
              packed(
                  "c",
                  NestedShapes.f("a", NestedShapes.I32),
                  NestedShapes.f("b", NestedShapes.F64)),
              NestedShapes.f("z", NestedShapes.UTF8)));

  /** Writes the dataset with lance-core; returns the written values per column. */
  static List<List<Object>> write(Path uri, String version) throws Exception {
    List<List<Object>> columns = new ArrayList<>();
    try (VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator)) {
      root.allocateNew();
      Random r = new Random(5);
      for (int i = 0; i < ROWS; i++) {
        ArrowFill.set(root.getVector(0), i, (long) i);
        ArrowFill.set(
            root.getVector(1), i, NestedShapes.struct("a", r.nextInt(), "b", r.nextGaussian()));
        ArrowFill.set(root.getVector(2), i, "z" + r.nextInt(1000));
      }
      root.setRowCount(ROWS);
      for (int c = 0; c < 3; c++) {
        columns.add(Values.of(root.getVector(c)));
      }
      try (ArrowReader source = ArrowStreams.readerOf(allocator, List.of(root));
          org.lance.Dataset ds =
              org.lance.Dataset.write()
                  .allocator(allocator)
                  .reader(source)
                  .uri(uri.toString())
                  .dataStorageVersion(version)
                  .execute()) {
        org.lance.fragment.DataFile df = ds.getFragments().get(0).metadata().getFiles().get(0);
        assertThat(df.getFields()).as("DataFile.fields").containsExactly(0, 1, 4);
        assertThat(df.getColumnIndices()).as("DataFile.column_indices").containsExactly(0, 1, 2);
        try (InputFile in =
            HadoopFileIO.local()
                .newInputFile(uri.resolve("data").resolve(df.getPath()).toUri().toString())) {
          LanceSchema schema = LanceFileReader.open(in).schema();
          assertThat(schema.leafColumnIndices())
              .containsExactly(Map.entry(0, 0), Map.entry(1, 1), Map.entry(4, 2));
        }
      }
    }
    return columns;
  }

  static List<Object> scan(Path uri, String column) throws Exception {
    List<Object> out = new ArrayList<>();
    try (Dataset ds = Dataset.open(uri.toString());
        CloseableIterator<VectorSchemaRoot> it = ds.newScan().columns(column).batches()) {
      while (it.hasNext()) {
        try (VectorSchemaRoot root = it.next()) {
          out.addAll(Values.of(root.getVector(0)));
        }
      }
    }
    return out;
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"2.0", "2.1", "2.2"})
  void columnsAroundAPackedStructAreReadAndThePackedStructIsNeverReadAsNulls(String version)
      throws Exception {
    Path uri = dir.resolve("ds-" + version);
    List<List<Object>> written = write(uri, version);
    assertThat(scan(uri, "id")).containsExactlyElementsOf(written.get(0));
    assertThat(scan(uri, "z")).containsExactlyElementsOf(written.get(2));
    assertThatThrownBy(() -> scan(uri, "c"))
        .isInstanceOf(LancelotException.class)
        .hasMessageContaining("PackedStruct(")
        .hasMessageContaining("not supported by lancelot yet");
  }
}
