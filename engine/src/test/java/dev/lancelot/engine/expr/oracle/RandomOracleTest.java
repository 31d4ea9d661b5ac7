package dev.lancelot.engine.expr.oracle;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancelot.engine.expr.BoundPredicate;
import dev.lancelot.engine.expr.Predicate;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.util.TransferPair;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Differential test against Lance 7 over every supported column type: random predicates, each
 * rendered with {@code toSql()}, must select the same ids in Lance and in this engine. The seed is
 * printed in every failure; rerun with {@code -Doracle.seed=N}.
 */
@Tag("oracle")
class RandomOracleTest {
  private static final long SEED = Long.getLong("oracle.seed", 11L);
  private static final int CASES = Integer.getInteger("oracle.cases", 300);

  @TempDir static Path dir;

  private static BufferAllocator allocator;
  private static LanceOracle lance;
  private static final List<VectorSchemaRoot> batches = new ArrayList<>();

  @BeforeAll
  static void writeDataset() throws Exception {
    allocator = new RootAllocator();
    try (VectorSchemaRoot root = TypedData.build(allocator, SEED)) {
      lance = LanceOracle.write(allocator, root, dir.resolve("typed").toString(), 700);
    }
    // Keep the batches as Lance returns them, so each case does one Lance scan only.
    lance.forEachBatch(
        500,
        root -> {
          List<FieldVector> copies = new ArrayList<>();
          for (FieldVector v : root.getFieldVectors()) {
            TransferPair t = v.getTransferPair(allocator);
            t.transfer();
            copies.add((FieldVector) t.getTo());
          }
          batches.add(new VectorSchemaRoot(root.getSchema(), copies, root.getRowCount()));
        });
  }

  @AfterAll
  static void close() {
    batches.forEach(VectorSchemaRoot::close);
    lance.close();
    allocator.close();
  }

  @Test
  void lanceReadsBackTheTypesWeWrote() {
    assertThat(lance.schema().getFields()).hasSameSizeAs(TypedData.schema().getFields());
    for (int i = 0; i < lance.schema().getFields().size(); i++) {
      assertThat(lance.schema().getFields().get(i).getType())
          .isEqualTo(TypedData.schema().getFields().get(i).getType());
    }
  }

