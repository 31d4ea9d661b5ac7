package dev.lancelot.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.VersionInfo;
import dev.lancelot.engine.testing.LanceOracle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * ALTER TABLE on tables of catalog {@code lance}: ADD COLUMNS (read as nulls; vectors through the
 * {@code <col>.arrow.fixed-size-list.size} property), DROP COLUMN, RENAME COLUMN, SET/UNSET
 * TBLPROPERTIES, each one Lance version that lance-core reads, and every refusal's message.
 */
class SparkAlterTableTest extends SharedSpark {
  static Path root;

  @BeforeAll
  static void rootTheCatalog() throws Exception {
    root = Files.createTempDirectory("lance-alter");
    spark.conf().set("spark.sql.catalog.lance.root", root.toString());
    spark.sql("CREATE NAMESPACE lance.hr");
  }

  static Path dir(String table) {
    return root.resolve("hr").resolve(table + ".lance");
  }

  static List<String> operations(String table) {
    try (Dataset ds = Dataset.open(dir(table).toString())) {
      return ds.versions().stream().map(VersionInfo::operation).toList();
    }
  }

  @Test
  void addDropAndRenameColumnsAsLanceVersions() {
    spark.sql("CREATE TABLE lance.hr.people (id BIGINT, name STRING)");
    spark.sql("INSERT INTO lance.hr.people SELECT id, concat('p', id) FROM range(100)");
    spark.sql("ALTER TABLE lance.hr.people ADD COLUMNS (age INT, email STRING)");
    assertThat(spark.sql("SELECT id, age, email FROM lance.hr.people WHERE id = 7").collectAsList())
        .extracting(Row::toString)
        .containsExactly("[7,null,null]");
    spark.sql("INSERT INTO lance.hr.people VALUES (100, 'p100', 41, 'p100@example.com')");
    assertThat(spark.sql("SELECT count(age), count(*) FROM lance.hr.people").first().toString())
        .isEqualTo("[1,101]");

    spark.sql("ALTER TABLE lance.hr.people RENAME COLUMN name TO full_name");
    spark.sql("ALTER TABLE lance.hr.people DROP COLUMN email");
    spark.sql("ALTER TABLE lance.hr.people DROP COLUMN IF EXISTS nothing");
    assertThat(spark.table("lance.hr.people").columns()).containsExactly("id", "full_name", "age");
    assertThat(
            spark
                .sql("SELECT full_name, age FROM lance.hr.people WHERE id >= 99 ORDER BY id")
                .collectAsList())
        .extracting(Row::toString)
        .containsExactly("[p99,null]", "[p100,41]");
    assertThat(operations("people"))
        .containsExactly("overwrite", "append", "merge", "append", "project", "project");

    // lance-core reads every change
    assertThat(
            LanceOracle.rows(
                allocator, dir("people"), List.of("id", "full_name", "age"), "id >= 99"))
        .containsExactlyInAnyOrder(
            Arrays.asList(99L, "p99", null), Arrays.asList(100L, "p100", 41));
    try (org.lance.Dataset lance = LanceOracle.open(allocator, dir("people"))) {
      assertThat(lance.getSchema().getFields())
          .extracting(Field::getName)
          .containsExactly("id", "full_name", "age");
    }
    // a dropped name can come back: a new, empty column
    spark.sql("ALTER TABLE lance.hr.people ADD COLUMN email STRING");
    assertThat(spark.sql("SELECT count(email) FROM lance.hr.people").first().getLong(0)).isZero();
  }

  @Test
  void vectorColumnsAndPropertiesThroughTblproperties() {
    spark.sql("CREATE TABLE lance.hr.docs (id BIGINT)");
    spark.sql("INSERT INTO lance.hr.docs SELECT id FROM range(10)");
    spark.sql(
        "ALTER TABLE lance.hr.docs SET TBLPROPERTIES ('emb.arrow.fixed-size-list.size' = '4', 'team' = 'ml')");
    spark.sql("ALTER TABLE lance.hr.docs ADD COLUMNS (emb ARRAY<FLOAT>)");
    spark.sql("INSERT INTO lance.hr.docs VALUES (10, array(1.0F, 2.0F, 3.0F, 4.0F))");
    try (org.lance.Dataset lance = LanceOracle.open(allocator, dir("docs"))) {
      assertThat(lance.getSchema().findField("emb").getType())
          .isEqualTo(new ArrowType.FixedSizeList(4));
      assertThat(lance.getConfig()).containsEntry("team", "ml");
    }
    assertThat(spark.sql("SELECT emb FROM lance.hr.docs WHERE id = 10").first().getList(0))
        .containsExactly(1.0f, 2.0f, 3.0f, 4.0f);
    assertThat(spark.sql("SELECT count(emb) FROM lance.hr.docs").first().getLong(0)).isEqualTo(1);
    assertThat(spark.sql("SHOW TBLPROPERTIES lance.hr.docs").collectAsList())
        .extracting(Row::toString)
        .contains("[team,ml]", "[emb.arrow.fixed-size-list.size,4]");
    spark.sql("ALTER TABLE lance.hr.docs UNSET TBLPROPERTIES ('team', 'absent')");
    assertThat(spark.sql("SHOW TBLPROPERTIES lance.hr.docs").collectAsList())
        .extracting(Row::toString)
        .doesNotContain("[team,ml]");
    assertThatThrownBy(() -> spark.sql("INSERT INTO lance.hr.docs VALUES (11, array(1.0F))"))
        .hasMessageContaining("emb");
  }

