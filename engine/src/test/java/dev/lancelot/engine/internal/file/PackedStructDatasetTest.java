package dev.lancelot.engine.internal.file;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancelot.engine.CloseableIterator;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.schema.LanceField;
import dev.lancelot.engine.schema.LanceSchema;
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
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Datasets lance-core 7.0.0 writes with a packed struct shape ({@link NestedShapes#packed()})
 * between two ordinary columns, in each format it can write the shape in. The manifest records the
 * packed struct's own field id for its one column and none for its members; lancelot reads every
 * column through that mapping, in scans and takes, with the values lance-core reads.
 */
@Tag("oracle")
class PackedStructDatasetTest {
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

  static Stream<Arguments> cases() {
    return PackedStructReaderOracleTest.cases();
  }

  @ParameterizedTest(name = "{0} ({1})")
  @MethodSource("cases")
  void readsEveryColumnAsLanceDoes(NestedShapes.Shape shape, String version, boolean lanceReadsBack)
      throws Exception {
    Path uri = dir.resolve(shape.name() + "-" + version);
    Schema schema =
        new Schema(
            List.of(
                NestedShapes.f("id", NestedShapes.I64),
                shape.field("c"),
                NestedShapes.f("z", NestedShapes.UTF8)));
    List<List<Object>> written = new ArrayList<>();
    int rows = shape.rows();
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
      root.allocateNew();
      Random r = new Random(5);
      for (int i = 0; i < rows; i++) {
        ArrowFill.set(root.getVector(0), i, (long) i);
        ArrowFill.set(root.getVector(1), i, shape.row().apply(i, r));
        ArrowFill.set(root.getVector(2), i, "z" + r.nextInt(1000));
      }
      root.setRowCount(rows);
      for (FieldVector v : root.getFieldVectors()) {
        written.add(Values.of(v));
      }
      try (ArrowReader source = ArrowStreams.readerOf(allocator, List.of(root));
          org.lance.Dataset ds =
              org.lance.Dataset.write()
                  .allocator(allocator)
                  .reader(source)
                  .uri(uri.toString())
                  .dataStorageVersion(version)
                  .execute()) {
        LanceSchema ours = LanceSchema.fromArrow(schema);
        List<LanceField> columns =
            version.equals("2.0")
                ? Nested20Field.fieldsWithColumns20(ours.fields())
                : ours.columnFields();
        for (org.lance.Fragment fragment : ds.getFragments()) {
          org.lance.fragment.DataFile df = fragment.metadata().getFiles().get(0);
          assertThat(df.getFields())
              .as("DataFile.fields: the packed struct's id, none of its members'")
              .containsExactly(columns.stream().mapToInt(LanceField::id).toArray());
          assertThat(df.getColumnIndices())
              .containsExactly(java.util.stream.IntStream.range(0, columns.size()).toArray());
        }
      }
    }
    if (lanceReadsBack) {
      assertThat(lanceRows(uri, "c", allocator))
          .as("read by lance-core")
          .containsExactlyElementsOf(written.get(1));
    }
    List<List<Object>> ours = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
    try (Dataset ds = Dataset.open(uri.toString());
        CloseableIterator<VectorSchemaRoot> it = ds.newScan().batchSize(777).batches()) {
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
    long[] rowsTaken = PackedStructReaderOracleTest.takeRows(rows);
    try (Dataset ds = Dataset.open(uri.toString());
        VectorSchemaRoot taken = ds.take(rowsTaken, List.of("z", "c"))) {
      assertThat(Values.of(taken.getVector(1)))
          .as("take")
          .containsExactlyElementsOf(PackedStructReaderOracleTest.pick(written.get(1), rowsTaken));
      assertThat(Values.of(taken.getVector(0)))
          .containsExactlyElementsOf(PackedStructReaderOracleTest.pick(written.get(2), rowsTaken));
    }
  }

  /** A column of the dataset as lance-core's scanner reads it. */
  static List<Object> lanceRows(Path uri, String column, BufferAllocator allocator)
      throws Exception {
    List<Object> out = new ArrayList<>();
    try (org.lance.Dataset ds = dev.lancelot.engine.testing.LanceOracle.open(allocator, uri);
        org.lance.ipc.LanceScanner scanner =
            ds.newScan(new org.lance.ipc.ScanOptions.Builder().columns(List.of(column)).build());
        ArrowReader reader = scanner.scanBatches()) {
      while (reader.loadNextBatch()) {
        out.addAll(Values.of(reader.getVectorSchemaRoot().getVector(column)));
      }
    }
    return out;
  }
}
