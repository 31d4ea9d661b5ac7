package dev.lancelot.engine.internal.file;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancelot.engine.io.HadoopFileIO;
import dev.lancelot.engine.io.InputFile;
import dev.lancelot.engine.schema.LanceSchema;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A file with struct and list columns between flat ones: every field is found through the
 * manifest's leaf-id/column-index mapping (columns are leaves only, in pre-order), nested ones
 * included.
 */
@Tag("oracle")
class NestedSchemaFileTest {
  @TempDir Path dir;

  static Field f(String name, ArrowType type, Field... children) {
    return new Field(
        name, FieldType.nullable(type), children.length == 0 ? null : List.of(children));
  }

  @Test
  void flatFieldsBetweenNestedOnes() throws Exception {
    Schema arrow =
        new Schema(
            List.of(
                f("a", new ArrowType.Int(32, true)),
                f(
                    "s",
                    ArrowType.Struct.INSTANCE,
                    f("x", new ArrowType.Int(32, true)),
                    f("y", ArrowType.Utf8.INSTANCE)),
                f("l", ArrowType.List.INSTANCE, f("item", new ArrowType.Int(64, true))),
                f(
                    "v",
                    new ArrowType.FixedSizeList(4),
                    f("item", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE))),
                f("name", ArrowType.Utf8.INSTANCE)));
    int rows = 500;
    String uri = dir.resolve("ds").toString();
    org.lance.fragment.DataFile df;
    List<Object> a = new ArrayList<>();
    List<Object> sExpected = new ArrayList<>();
    List<Object> lExpected = new ArrayList<>();
    List<Object> v = new ArrayList<>();
    List<Object> name = new ArrayList<>();
    try (BufferAllocator allocator = new RootAllocator();
        VectorSchemaRoot root = VectorSchemaRoot.create(arrow, allocator)) {
      root.allocateNew();
      IntVector av = (IntVector) root.getVector("a");
      StructVector sv = (StructVector) root.getVector("s");
      ListVector lv = (ListVector) root.getVector("l");
      FixedSizeListVector fv = (FixedSizeListVector) root.getVector("v");
      VarCharVector nv = (VarCharVector) root.getVector("name");
      IntVector x = (IntVector) sv.getChild("x");
      VarCharVector y = (VarCharVector) sv.getChild("y");
      BigIntVector items = (BigIntVector) lv.getDataVector();
      Float4Vector floats = (Float4Vector) fv.getDataVector();
      for (int i = 0; i < rows; i++) {
        av.setSafe(i, i * 3);
        sv.setIndexDefined(i);
        x.setSafe(i, i);
        y.setSafe(i, Shapes.utf8("y" + i));
        fv.setNotNull(i);
        for (int j = 0; j < 4; j++) {
          floats.setSafe(i * 4 + j, i + j / 10f);
        }
        if (i % 4 == 0) {
          nv.setNull(i);
        } else {
          nv.setSafe(i, Shapes.utf8("n" + i));
        }
      }
      int total = 0;
      for (int i = 0; i < rows; i++) {
        lv.startNewValue(i);
        for (int j = 0; j < i % 3; j++) {
          items.setSafe(total++, j);
        }
        lv.endValue(i, i % 3);
      }
      items.setValueCount(total);
      floats.setValueCount(rows * 4);
      x.setValueCount(rows);
      y.setValueCount(rows);
      root.setRowCount(rows);
      a.addAll(Values.of(av));
      sExpected.addAll(Values.of(sv));
      lExpected.addAll(Values.of(lv));
      v.addAll(Values.of(fv));
      name.addAll(Values.of(nv));
      df =
          org.lance.Fragment.create(
                  uri, allocator, root, new org.lance.WriteParams.Builder().build())
              .get(0)
              .getFiles()
              .get(0);
    }
    // leaves in pre-order: a(0) x(2) y(3) item(5) v(6) name(7)
    assertThat(df.getFields()).containsExactly(0, 2, 3, 5, 6, 7);
    assertThat(df.getColumnIndices()).containsExactly(0, 1, 2, 3, 4, 5);
    Path file = dir.resolve("ds").resolve("data").resolve(df.getPath());
    try (BufferAllocator allocator = new RootAllocator();
        InputFile in = HadoopFileIO.local().newInputFile(file.toUri().toString())) {
      LanceFileReader reader = LanceFileReader.open(in);
      LanceSchema schema = reader.schema();
      FileProjection flat =
          FileProjection.fromDataFile(
              schema.project(List.of("name", "v", "a")), df.getFields(), df.getColumnIndices());
      assertThat(flat.columns(0)).containsExactly(5);
      assertThat(flat.columns(1)).containsExactly(4);
      assertThat(flat.columns(2)).containsExactly(0);
      List<Object> gotName = new ArrayList<>();
      List<Object> gotV = new ArrayList<>();
      List<Object> gotA = new ArrayList<>();
      try (LanceBatchReader r = reader.read(flat, 128, allocator)) {
        while (r.loadNextBatch()) {
          gotName.addAll(Values.of(r.getVectorSchemaRoot().getVector(0)));
          gotV.addAll(Values.of(r.getVectorSchemaRoot().getVector(1)));
          gotA.addAll(Values.of(r.getVectorSchemaRoot().getVector(2)));
        }
      }
      assertThat(gotName).containsExactlyElementsOf(name);
      assertThat(gotV).containsExactlyElementsOf(v);
      assertThat(gotA).containsExactlyElementsOf(a);

      FileProjection nested =
          FileProjection.fromDataFile(
              schema.project(List.of("l", "s")), df.getFields(), df.getColumnIndices());
      assertThat(nested.columns(0)).containsExactly(3);
      assertThat(nested.columns(1)).containsExactly(1, 2);
      List<Object> gotL = new ArrayList<>();
      List<Object> gotS = new ArrayList<>();
      try (LanceBatchReader r = reader.read(nested, 100, allocator)) {
        while (r.loadNextBatch()) {
          gotL.addAll(Values.of(r.getVectorSchemaRoot().getVector(0)));
          gotS.addAll(Values.of(r.getVectorSchemaRoot().getVector(1)));
        }
      }
      assertThat(gotL).containsExactlyElementsOf(lExpected);
      assertThat(gotS).containsExactlyElementsOf(sExpected);
    }
  }
}
