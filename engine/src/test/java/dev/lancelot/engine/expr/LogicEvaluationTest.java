package dev.lancelot.engine.expr;

import static dev.lancelot.engine.expr.TestBatch.select;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.NullVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Three-valued logic: each row of (a, b) is one combination of TRUE / FALSE / NULL. */
class LogicEvaluationTest {
  private final BufferAllocator allocator = new RootAllocator();

  @AfterEach
  void close() {
    allocator.close();
  }

  /** Rows 0-8: a, b over {true, false, null} x {true, false, null}; x is row 0..8 or null. */
  private VectorSchemaRoot truthTable() {
    Boolean[] a = {true, true, true, false, false, false, null, null, null};
    Boolean[] b = {true, false, null, true, false, null, true, false, null};
    Integer[] x = {1, 2, 3, null, 5, 6, 7, null, 9};
    return TestBatch.with(allocator)
        .<BitVector, Boolean>column(
            "a", ArrowType.Bool.INSTANCE, (c, v) -> c.vector().setSafe(c.index(), v ? 1 : 0), a)
        .<BitVector, Boolean>column(
            "b", ArrowType.Bool.INSTANCE, (c, v) -> c.vector().setSafe(c.index(), v ? 1 : 0), b)
        .<IntVector, Integer>column(
            "x", new ArrowType.Int(32, true), (c, v) -> c.vector().setSafe(c.index(), v), x)
        .build();
  }

