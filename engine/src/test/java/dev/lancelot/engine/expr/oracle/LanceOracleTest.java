package dev.lancelot.engine.expr.oracle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.expr.BoundPredicate;
import dev.lancelot.engine.expr.Column;
import dev.lancelot.engine.expr.FilterParser;
import dev.lancelot.engine.expr.Predicate;
import dev.lancelot.engine.expr.Predicates;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Lance 7 (lance-core) as the oracle: for each filter, the ids Lance selects equal the ids this
 * engine selects on the same data read back through Lance's own scanner; and Lance accepts our
 * rendering ({@code toSql()}) of the parsed filter with the same result.
 */
@Tag("oracle")
class LanceOracleTest {
  @TempDir static Path dir;

  private static BufferAllocator allocator;
  private static LanceOracle lance;

  @BeforeAll
  static void writeDataset() throws Exception {
    allocator = new RootAllocator();
    try (VectorSchemaRoot root = OracleData.build(allocator, 7)) {
      lance = LanceOracle.write(allocator, root, dir.resolve("main").toString(), 1000);
    }
  }

  @AfterAll
  static void close() {
    lance.close();
    allocator.close();
  }

  /** Ids this engine selects, evaluating batch by batch (700 rows, so partial words occur). */
  static List<Long> ourIds(LanceOracle lance, Predicate predicate) {
    BoundPredicate bound = BoundPredicate.bind(predicate, lance.schema());
    List<Long> ids = new ArrayList<>();
    lance.forEachBatch(
        700,
        root -> {
          BigIntVector id = (BigIntVector) root.getVector("id");
          for (int row : bound.evaluate(root).toRowIndexes()) {
            ids.add(id.get(row));
          }
        });
    Collections.sort(ids);
    return ids;
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "tenant_id = 42",
        "tenant_id != 42",
        "tenant_id <> 42",
        "tenant_id < 5",
        "tenant_id <= 5",
        "tenant_id > 15",
        "tenant_id >= 15",
        "7 < tenant_id",
        "tenant_id == 3",
        "tenant_id = -3",
        "tenant_id IN (1, 2, 3)",
        "tenant_id NOT IN (1, 2, 42)",
        "tenant_id IN (1, NULL)",
        "tenant_id NOT IN (1, NULL)",
        "tenant_id BETWEEN 3 AND 7",
        "tenant_id NOT BETWEEN 3 AND 7",
        "tenant_id BETWEEN 7 AND 3",
        "tenant_id BETWEEN NULL AND 7",
        "tenant_id NOT BETWEEN NULL AND 7",
        "tenant_id IS NULL",
        "tenant_id IS NOT NULL",
        "tenant_id = NULL",
        "NOT (tenant_id = 42 OR tenant_id IS NULL)",
        "TENANT_ID = 42",
        "`tenant_id` = 42",
        "name = 'alpha'",
        "name = 'it''s'",
        "name = \"beta\"",
        "name > 'delta'",
        "name <= 'b'",
        "name >= 'é'",
        "name < ''",
        "name = ''",
        "name IN ('alpha', 'beta', NULL)",
        "name NOT IN ('alpha', 'beta')",
        "name BETWEEN 'b' AND 'e'",
        "name LIKE 'al%'",
        "name LIKE '%a'",
        "name LIKE '%ph%'",
        "name LIKE '_eta'",
        "name LIKE 'a\\_%'",
        "name LIKE 'a_%'",
        "name LIKE '%\\\\%'",
        "name LIKE 'zz\\'",
        "name LIKE '%i%e'",
        "name LIKE 'multi_line'",
        "name LIKE '_n_code'",
        "name NOT LIKE 'a%'",
        "name IS NULL",
        "score > 0.5",
        "score < 0",
        "score = 0",
        "score = -0.0",
        "score >= 0",
        "score <= -0.0",
        "score != 0.25",
        "score > 1e308",
        "score < -1e308",
        "score = double 'NaN'",
        "score > double 'Infinity'",
        "score IN (0.25, double 'NaN', 1e300)",
        "NOT score > 0.5",
        "score BETWEEN -1 AND 1",
        "score BETWEEN -0.0 AND 0.0",
        "score = 1",
        "score IS NULL",
        "flag",
        "NOT flag",
        "flag = false",
        "flag != true",
        "flag IS NULL",
        "flag IN (true, NULL)",
        "flag AND tenant_id = 42",
        "flag OR name LIKE 'b%'",
        "NOT (flag AND score > 0.5)",
        "tenant_id = 42 AND (name IS NULL OR score < 0.1) AND NOT flag",
        "id < 100 OR id >= 2900",
        "id IN (0, 1, 2, 1000, 2999)",
        "id = 1 OR NOT (name = 'alpha' AND flag)",
        "true",
        "false",
        "NOT true OR flag",
        "score > 0.5 AND score < 0.25",
      })
  void sameRowsAsLance(String filter) {
    Predicate parsed = FilterParser.parse(filter);
    List<Long> expected = lance.idsMatching(filter);
    assertThat(ourIds(lance, parsed)).as("ours for %s", filter).isEqualTo(expected);
    assertThat(lance.idsMatching(parsed.toSql()))
        .as("Lance for our rendering %s", parsed.toSql())
        .isEqualTo(expected);
  }

  /** The builder API the Spark connector uses, rendered for Lance; LIKE helpers escape. */
  @Test
  void builtPredicatesSelectTheSameRowsAsLance() {
    List<Predicate> built = new ArrayList<>();
    Column name = Column.named("name");
    for (String s : OracleData.NAMES) {
      for (String part :
          List.of(
              s,
              s.length() > 1 ? s.substring(0, 2) : s,
              s.length() > 1 ? s.substring(s.length() - 2) : s)) {
        built.add(Predicates.startsWith(name, part));
        built.add(Predicates.endsWith(name, part));
        built.add(Predicates.contains(name, part));
      }
      built.add(Predicates.nullSafeEq(name, s));
    }
    built.add(Predicates.nullSafeEq(name, null));
    built.add(Predicates.in("tenant_id", List.of(1, 2, 42)));
    built.add(Predicates.notIn("tenant_id", List.of(1, 2, 42)));
    built.add(
        Predicates.and(
            Predicates.gt("score", 0.1),
            Predicates.isTrue("flag"),
            Predicates.not(Predicates.eq("tenant_id", 42))));
    built.add(Predicates.or(Predicates.isNull("name"), Predicates.le("id", 10L)));
    built.add(Predicates.between("score", -0.5, 0.5f));
    for (Predicate p : built) {
      assertThat(ourIds(lance, p)).as(p.toSql()).isEqualTo(lance.idsMatching(p.toSql()));
    }
  }

  /**
   * Filters Lance 7 refuses ("could not convert literal") but this engine evaluates exactly: an
   * integer column against a fractional or out-of-range literal. Each is checked against an
   * equivalent filter that Lance accepts.
   */
  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "tenant_id > 2.5|tenant_id >= 3",
        "tenant_id <= 2.5|tenant_id <= 2",
        "tenant_id = 3.0|tenant_id = 3",
        "tenant_id = 2.5|tenant_id IS NOT NULL AND false",
        "tenant_id != 2.5|tenant_id IS NOT NULL",
        "tenant_id IN (3, 4.5)|tenant_id IN (3)",
        "tenant_id < 1e10|tenant_id IS NOT NULL",
        "tenant_id > 3000000000|false",
        "tenant_id BETWEEN -0.5 AND 4.2|tenant_id BETWEEN 0 AND 4",
        "id < 1e3|id < 1000",
      })
  void integerColumnsAgainstLiteralsLanceRefuses(String filter, String lanceEquivalent) {
    assertThatThrownBy(() -> lance.idsMatching(filter))
        .hasMessageContaining("could not convert to literal of type");
    assertThat(ourIds(lance, FilterParser.parse(filter)))
        .isEqualTo(lance.idsMatching(lanceEquivalent));
  }
}
