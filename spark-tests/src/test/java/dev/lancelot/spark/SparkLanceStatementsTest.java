package dev.lancelot.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.InvalidInputException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.parser.ParseException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * lance-spark's statements through lancelot's parser extension (D76): each runs the procedure it
 * stands for on the table's lance catalog, with that procedure's result; malformed ones are refused
 * with their position; statements Spark knows keep their meaning. The table is named by catalog
 * name, by path (lance.`path`) and relative to the current namespace.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SparkLanceStatementsTest extends SharedSpark {
  static Path root;
  static String location;

  @BeforeAll
  static void table() throws Exception {
    root = Files.createTempDirectory("lance-statements");
    spark.conf().set("spark.sql.catalog.lance.root", root.toString());
    spark.sql("CREATE NAMESPACE IF NOT EXISTS lance.shop");
    spark.sql(
        "CREATE TABLE lance.shop.items TBLPROPERTIES ('vector.arrow.fixed-size-list.size' = '"
            + SparkProcedureTest.DIM
            + "') AS "
            + SparkProcedureTest.items(0, 2000));
    spark.sql("INSERT INTO lance.shop.items " + SparkProcedureTest.items(2000, 2400));
    location = root.resolve("shop").resolve("items.lance").toUri().toString();
  }

  private static Dataset open() {
    return Dataset.open(location);
  }

  private static List<String> column(String sql, String column) {
    return spark.sql(sql).collectAsList().stream()
        .map(r -> r.getString(r.fieldIndex(column)))
        .toList();
  }

  @Test
  @Order(1)
  void createsShowsAndDropsIndexes() {
    long before;
    try (Dataset ds = open()) {
      before = ds.version();
    }
    Row btree =
        spark.sql("ALTER TABLE lance.shop.items CREATE INDEX id_idx USING btree (id)").first();
    assertThat(btree.getString(btree.fieldIndex("name"))).isEqualTo("id_idx");
    assertThat(btree.getString(btree.fieldIndex("index_type"))).isEqualTo("BTREE");
    assertThat(btree.getLong(btree.fieldIndex("indexed_rows"))).isEqualTo(2400);
    Row ivf =
        spark
            .sql(
                "alter table lance.shop.items create index vec_idx using IVF_PQ (vector) with ("
                    + "num_partitions = 2, num_sub_vectors = 2, metric = 'l2', seed = 7)")
            .first();
    assertThat(ivf.getString(ivf.fieldIndex("name"))).isEqualTo("vec_idx");
    assertThat(ivf.getLong(ivf.fieldIndex("indexed_rows"))).isEqualTo(2400);
    try (Dataset ds = open()) {
      assertThat(ds.version()).isEqualTo(before + 2);
      assertThat(ds.indexes().names()).containsExactlyInAnyOrder("id_idx", "vec_idx");
    }
    // a second CREATE INDEX of the same name replaces it, as lance-spark's does
    spark.sql("ALTER TABLE lance.shop.items CREATE INDEX id_idx USING bitmap (id)");
    assertThat(column("SHOW INDEXES FROM lance.shop.items", "name"))
        .containsExactlyInAnyOrder("id_idx", "vec_idx");
    assertThat(column("SHOW INDEX IN lance.`" + location + "`", "index_type"))
        .containsExactlyInAnyOrder("BITMAP", "IVF_PQ");

    Row dropped = spark.sql("ALTER TABLE lance.shop.items DROP INDEX id_idx").first();
    assertThat(dropped.getString(dropped.fieldIndex("dropped_index"))).isEqualTo("id_idx");
    try (Dataset ds = open()) {
      assertThat(ds.indexes().names()).containsExactly("vec_idx");
    }

    // appended rows, then the index extended over them
    spark.sql("INSERT INTO lance.shop.items " + SparkProcedureTest.items(2400, 2600));
    Row optimized = spark.sql("ALTER TABLE lance.shop.items OPTIMIZE INDEX vec_idx").first();
    assertThat(optimized.getLong(optimized.fieldIndex("indexed_rows"))).isEqualTo(2600);
    assertThat(optimized.getLong(optimized.fieldIndex("unindexed_rows"))).isZero();
  }

  @Test
  @Order(2)
  void tagsAndBranches() {
    spark.sql("ALTER TABLE lance.shop.items CREATE TAG first AS OF VERSION 1");
    spark.sql("ALTER TABLE lance.shop.items CREATE TAG latest");
    assertThat(column("SHOW TAGS FROM lance.shop.items", "tag"))
        .containsExactlyInAnyOrder("first", "latest");
    spark.sql("ALTER TABLE lance.shop.items CREATE BRANCH dev AS OF TAG first");
    assertThat(column("SHOW BRANCHES IN lance.shop.items", "branch")).containsExactly("dev");
    try (Dataset ds = open()) {
      assertThat(ds.tags().version("first")).isEqualTo(1);
      assertThat(ds.tags().version("latest")).isEqualTo(ds.version());
    }
    spark.sql("ALTER TABLE lance.shop.items DROP BRANCH dev");
    spark.sql("ALTER TABLE lance.shop.items DROP TAG latest");
    assertThat(column("SHOW TAGS FROM lance.shop.items", "tag")).containsExactly("first");
    assertThat(spark.sql("SHOW BRANCHES IN lance.shop.items").collectAsList()).isEmpty();
    // the parser extension passes parameter markers on to Spark's parser
    assertThat(
            spark
                .sql(
                    "CALL lance.system.list_tags(table => :t)",
                    java.util.Map.<String, Object>of("t", "lance.shop.items"))
                .collectAsList())
        .extracting(r -> r.getString(r.fieldIndex("tag")))
        .containsExactly("first");
  }

  @Test
  @Order(3)
  void optimizesAndVacuumsInTheCurrentNamespace() {
    int fragments;
    try (Dataset ds = open()) {
      fragments = ds.fragments().size();
    }
    assertThat(fragments).isGreaterThan(1);
    spark.sql("USE lance.shop");
    try {
      Row compacted = spark.sql("OPTIMIZE items WITH (target_rows_per_fragment = 1000000)").first();
      assertThat(compacted.getLong(compacted.fieldIndex("fragments_removed"))).isEqualTo(fragments);
      long added = compacted.getLong(compacted.fieldIndex("fragments_added"));
      assertThat(added).isPositive().isLessThan(fragments);
      Row cleaned = spark.sql("VACUUM items WITH (retain_versions = 1)").first();
      assertThat(cleaned.getList(cleaned.fieldIndex("versions_removed"))).isNotEmpty();
    } finally {
      spark.sql("USE spark_catalog.default");
    }
    try (Dataset ds = open()) {
      assertThat(ds.fragments()).hasSizeLessThan(fragments);
      assertThat(ds.countRows()).isEqualTo(2600);
    }
  }

  @Test
  @Order(4)
  void malformedStatementsAndOtherCatalogsAreRefusedClearly() {
    assertThatThrownBy(
            () -> spark.sql("ALTER TABLE lance.shop.items CREATE INDEX ix USING btree (id, x)"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageStartingWith(
            "Syntax error at line 1, column 61: expected ')': a lancelot index covers one column");
    assertThatThrownBy(() -> spark.sql("OPTIMIZE lance.shop.items WITH (target_rows = 10)"))
        .hasStackTraceContaining("unknown parameter \"target_rows\"");
    assertThatThrownBy(() -> spark.sql("ALTER TABLE spark_catalog.default.t CREATE TAG x"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("is in catalog spark_catalog, which is not a lance catalog");
    // statements that are none of lancelot's keep Spark's error and Spark's meaning
    assertThatThrownBy(() -> spark.sql("ALTER TABLE lance.shop.items CREATE SOMETHING"))
        .isInstanceOf(ParseException.class);
    assertThat(column("SHOW TABLES IN lance.shop", "tableName")).containsExactly("items");
  }
}