  @Test
  void kleeneLogic() {
    try (VectorSchemaRoot root = truthTable()) {
      assertThat(select(root, "a")).containsExactly(0, 1, 2);
      assertThat(select(root, "NOT a")).containsExactly(3, 4, 5);
      assertThat(select(root, "a AND b")).containsExactly(0);
      assertThat(select(root, "NOT (a AND b)")).containsExactly(1, 3, 4, 5, 7);
      assertThat(select(root, "a OR b")).containsExactly(0, 1, 2, 3, 6);
      assertThat(select(root, "NOT (a OR b)")).containsExactly(4);
      assertThat(select(root, "NOT NOT a")).containsExactly(0, 1, 2);
      assertThat(select(root, "a = true")).containsExactly(0, 1, 2);
      assertThat(select(root, "a != true")).containsExactly(3, 4, 5);
      assertThat(select(root, "a < true")).containsExactly(3, 4, 5);
      assertThat(select(root, "a >= false")).containsExactly(0, 1, 2, 3, 4, 5);
      assertThat(select(root, "a > true")).isEmpty();
      assertThat(select(root, "a IN (true, NULL)")).containsExactly(0, 1, 2);
      assertThat(select(root, "a NOT IN (true, NULL)")).isEmpty();
      assertThat(select(root, "a NOT IN (true)")).containsExactly(3, 4, 5);
      assertThat(select(root, "a IN (true, false)")).containsExactly(0, 1, 2, 3, 4, 5);
      assertThat(select(root, "a IS NULL")).containsExactly(6, 7, 8);
      assertThat(select(root, "a IS NOT NULL AND NOT b")).containsExactly(1, 4);
      assertThat(select(root, "a OR true")).containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8);
      assertThat(select(root, "a AND false")).isEmpty();
      assertThat(select(root, "NOT (a AND false)")).containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8);
    }
  }

  @Test
  void nullLiteralsAndLists() {
    try (VectorSchemaRoot root = truthTable()) {
      assertThat(select(root, "x = NULL")).isEmpty();
      assertThat(select(root, "NOT x = NULL")).isEmpty();
      assertThat(select(root, "x != NULL")).isEmpty();
      assertThat(select(root, "x IN (1, NULL)")).containsExactly(0);
      assertThat(select(root, "NOT x IN (1, NULL)")).isEmpty();
      assertThat(select(root, "x NOT IN (1, NULL)")).isEmpty();
      assertThat(select(root, "x NOT IN (1, 2)")).containsExactly(2, 4, 5, 6, 8);
      assertThat(select(root, "x IN (NULL)")).isEmpty();
      assertThat(select(root, "x NOT IN (NULL)")).isEmpty();
      assertThat(select(root, "x BETWEEN NULL AND 2")).isEmpty();
      assertThat(select(root, "x NOT BETWEEN NULL AND 2")).containsExactly(2, 4, 5, 6, 8);
      assertThat(select(root, "x NOT BETWEEN 2 AND NULL")).containsExactly(0);
      assertThat(select(root, "x BETWEEN 5 AND 2")).isEmpty();
      assertThat(select(root, "x = NULL OR x = 1")).containsExactly(0);
      assertThat(select(root, "NOT (x = NULL OR x = 1)")).isEmpty();
      assertThat(select(root, "x > 4 OR x IS NULL")).containsExactly(3, 4, 5, 6, 7, 8);
    }
  }

  @Test
  void nestedFieldsAreNullWhenTheirStructIsNull() {
    try (StructVector s = StructVector.empty("s", allocator)) {
      IntVector inner =
          s.addOrGet("n", FieldType.nullable(new ArrowType.Int(32, true)), IntVector.class);
      VarCharVector name =
          s.addOrGet(
              "weird name", FieldType.nullable(ArrowType.Utf8.INSTANCE), VarCharVector.class);
      s.allocateNew();
      for (int i = 0; i < 4; i++) {
        inner.setSafe(i, i);
        name.setSafe(i, TestBatch.utf8("v" + i));
      }
      inner.setNull(3);
      s.setIndexDefined(0);
      s.setIndexDefined(1);
      s.setNull(2); // struct NULL, child value 2 present
      s.setIndexDefined(3);
      inner.setValueCount(4);
      name.setValueCount(4);
      s.setValueCount(4);
      try (VectorSchemaRoot root = TestBatch.with(allocator).vector(s).build()) {
        assertThat(select(root, "s.n >= 0")).containsExactly(0, 1);
        assertThat(select(root, "s.n IS NULL")).containsExactly(2, 3);
        assertThat(select(root, "s.`weird name` LIKE 'v%'")).containsExactly(0, 1, 3);
        assertThat(select(root, "s IS NULL")).containsExactly(2);
        BoundPredicate p = BoundPredicate.bind(FilterParser.parse("S.N > 0"), root.getSchema());
        assertThat(p.referencedColumns()).containsExactly("s");
        assertThat(p.referencedFields()).containsExactly(Column.of("s", "n"));
        assertThat(p.evaluate(root).toRowIndexes()).containsExactly(1);
      }
    }
  }

  @Test
  void nullTypedColumnIsAlwaysNull() {
    try (NullVector n = new NullVector("nothing", 3)) {
      try (VectorSchemaRoot root = TestBatch.with(allocator).vector(n).build()) {
        assertThat(select(root, "nothing IS NULL")).containsExactly(0, 1, 2);
        assertThat(select(root, "nothing IS NOT NULL")).isEmpty();
      }
    }
  }

  @Test
  void evaluatesOnAMapOfVectorsAndOnAPrefixOfRows() {
    try (VectorSchemaRoot root = truthTable()) {
      BoundPredicate p = BoundPredicate.bind(FilterParser.parse("x > 2"), root.getSchema());
      RowSelection rows = p.evaluate(Map.of("x", root.getVector("x")), 5);
      assertThat(rows.rowCount()).isEqualTo(5);
      assertThat(rows.toRowIndexes()).containsExactly(2, 4);
      assertThat(p.referencedColumns()).isEqualTo(List.of("x"));
      RowSelection empty = p.evaluate(Map.of("x", root.getVector("x")), 0);
      assertThat(empty.rowCount()).isZero();
      assertThat(empty.toRowIndexes()).isEmpty();
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> p.evaluate(Map.of(), 3))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("the batch has no column x");
      org.assertj.core.api.Assertions.assertThatThrownBy(
              () -> p.evaluate(Map.of("x", root.getVector("a")), 3))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining(
              "column x has type Bool in the batch, but the filter was bound to type Int(32, true)");
    }
  }
}