  /**
   * Lance 7 refuses a binary literal whose width differs from a fixed_size_binary column's; this
   * engine compares the bytes (lexicographically, so it is never equal).
   */
  @Test
  void fixedSizeBinaryWithLiteralOfOtherWidth() {
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> lance.idsMatching("fbin > X'00'"))
        .hasMessageContaining("could not convert to literal of type 'FixedSizeBinary(3)'");
    assertThat(ours(dev.lancelot.engine.expr.FilterParser.parse("fbin > X'00'")))
        .isEqualTo(lance.idsMatching("fbin >= X'000000'"));
    assertThat(ours(dev.lancelot.engine.expr.FilterParser.parse("fbin = X'0000'"))).isEmpty();
    List<Long> ours = ours(dev.lancelot.engine.expr.FilterParser.parse("fbin = X'000001'"));
    assertThat(ours).isNotEmpty();
    List<Long> expected = new ArrayList<>();
    for (VectorSchemaRoot root : batches) {
      var fbin = (org.apache.arrow.vector.FixedSizeBinaryVector) root.getVector("fbin");
      BigIntVector id = (BigIntVector) root.getVector("id");
      for (int i = 0; i < root.getRowCount(); i++) {
        if (!fbin.isNull(i) && java.util.Arrays.equals(fbin.get(i), new byte[] {0, 0, 1})) {
          expected.add(id.get(i));
        }
      }
    }
    Collections.sort(expected);
    assertThat(ours).isEqualTo(expected);
  }

  /** Lance 7 refuses number literals for float16 columns; this engine rounds them to float16. */
  @Test
  void float16ComparisonsLanceRefuses() {
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> lance.idsMatching("f16 > 0.5"))
        .hasMessageContaining("could not convert to literal of type 'Float16'");
    List<Long> expected = new ArrayList<>();
    for (VectorSchemaRoot root : batches) {
      var f16 = (org.apache.arrow.vector.Float2Vector) root.getVector("f16");
      BigIntVector id = (BigIntVector) root.getVector("id");
      for (int i = 0; i < root.getRowCount(); i++) {
        if (!f16.isNull(i)
            && (f16.getValueAsFloat(i) > 0.5f || Float.isNaN(f16.getValueAsFloat(i)))) {
          expected.add(id.get(i));
        }
      }
    }
    Collections.sort(expected);
    assertThat(ours(dev.lancelot.engine.expr.FilterParser.parse("f16 > 0.5")))
        .isNotEmpty()
        .isEqualTo(expected);
  }

  /**
   * Lance rounds a double literal to float32 for a float32 column, except under NOT, where it
   * compares in float64 (so {@code NOT (f32 = 0.1)} keeps the 0.1 rows). This engine rounds
   * everywhere, so {@code NOT (f32 = 0.1)} is {@code f32 != 0.1} as SQL requires.
   */
  @Test
  void float32LiteralsAreRoundedOutsideNot() {
    for (String filter :
        List.of(
            "f32 = 0.1",
            "f32 != 0.1",
            "f32 > 0.1",
            "f32 IN (0.1, 2.75)",
            "f32 BETWEEN 0.1 AND 1")) {
      assertThat(ours(dev.lancelot.engine.expr.FilterParser.parse(filter)))
          .as(filter)
          .isNotEmpty()
          .isEqualTo(lance.idsMatching(filter));
    }
    List<Long> ours = ours(dev.lancelot.engine.expr.FilterParser.parse("NOT (f32 = 0.1)"));
    assertThat(ours).isEqualTo(lance.idsMatching("f32 != 0.1"));
    assertThat(lance.idsMatching("NOT (f32 = 0.1)"))
        .isNotEqualTo(ours)
        .as("Lance's NOT quirk keeps the rows equal to 0.1f")
        .containsAll(lance.idsMatching("f32 = 0.1"));
  }

  @Test
  void randomPredicatesSelectTheSameRowsAsLance() {
    TypedPredicates gen = new TypedPredicates(new Random(SEED));
    int nonTrivial = 0;
    for (int i = 0; i < CASES; i++) {
      Predicate p = gen.predicate(2);
      String sql = p.toSql();
      List<Long> expected;
      try {
        expected = lance.idsMatching(sql);
      } catch (RuntimeException e) {
        throw new AssertionError("seed " + SEED + " case " + i + ": Lance rejects " + sql, e);
      }
      List<Long> ours = ours(p);
      if (!ours.equals(expected)) {
        List<Long> onlyLance = new ArrayList<>(expected);
        onlyLance.removeAll(ours);
        List<Long> onlyOurs = new ArrayList<>(ours);
        onlyOurs.removeAll(expected);
        throw new AssertionError(
            "seed "
                + SEED
                + " case "
                + i
                + ": "
                + sql
                + "\n  only Lance selects ids "
                + head(onlyLance)
                + "\n  only we select ids "
                + head(onlyOurs));
      }
      if (!expected.isEmpty() && expected.size() < TypedData.ROWS) {
        nonTrivial++;
      }
    }
    assertThat(nonTrivial).as("cases selecting some but not all rows").isGreaterThan(CASES / 2);
  }

  /** Random value expressions (arithmetic, casts, functions, truth tests) against Lance. */
  @Test
  void randomExpressionsSelectTheSameRowsAsLance() {
    TypedExpressions gen = new TypedExpressions(new Random(SEED));
    int nonTrivial = 0;
    for (int i = 0; i < CASES; i++) {
      Predicate p = gen.predicate(2);
      String sql = p.toSql();
      assertThat(dev.lancelot.engine.expr.FilterParser.parse(sql))
          .as("round trip of %s", sql)
          .isEqualTo(p);
      List<Long> expected;
      try {
        expected = lance.idsMatching(sql);
      } catch (RuntimeException e) {
        throw new AssertionError("seed " + SEED + " case " + i + ": Lance rejects " + sql, e);
      }
      List<Long> ours = ours(p);
      if (!ours.equals(expected)) {
        List<Long> onlyLance = new ArrayList<>(expected);
        onlyLance.removeAll(ours);
        List<Long> onlyOurs = new ArrayList<>(ours);
        onlyOurs.removeAll(expected);
        throw new AssertionError(
            "seed "
                + SEED
                + " case "
                + i
                + ": "
                + sql
                + "\n  only Lance selects ids "
                + head(onlyLance)
                + "\n  only we select ids "
                + head(onlyOurs));
      }
      if (!expected.isEmpty() && expected.size() < TypedData.ROWS) {
        nonTrivial++;
      }
    }
    assertThat(nonTrivial).as("cases selecting some but not all rows").isGreaterThan(CASES / 2);
  }

  private static List<Long> head(List<Long> ids) {
    return ids.size() <= 10 ? ids : ids.subList(0, 10);
  }

  private static List<Long> ours(Predicate p) {
    BoundPredicate bound = BoundPredicate.bind(p, lance.schema());
    List<Long> ids = new ArrayList<>();
    for (VectorSchemaRoot root : batches) {
      BigIntVector id = (BigIntVector) root.getVector("id");
      for (int row : bound.evaluate(root).toRowIndexes()) {
        ids.add(id.get(row));
      }
    }
    Collections.sort(ids);
    return ids;
  }
}
