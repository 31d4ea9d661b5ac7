package dev.lancelot.spark.parser;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.spark.parser.LanceStatements.ResolvedTable;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * lance-spark's statements as lancelot's parser extension translates them into procedure calls,
 * without Spark: the table resolver here only records the name it was given.
 */
class LanceSparkStatementsTest {
  private static String translated(String sql) {
    SqlTokens tokens = SqlTokens.of(sql);
    assertThat(LanceStatements.isStatement(tokens)).as(sql).isTrue();
    return SqlText.call(
        LanceStatements.parseStatement(
            tokens, parts -> new ResolvedTable("cat", String.join("|", parts))));
  }

  private static String call(String procedure, String args) {
    return "CALL `cat`.`system`.`" + procedure + "`(`table` => " + args + ")";
  }

  @Test
  void createIndexChoosesTheVectorOrScalarProcedureAndReplacesAsLanceSparkDoes() {
    assertThat(
            translated(
                "ALTER TABLE lance.db.items CREATE INDEX items_idx USING ivf_pq (vector)"
                    + " WITH (num_partitions = 4, metric = 'l2', sample_rate = 2 * 128)"))
        .isEqualTo(
            call(
                "create_index",
                "'lance|db|items', `column` => 'vector', `index_type` => 'IVF_PQ',"
                    + " `name` => 'items_idx', `replace` => true, `num_partitions` => 4,"
                    + " `metric` => 'l2', `sample_rate` => 2 * 128"));
    assertThat(translated("alter table t create index ix using BTree (a.b);"))
        .isEqualTo(
            call(
                "create_scalar_index",
                "'t', `column` => 'a.b', `index_type` => 'BTREE', `name` => 'ix',"
                    + " `replace` => true"));
    assertThat(translated("ALTER TABLE t CREATE INDEX ix USING zonemap (a) WITH (replace = false)"))
        .isEqualTo(
            call(
                "create_scalar_index",
                "'t', `column` => 'a', `index_type` => 'ZONEMAP', `name` => 'ix',"
                    + " `replace` => false"));
  }

  @Test
  void indexTagAndBranchStatementsMapOntoTheirProcedures() {
    assertThat(translated("ALTER TABLE t DROP INDEX ix"))
        .isEqualTo(call("drop_index", "'t', `name` => 'ix'"));
    assertThat(translated("ALTER TABLE t OPTIMIZE INDEX ix WITH (retrain = true)"))
        .isEqualTo(call("optimize_index", "'t', `name` => 'ix', `retrain` => true"));
    assertThat(translated("ALTER TABLE t OPTIMIZE INDEX ix"))
        .isEqualTo(call("optimize_index", "'t', `name` => 'ix'"));
    assertThat(translated("SHOW INDEXES IN db.t")).isEqualTo(call("list_indexes", "'db|t'"));
    assertThat(translated("show index from t")).isEqualTo(call("list_indexes", "'t'"));
    assertThat(translated("OPTIMIZE t WITH (target_rows_per_fragment = 1000)"))
        .isEqualTo(call("compact", "'t', `target_rows_per_fragment` => 1000"));
    assertThat(translated("VACUUM t")).isEqualTo(call("cleanup", "'t'"));
    assertThat(translated("ALTER TABLE t CREATE TAG v1"))
        .isEqualTo(call("create_tag", "'t', `tag` => 'v1'"));
    assertThat(translated("ALTER TABLE t CREATE TAG v1 AS OF VERSION 3"))
        .isEqualTo(call("create_tag", "'t', `tag` => 'v1', `version` => 3"));
    assertThat(translated("ALTER TABLE t CREATE TAG v1 AS OF BRANCH dev VERSION 2"))
        .isEqualTo(call("create_tag", "'t', `tag` => 'v1', `branch` => 'dev', `version` => 2"));
    assertThat(translated("ALTER TABLE t DROP TAG v1"))
        .isEqualTo(call("delete_tag", "'t', `tag` => 'v1'"));
    assertThat(translated("SHOW TAGS FROM t")).isEqualTo(call("list_tags", "'t'"));
    assertThat(translated("ALTER TABLE t CREATE BRANCH b AS OF TAG v1"))
        .isEqualTo(call("create_branch", "'t', `branch` => 'b', `tag` => 'v1'"));
    assertThat(translated("ALTER TABLE t CREATE BRANCH b AS OF BRANCH a VERSION 4"))
        .isEqualTo(
            call("create_branch", "'t', `branch` => 'b', `from_branch` => 'a', `version` => 4"));
    assertThat(translated("ALTER TABLE t DROP BRANCH b"))
        .isEqualTo(call("delete_branch", "'t', `branch` => 'b'"));
    assertThat(translated("SHOW BRANCHES IN t")).isEqualTo(call("list_branches", "'t'"));
  }

  @Test
  void namesBecomeStringLiteralsWithTheirQuotesEscaped() {
    assertThat(translated("ALTER TABLE lance.`/tmp/it's.lance` CREATE TAG `a\\b`"))
        .isEqualTo(call("create_tag", "'lance|/tmp/it\\'s.lance', `tag` => 'a\\\\b'"));
  }

  @Test
  void otherStatementsAreNotLanceStatements() {
    for (String sql :
        List.of(
            "ALTER TABLE t ADD COLUMNS (x INT)",
            "ALTER TABLE t CREATE",
            "ALTER TABLE t OPTIMIZE TAG x",
            "ALTER TABLE (t) CREATE INDEX",
            "SHOW TABLES",
            "SELECT 1",
            "CALL lance.system.compact()")) {
      assertThat(LanceStatements.isStatement(SqlTokens.of(sql))).as(sql).isFalse();
    }
  }

  @Test
  void malformedStatementsAreRefusedWithTheirPositionAndWhatWasExpected() {
    for (List<String> c :
        List.of(
            List.of(
                "ALTER TABLE t CREATE INDEX ix USING btree (a, b)",
                "column 45: expected ')': a lancelot index covers one column, found ','"),
            List.of("ALTER TABLE t CREATE INDEX ix (a)", "column 31: expected USING, found '('"),
            List.of(
                "ALTER TABLE t CREATE INDEX ix USING btree a",
                "column 43: expected '(' before the indexed column"),
            List.of(
                "ALTER TABLE t CREATE TAG IF NOT EXISTS v",
                "column 26: expected the name of the tag (IF [NOT] EXISTS is not supported"),
            List.of(
                "ALTER TABLE t CREATE TAG v AS OF TAG w",
                "column 34: expected VERSION or BRANCH after AS OF"),
            List.of(
                "ALTER TABLE t CREATE BRANCH b AS OF VERSION x",
                "column 45: expected a version number, found 'x'"),
            List.of("OPTIMIZE t WITH (a 1)", "column 20: expected '=' after option a"),
            List.of("OPTIMIZE t WITH (a = )", "column 22: expected the value of option a"),
            List.of("OPTIMIZE t WITH (a = 1", "expected ')' after the options"),
            List.of("SHOW INDEXES t", "column 14: expected FROM or IN, found 't'"),
            List.of("VACUUM", "column 7: expected a table name, found the end of the statement"),
            List.of("OPTIMIZE t extra", "column 12: expected the end of the statement"))) {
      assertThatThrownBy(() -> translated(c.get(0)))
          .as(c.get(0))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageStartingWith("Syntax error at line 1, ")
          .hasMessageContaining(c.get(1))
          .hasMessageEndingWith("Statement: " + c.get(0));
    }
  }
}