  @Test
  void refusalsNameTheChangeAndCommitNothing() {
    spark.sql("CREATE TABLE lance.hr.r (id BIGINT, name STRING)");
    String t = "lance.hr.r";
    assertThatThrownBy(() -> spark.sql("ALTER TABLE " + t + " ALTER COLUMN id TYPE STRING"))
        .hasMessageContaining("Cannot alter lance.hr.r: UpdateColumnType of column id");
    assertThatThrownBy(() -> spark.sql("ALTER TABLE " + t + " ADD COLUMN x INT FIRST"))
        .hasMessageContaining("column \"x\" is added at a position")
        .hasMessageContaining("Remove FIRST/AFTER");
    assertThatThrownBy(() -> spark.sql("ALTER TABLE " + t + " ADD COLUMN x INT NOT NULL"))
        .hasMessageContaining(
            "column \"x\" is NOT NULL, but the existing rows would have no value");
    assertThatThrownBy(() -> spark.sql("ALTER TABLE " + t + " ADD COLUMN x INT COMMENT 'c'"))
        .hasMessageContaining("column \"x\" has a COMMENT");
    assertThatThrownBy(() -> spark.sql("ALTER TABLE " + t + " SET TBLPROPERTIES ('version' = '9')"))
        .hasMessageContaining("property \"version\" is computed from the dataset");
    assertThatThrownBy(
            () ->
                spark.sql(
                    "ALTER TABLE "
                        + t
                        + " SET TBLPROPERTIES ('v.arrow.fixed-size-list.size' = 'x')"))
        .hasMessageContaining("v.arrow.fixed-size-list.size");
    assertThatThrownBy(() -> spark.sql("ALTER TABLE " + t + " DROP COLUMNS (id, name)"))
        .hasMessageContaining("a dataset keeps at least one column");
    assertThatThrownBy(() -> spark.sql("ALTER TABLE " + t + " ADD COLUMN name STRING"))
        .hasMessageContaining("FIELD_ALREADY_EXISTS");
    assertThatThrownBy(() -> spark.sql("ALTER TABLE " + t + " RENAME COLUMN id TO name"))
        .hasMessageContaining("FIELD_ALREADY_EXISTS");
    assertThatThrownBy(() -> spark.sql("ALTER TABLE " + t + " RENAME TO lance.hr.r2"))
        .hasMessageContaining("RENAME TO is not supported");
    assertThat(operations("r")).containsExactly("overwrite");
  }

  @Test
  void addColumnsProcedureBackfillsOneFilePerFragmentOnTheExecutors() {
    spark.sql("CREATE TABLE lance.hr.scores (id BIGINT, name STRING)");
    spark.sql("INSERT INTO lance.hr.scores SELECT id, concat('n', id) FROM range(0, 300)");
    spark.sql("INSERT INTO lance.hr.scores SELECT id, concat('n', id) FROM range(300, 500)");
    spark.sql("DELETE FROM lance.hr.scores WHERE id >= 100 AND id < 120");
    Row result =
        spark
            .sql(
                "CALL lance.system.add_columns(table => 'hr.scores', column => 'label', "
                    + "expression => 'concat(name, \\'-\\', CAST(id * 2 AS STRING))')")
            .first();
    assertThat(result.getLong(1)).isPositive();
    try (Dataset ds = Dataset.open(dir("scores").toString())) {
      assertThat(ds.version()).isEqualTo(result.getLong(0));
      assertThat(ds.fragments()).allSatisfy(f -> assertThat(f.dataFiles()).hasSize(2));
      assertThat(result.getLong(1)).isEqualTo(ds.fragments().size());
    }
    assertThat(operations("scores")).endsWith("merge");
    assertThat(
            spark
                .sql(
                    "SELECT count(*) FROM lance.hr.scores WHERE label = concat('n', id, '-', id * 2)")
                .first()
                .getLong(0))
        .isEqualTo(480);
    assertThat(
            LanceOracle.rows(
                allocator, dir("scores"), List.of("id", "label"), "id = 7 OR id = 499"))
        .containsExactlyInAnyOrder(List.of(7L, "n7-14"), List.of(499L, "n499-998"));
    assertThat(LanceOracle.rows(allocator, dir("scores"), List.of("id"), "label IS NULL"))
        .isEmpty();

    // a vector column, its dimension from the table property
    spark.sql(
        "ALTER TABLE lance.hr.scores SET TBLPROPERTIES ('pair.arrow.fixed-size-list.size' = '2')");
    spark.sql(
        "CALL lance.system.add_columns(table => 'hr.scores', column => 'pair', "
            + "expression => 'array(CAST(id AS FLOAT), 0.5F)')");
    try (org.lance.Dataset lance = LanceOracle.open(allocator, dir("scores"))) {
      assertThat(lance.getSchema().findField("pair").getType())
          .isEqualTo(new ArrowType.FixedSizeList(2));
    }
    assertThat(spark.sql("SELECT pair FROM lance.hr.scores WHERE id = 9").first().getList(0))
        .containsExactly(9.0f, 0.5f);

    long before = operations("scores").size();
    assertThatThrownBy(
            () ->
                spark
                    .sql(
                        "CALL lance.system.add_columns(table => 'hr.scores', column => 'name', "
                            + "expression => 'upper(name)')")
                    .collect())
        .hasMessageContaining("column \"name\" already exists");
    assertThatThrownBy(
            () ->
                spark
                    .sql(
                        "CALL lance.system.add_columns(table => 'hr.scores', column => 'x', "
                            + "expression => 'nothing + 1')")
                    .collect())
        .hasMessageContaining("nothing");
    assertThat(operations("scores")).hasSize((int) before);
  }
}
