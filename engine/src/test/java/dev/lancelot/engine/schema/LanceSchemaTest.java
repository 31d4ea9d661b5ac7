package dev.lancelot.engine.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.internal.file.container.FileMetadata;
import dev.lancelot.engine.internal.format.SchemaProtos;
import dev.lancelot.engine.internal.format.proto.FileProtos;
import dev.lancelot.engine.io.HadoopFileIO;
import dev.lancelot.engine.io.InputFile;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@Tag("oracle")
class LanceSchemaTest {
  @TempDir Path dir;

  static Field f(String name, ArrowType type, Field... children) {
    return new Field(
        name, FieldType.nullable(type), children.length == 0 ? null : List.of(children));
  }

  /** A schema with every kind of field Lance 7 writes. */
  static Schema wide() {
    ArrowType f32 = new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
    return new Schema(
        List.of(
            new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
            f(
                "s",
                ArrowType.Struct.INSTANCE,
                f("x", new ArrowType.Int(32, true)),
                f("y", ArrowType.Utf8.INSTANCE)),
            f("l", ArrowType.List.INSTANCE, f("item", new ArrowType.Int(64, true))),
            f("v", new ArrowType.FixedSizeList(4), f("item", f32)),
            f(
                "ls",
                ArrowType.List.INSTANCE,
                f("item", ArrowType.Struct.INSTANCE, f("p", new ArrowType.Int(32, true)))),
            f("t", new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC")),
            f("ts", new ArrowType.Timestamp(TimeUnit.NANOSECOND, null)),
            f("d", new ArrowType.Date(DateUnit.DAY)),
            f("dec", new ArrowType.Decimal(10, 2, 128)),
            f("lb", ArrowType.LargeBinary.INSTANCE),
            f("ls2", ArrowType.LargeUtf8.INSTANCE),
            f("fsb", new ArrowType.FixedSizeBinary(5)),
            f("h", new ArrowType.FloatingPoint(FloatingPointPrecision.HALF)),
            f("u8", new ArrowType.Int(8, false)),
            f("b", ArrowType.Bool.INSTANCE),
            f("ll", ArrowType.LargeList.INSTANCE, f("item", new ArrowType.Int(32, true))),
            f("tm", new ArrowType.Time(TimeUnit.MICROSECOND, 64)),
            f("dur", new ArrowType.Duration(TimeUnit.MILLISECOND))));
  }

  @Test
  void idsArePreOrderFromZeroAndVectorsAreOneField() {
    LanceSchema schema = LanceSchema.fromArrow(wide());
    List<String> flat =
        schema.preOrder().stream().map(x -> x.id() + ":" + x.name() + "<" + x.parentId()).toList();
    assertThat(flat)
        .startsWith(
            "0:id<-1",
            "1:s<-1",
            "2:x<1",
            "3:y<1",
            "4:l<-1",
            "5:item<4",
            "6:v<-1",
            "7:ls<-1",
            "8:item<7",
            "9:p<8",
            "10:t<-1");
    assertThat(schema.fieldByPath("v").orElseThrow().logicalType())
        .isEqualTo("fixed_size_list:float:4");
    assertThat(schema.fieldByPath("v").orElseThrow().children()).isEmpty();
    assertThat(schema.maxFieldId()).isEqualTo(schema.preOrder().size() - 1);
    assertThat(schema.leaves().stream().map(LanceField::name).toList())
        .startsWith("id", "x", "y", "item", "v", "p", "t");
    assertThat(schema.leafColumnIndices())
        .containsEntry(0, 0)
        .containsEntry(2, 1)
        .containsEntry(6, 4);
  }

  static Field packed(String name, String key, String value, Field... members) {
    return new Field(
        name,
        new FieldType(true, ArrowType.Struct.INSTANCE, null, Map.of(key, value)),
        List.of(members));
  }

  @Test
  void aPackedStructIsOneColumnAndItsMembersHaveNone() {
    // s {x, p packed {a, b}, y}, q packed {c} (2.2 key, any case), l list<packed {d}>, id
    Schema arrow =
        new Schema(
            List.of(
                f(
                    "s",
                    ArrowType.Struct.INSTANCE,
                    f("x", new ArrowType.Int(32, true)),
                    packed(
                        "p",
                        "packed",
                        "true",
                        f("a", new ArrowType.Int(32, true)),
                        f("b", ArrowType.Utf8.INSTANCE)),
                    f("y", ArrowType.Utf8.INSTANCE)),
                packed("q", "lance-encoding:packed", "TRUE", f("c", new ArrowType.Int(8, true))),
                f(
                    "l",
                    ArrowType.List.INSTANCE,
                    packed("item", "packed", "true", f("d", new ArrowType.Int(64, true)))),
                f("n", ArrowType.Struct.INSTANCE, f("e", new ArrowType.Int(32, true))),
                new Field(
                    "notpacked",
                    new FieldType(true, ArrowType.Struct.INSTANCE, null, Map.of("packed", "no")),
                    List.of(f("g", new ArrowType.Int(32, true))))));
    LanceSchema schema = LanceSchema.fromArrow(arrow);
    assertThat(schema.columnFields().stream().map(x -> x.id() + ":" + x.name()).toList())
        .containsExactly("1:x", "2:p", "5:y", "6:q", "9:item", "12:e", "14:g");
    assertThat(schema.leafColumnIndices())
        .containsExactly(
            Map.entry(1, 0),
            Map.entry(2, 1),
            Map.entry(5, 2),
            Map.entry(6, 3),
            Map.entry(9, 4),
            Map.entry(12, 5),
            Map.entry(14, 6));
    assertThat(schema.fieldByPath("s.p").orElseThrow().isPackedStruct()).isTrue();
    assertThat(schema.fieldByPath("notpacked").orElseThrow().isPackedStruct()).isFalse();
    assertThat(schema.leaves().stream().map(LanceField::name).toList())
        .containsExactly("x", "a", "b", "y", "c", "d", "e", "g");
  }

  @Test
  void protoAndArrowRoundTrips() {
    Schema arrow = new Schema(wide().getFields(), Map.of("k", "v"));
    LanceSchema schema = LanceSchema.fromArrow(arrow);
    LanceSchema back =
        SchemaProtos.fromProtos(SchemaProtos.toProtos(schema), SchemaProtos.metadataProto(schema));
    assertThat(back).isEqualTo(schema);
    assertThat(back.toArrow()).isEqualTo(arrow);
    assertThat(LanceSchema.fromArrow(back.toArrow())).isEqualTo(schema);
  }

  @Test
  void lookupsAndProjections() {
    LanceSchema schema = LanceSchema.fromArrow(wide());
    assertThat(schema.fieldById(3).orElseThrow().name()).isEqualTo("y");
    assertThat(schema.fieldByPath("s.y").orElseThrow().id()).isEqualTo(3);
    assertThat(schema.fieldByPath("l.item").orElseThrow().id()).isEqualTo(5);
    assertThat(schema.field("nope")).isEmpty();
    LanceSchema p = schema.project(List.of("v", "id"));
    assertThat(p.names()).containsExactly("v", "id");
    assertThat(p.fieldById(6)).isPresent();
    assertThat(p.fieldById(2)).isEmpty();
    assertThat(schema.projectByIds(4, 1).names()).containsExactly("l", "s");
    assertThatThrownBy(() -> schema.project(List.of("nope")))
        .isInstanceOf(SchemaException.class)
        .hasMessageContaining("nope");
    assertThatThrownBy(() -> schema.projectByIds(2))
        .isInstanceOf(SchemaException.class)
        .hasMessageContaining("not a top-level field");
  }

  /** Our schema protos equal, field by field, what lance-core writes into a data file. */
  @Test
  void matchesTheSchemaLanceWrites() throws Exception {
    Schema arrow = wide();
    String uri = dir.resolve("ds").toString();
    String file;
    try (BufferAllocator allocator = new RootAllocator();
        VectorSchemaRoot root = VectorSchemaRoot.create(arrow, allocator)) {
      root.allocateNew();
      root.setRowCount(0);
      for (var v : root.getFieldVectors()) {
        v.setValueCount(3);
      }
      for (int i = 0; i < 3; i++) {
        ((org.apache.arrow.vector.BigIntVector) root.getVector("id")).set(i, i);
      }
      root.setRowCount(3);
      List<org.lance.FragmentMetadata> frags =
          org.lance.Fragment.create(
              uri, allocator, root, new org.lance.WriteParams.Builder().build());
      org.lance.fragment.DataFile df = frags.get(0).getFiles().get(0);
      file = dir.resolve("ds").resolve("data").resolve(df.getPath()).toUri().toString();
      LanceSchema ours = LanceSchema.fromArrow(arrow);
      assertThat(df.getFields())
          .containsExactly(ours.leafColumnIndices().keySet().stream().mapToInt(i -> i).toArray());
      int[] expectedColumns = new int[ours.leaves().size()];
      for (int i = 0; i < expectedColumns.length; i++) {
        expectedColumns[i] = i;
      }
      assertThat(df.getColumnIndices()).containsExactly(expectedColumns);
    }
    try (InputFile in = HadoopFileIO.local().newInputFile(file)) {
      LanceSchema written = FileMetadata.read(in).schema();
      List<FileProtos.Field> theirs = SchemaProtos.toProtos(written);
      List<FileProtos.Field> ours = SchemaProtos.toProtos(LanceSchema.fromArrow(arrow));
      assertThat(ours).containsExactlyElementsOf(theirs);
      assertThat(written.toArrow().getFields()).containsExactlyElementsOf(arrow.getFields());
    }
  }

  @Test
  void logicalTypeSpellings() {
    assertThat(LogicalTypes.toArrow("timestamp:us:+05:30"))
        .isEqualTo(new ArrowType.Timestamp(TimeUnit.MICROSECOND, "+05:30"));
    assertThat(LogicalTypes.of(new ArrowType.Timestamp(TimeUnit.NANOSECOND, null)))
        .isEqualTo("timestamp:ns:-");
    assertThat(
            LogicalTypes.fixedSizeListItem("fixed_size_list:fixed_size_list:float:2:3").getType())
        .isEqualTo(new ArrowType.FixedSizeList(2));
    assertThat(LogicalTypes.toArrow("fixed_size_list:uint8:16"))
        .isEqualTo(new ArrowType.FixedSizeList(16));
    assertThat(LogicalTypes.toArrow("map")).isEqualTo(new ArrowType.Map(false));
    Field entries =
        new Field(
            "entries",
            FieldType.notNullable(ArrowType.Struct.INSTANCE),
            List.of(
                new Field("key", FieldType.notNullable(ArrowType.Utf8.INSTANCE), null),
                f("value", new ArrowType.Int(32, true))));
    assertThat(LogicalTypes.of(f("m", new ArrowType.Map(false), entries))).isEqualTo("map");
    assertThatThrownBy(() -> LogicalTypes.of(f("m", new ArrowType.Map(true), entries)))
        .isInstanceOf(SchemaException.class)
        .hasMessageContaining("sorted keys");
    assertThatThrownBy(() -> LogicalTypes.toArrow("union"))
        .isInstanceOf(SchemaException.class)
        .hasMessageContaining("\"union\"");
  }
}
