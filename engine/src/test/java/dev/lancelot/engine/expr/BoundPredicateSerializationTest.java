package dev.lancelot.engine.expr;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A bound predicate crosses Java serialization (what Spark tasks and search plans use) as the
 * predicate plus the referenced fields: read back, it selects the same rows, keeps the text as
 * written, and is bound to the same fields.
 */
class BoundPredicateSerializationTest {
  private final BufferAllocator allocator = new RootAllocator();

  @AfterEach
  void close() {
    allocator.close();
  }

  private VectorSchemaRoot batch() {
    VectorSchemaRoot root =
        TestBatch.with(allocator)
            .column(
                "id",
                new ArrowType.Int(64, true),
                (TestBatch.SetCall<org.apache.arrow.vector.BigIntVector> c, Long v) ->
                    c.vector().setSafe(c.index(), v),
                1L,
                2L,
                3L,
                4L,
                null,
                6L,
                7L)
            .column(
                "Name",
                ArrowType.Utf8.INSTANCE,
                (TestBatch.SetCall<VarCharVector> c, String v) ->
                    c.vector().setSafe(c.index(), TestBatch.utf8(v)),
                "user-1",
                "USER-2",
                null,
                "user-10",
                "x",
                "ü",
                "")
            .column(
                "score",
                new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE),
                (TestBatch.SetCall<org.apache.arrow.vector.Float4Vector> c, Float v) ->
                    c.vector().setSafe(c.index(), v),
                0.1f,
                -0.0f,
                Float.NaN,
                2.5f,
                null,
                1e30f,
                -3f)
            .column(
                "ts",
                new ArrowType.Timestamp(TimeUnit.MICROSECOND, "America/New_York"),
                (TestBatch.SetCall<org.apache.arrow.vector.TimeStampMicroTZVector> c, Long v) ->
                    c.vector().setSafe(c.index(), v),
                1_700_000_000_000_000L,
                1_700_000_000_000_001L,
                null,
                0L,
                1L,
                -1L,
                1_699_999_999_999_999L)
            .vector(struct())
            .build();
    return root;
  }

  private StructVector struct() {
    Field x = Field.nullable("x", new ArrowType.Int(32, true));
    StructVector st =
        new StructVector(
            new Field("st", FieldType.nullable(ArrowType.Struct.INSTANCE), List.of(x)),
            allocator,
            null);
    st.allocateNew();
    IntVector xs = (IntVector) st.getChild("x");
    for (int i = 0; i < 7; i++) {
      if (i == 3) {
        st.setNull(i);
      } else {
        st.setIndexDefined(i);
        xs.setSafe(i, i % 3);
      }
    }
    xs.setValueCount(7);
    st.setValueCount(7);
    return st;
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "id > 2 AND name LIKE 'user-1%'",
        "id % 2 = 1 OR lower(name) <> name",
        "score > 1e29 OR score < 0 OR score IS NULL",
        "ts = TIMESTAMP '2023-11-14 17:13:20'",
        "st.x IN (0, 2) AND NOT (id BETWEEN 3 AND 6)",
        "CAST(id AS STRING) = '7' OR name ILIKE 'USER-%'",
        "true"
      })
  void readBackSelectsTheSameRows(String sql) throws Exception {
    try (VectorSchemaRoot root = batch()) {
      BoundPredicate bound = BoundPredicate.bind(sql, root.getSchema());
      BoundPredicate copy = roundTrip(bound);
      assertThat(copy.sql()).isEqualTo(sql);
      assertThat(copy.predicate()).isEqualTo(bound.predicate());
      assertThat(copy.referencedColumns()).isEqualTo(bound.referencedColumns());
      assertThat(copy.referencedSchema()).isEqualTo(bound.referencedSchema());
      assertThat(copy.evaluate(root).toRowIndexes())
          .as(sql)
          .containsExactly(bound.evaluate(root).toRowIndexes());
    }
  }

  @Test
  void carriesOnlyTheReferencedFieldsAndStaysSmall() throws Exception {
    try (VectorSchemaRoot root = batch()) {
      String sql = "id > 2 AND name = 'user-10'";
      BoundPredicate bound = BoundPredicate.bind(sql, root.getSchema());
      assertThat(bound.referencedSchema().getFields().stream().map(Field::getName))
          .containsExactly("id", "Name");
      int bytes = serialize(bound).length;
      int textBytes = serialize(sql).length;
      System.out.printf(
          "bound predicate %s: %d bytes serialized; the text alone: %d bytes%n",
          sql, bytes, textBytes);
      // A search plan or a reader factory carries one of these per query: it must stay far below
      // the sizes Spark warns about (a task of 1 MiB), whatever the number of columns.
      assertThat(bytes)
          .as("serialized bound predicate (the text alone: %d bytes)", textBytes)
          .isLessThan(2048);
    }
  }

  @Test
  void fitsOnlySchemasWithTheSameReferencedFields() {
    Schema schema =
        new Schema(
            List.of(
                Field.nullable("id", new ArrowType.Int(64, true)),
                Field.nullable("name", ArrowType.Utf8.INSTANCE)));
    BoundPredicate bound = BoundPredicate.bind("id = 1", schema);
    assertThat(
            bound.fits(
                new Schema(
                    List.of(
                        Field.nullable("other", ArrowType.Utf8.INSTANCE),
                        Field.nullable("id", new ArrowType.Int(64, true))))))
        .isTrue();
    assertThat(bound.fits(new Schema(List.of(Field.nullable("id", new ArrowType.Int(32, true))))))
        .isFalse();
    assertThat(bound.fits(new Schema(List.of(Field.nullable("name", ArrowType.Utf8.INSTANCE)))))
        .isFalse();
  }

  @Test
  void aPredicateBuiltInCodeKeepsItsSqlAsText() throws Exception {
    Schema schema = new Schema(List.of(Field.nullable("id", new ArrowType.Int(64, true))));
    BoundPredicate bound = BoundPredicate.bind(Predicates.in("id", List.of(1, 2)), schema);
    assertThat(roundTrip(bound).sql()).isEqualTo(Predicates.in("id", List.of(1, 2)).toSql());
  }

  static BoundPredicate roundTrip(BoundPredicate p) throws IOException, ClassNotFoundException {
    try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(serialize(p)))) {
      return (BoundPredicate) in.readObject();
    }
  }

  private static byte[] serialize(Object o) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(o);
    }
    return bytes.toByteArray();
  }
}
