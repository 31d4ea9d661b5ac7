package dev.lancelot.engine.dataset;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.CloseableIterator;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.testing.ArrowStreams;
import dev.lancelot.engine.testing.Rows;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.LargeVarBinaryVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;
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
import org.lance.WriteParams;

/**
 * Blob fields inside a struct or a list, as lance-core 7.0.0 writes them (a {@code large_binary}
 * member with {@code lance-encoding:blob = true}, in 2.1 and 2.2 files): lance-core writes both and
 * its {@code takeBlobs} reaches a struct member ({@code s.b}). lancelot does not decode them yet: a
 * scan of such a column is refused naming the column, and the dataset's other columns read as
 * lance-core reads them.
 */
@Tag("oracle")
class NestedBlobOracleTest {
  private static BufferAllocator allocator;

  @BeforeAll
  static void setUp() {
    allocator = new RootAllocator();
  }

  @AfterAll
  static void tearDown() {
    allocator.close();
  }

  private static Field blob(String name) {
    return new Field(
        name,
        new FieldType(
            true, ArrowType.LargeBinary.INSTANCE, null, Map.of("lance-encoding:blob", "true")),
        null);
  }

  /** lance-core writes ids 0..2 with {@code s: struct<b: blob>} and {@code l: list<blob>}. */
  private static void lanceWrite(Path dir, String version) {
    Schema schema =
        new Schema(
            List.of(
                Field.notNullable("id", new ArrowType.Int(64, true)),
                new Field("s", FieldType.nullable(ArrowType.Struct.INSTANCE), List.of(blob("b"))),
                new Field(
                    "l", FieldType.nullable(ArrowType.List.INSTANCE), List.of(blob("item")))));
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
      root.allocateNew();
      BigIntVector id = (BigIntVector) root.getVector("id");
      StructVector s = (StructVector) root.getVector("s");
      LargeVarBinaryVector b = (LargeVarBinaryVector) s.getChild("b");
      ListVector l = (ListVector) root.getVector("l");
      LargeVarBinaryVector item = (LargeVarBinaryVector) l.getDataVector();
      for (int i = 0; i < 3; i++) {
        id.setSafe(i, i);
        s.setIndexDefined(i);
        b.setSafe(i, new byte[] {(byte) i, 7, 7});
        l.startNewValue(i);
        item.setSafe(i, new byte[] {(byte) i});
        l.endValue(i, 1);
      }
      b.setValueCount(3);
      item.setValueCount(3);
      root.setRowCount(3);
      org.lance.Dataset.write()
          .allocator(allocator)
          .reader(ArrowStreams.readerOf(allocator, List.of(root)))
          .uri(dir.toString())
          .mode(WriteParams.WriteMode.CREATE)
          .dataStorageVersion(version)
          .execute()
          .close();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"2.1", "2.2"})
  void lanceWritesThemAndLancelotRefusesThemNamingTheColumn(String version, @TempDir Path tmp)
      throws Exception {
    Path dir = tmp.resolve("nested");
    lanceWrite(dir, version);
    try (org.lance.Dataset lance =
        org.lance.Dataset.open(
            allocator, dir.toString(), new org.lance.ReadOptions.Builder().build())) {
      assertThat(lance.takeBlobs(List.of(0L, 1L, 2L), "s.b")).hasSize(3);
    }
    try (Dataset ds = Dataset.open(dir.toString())) {
      for (String column : List.of("s", "l")) {
        assertThatThrownBy(
                () -> {
                  try (CloseableIterator<VectorSchemaRoot> it =
                      ds.newScan().columns(List.of(column)).batches()) {
                    it.hasNext();
                  }
                })
            .as(column)
            .hasMessageContaining("Cannot read field \"" + column + "\"")
            .hasMessageContaining("lancelot reads top-level blob columns only");
      }
      List<List<Object>> ids = new ArrayList<>();
      try (CloseableIterator<VectorSchemaRoot> it = ds.newScan().columns(List.of("id")).batches()) {
        while (it.hasNext()) {
          ids.addAll(Rows.of(it.next()));
        }
      }
      assertThat(ids)
          .isEqualTo(
              dev.lancelot.engine.testing.LanceOracle.rows(allocator, dir, List.of("id"), null));
    }
  }
}
