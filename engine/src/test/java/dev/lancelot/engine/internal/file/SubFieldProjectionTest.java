package dev.lancelot.engine.internal.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.io.HadoopFileIO;
import dev.lancelot.engine.io.InputFile;
import dev.lancelot.engine.schema.SchemaException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Projecting struct members by path ({@code "s.y"}, {@code "ls.item.b"}) returns the structs with
 * only those members (struct validity kept) and reads only those members' columns.
 */
@Tag("oracle")
class SubFieldProjectionTest {
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

  static final Field S =
      NestedShapes.f(
          "s",
          ArrowType.Struct.INSTANCE,
          NestedShapes.f("x", NestedShapes.I64),
          NestedShapes.f("y", NestedShapes.UTF8),
          NestedShapes.f("z", new ArrowType.FixedSizeList(8), NestedShapes.item(NestedShapes.F32)));
  static final Field LS =
      NestedShapes.f(
          "ls",
          ArrowType.List.INSTANCE,
          NestedShapes.item(
              ArrowType.Struct.INSTANCE,
              NestedShapes.f("a", NestedShapes.I32),
              NestedShapes.f("b", NestedShapes.UTF8)));

  @ParameterizedTest(name = "format {0}")
  @ValueSource(strings = {"2.0", "2.1", "2.2"})
  void readsOnlyTheMembersAskedFor(String version) throws Exception {
    Path path = dir.resolve("sub-" + version + ".lance");
    int rows = 3000;
    try (VectorSchemaRoot root = VectorSchemaRoot.create(new Schema(List.of(S, LS)), allocator)) {
      root.allocateNew();
      Random r = new Random(5);
      for (int i = 0; i < rows; i++) {
        Object s =
            r.nextInt(10) == 0
                ? null
                : NestedShapes.struct(
                    "x",
                    (long) i,
                    "y",
                    r.nextInt(6) == 0 ? null : "y" + r.nextInt(1000),
                    "z",
                    NestedShapes.vector(r, 8));
        ArrowFill.set(root.getVector(0), i, s);
        ArrowFill.set(
            root.getVector(1),
            i,
            NestedShapes.listOf(
                r,
                4,
                10,
                10,
                x -> NestedShapes.struct("a", x.nextInt(100), "b", "b" + x.nextInt(50))));
      }
      root.setRowCount(rows);
      OracleFiles.write(path, allocator, version, List.of(root));
    }
    List<Object> full = OracleFiles.readColumn(path, allocator, "s");
    List<Object> fullLs = OracleFiles.readColumn(path, allocator, "ls");
    try (InputFile in = HadoopFileIO.local().newInputFile(path.toUri().toString())) {
      LanceFileReader reader = LanceFileReader.open(in);
      FileProjection p = FileProjection.ofPaths(reader.schema(), List.of("ls.item.b", "s.y"));
      assertThat(p.schema().names()).containsExactly("ls", "s");
      assertThat(p.schema().fields().get(1).children())
          .extracting(f -> f.name())
          .containsExactly("y");
      List<Object> gotS = new ArrayList<>();
      List<Object> gotLs = new ArrayList<>();
      long bytes;
      try (LanceBatchReader batches = reader.read(p, 1000, allocator)) {
        while (batches.loadNextBatch()) {
          gotLs.addAll(Values.of(batches.getVectorSchemaRoot().getVector(0)));
          gotS.addAll(Values.of(batches.getVectorSchemaRoot().getVector(1)));
        }
        bytes = batches.bytesRead();
      }
      assertThat(gotS).containsExactlyElementsOf(only(full, "y"));
      List<Object> expectedLs = new ArrayList<>();
      for (Object l : fullLs) {
        expectedLs.add(l == null ? null : ((List<?>) l).stream().map(x -> only(x, "b")).toList());
      }
      assertThat(gotLs).containsExactlyElementsOf(expectedLs);
      long wanted = 0;
      long all = 0;
      for (var c : reader.metadata().columns()) {
        all += c.dataBytes();
      }
      for (int col : neededColumns(reader, p)) {
        wanted += reader.metadata().column(col).dataBytes();
      }
      // batches re-read a few boundary bytes (a shared validity byte, the preceding 2.0 index)
      assertThat(bytes)
          .as("bytes read for s.y and ls.item.b")
          .isLessThanOrEqualTo(wanted + 256)
          .isLessThan(all / 2);
      try (VectorSchemaRoot taken = reader.take(p, new long[] {0, 5, 2999}, allocator)) {
        assertThat(Values.of(taken.getVector(1)))
            .containsExactly(
                only(full.get(0), "y"), only(full.get(5), "y"), only(full.get(2999), "y"));
      }
    }
  }

  @org.junit.jupiter.api.Test
  void unknownPathsAreRefusedNamingThem() {
    var schema = dev.lancelot.engine.schema.LanceSchema.fromArrow(new Schema(List.of(S)));
    assertThatThrownBy(() -> schema.projectPaths(List.of("s.nope")))
        .isInstanceOf(SchemaException.class)
        .hasMessageContaining("\"s.nope\"");
  }

  /** Columns of the projected nodes: leaves (2.1+), or every node in pre-order (2.0). */
  private static List<Integer> neededColumns(LanceFileReader reader, FileProjection p) {
    List<Integer> out = new ArrayList<>();
    var all = reader.schema().preOrder();
    for (var top : p.schema().fields()) {
      for (var f : top.preOrder()) {
        if (reader.version().equals(FileVersion.V2_0)) {
          for (int j = 0; j < all.size(); j++) {
            if (all.get(j).id() == f.id()) {
              out.add(j);
            }
          }
        } else if (f.isLeaf()) {
          out.add(reader.schema().leafColumnIndices().get(f.id()));
        }
      }
    }
    return out;
  }

  private static List<Object> only(List<Object> structs, String member) {
    List<Object> out = new ArrayList<>();
    for (Object s : structs) {
      out.add(only(s, member));
    }
    return out;
  }

  private static Object only(Object struct, String member) {
    if (struct == null) {
      return null;
    }
    Map<Object, Object> m = new LinkedHashMap<>();
    Object v = ((Map<?, ?>) struct).get(member);
    if (v != null) {
      m.put(member, v);
    }
    return m;
  }
}
