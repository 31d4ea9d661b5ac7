package dev.lancelot.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.distributed.ScalarIndexBuild;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeSet;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;

/**
 * {@code CALL lance.system.create_scalar_index(..., index_type => 'BITMAP' | 'ZONEMAP' |
 * 'BLOOM_FILTER')} (decision D64): each kind written by one Spark task and committed by the driver;
 * Spark's filtered reads use it (the scan's description names it) and return the rows of an
 * unindexed read; {@code optimize_index} adds a segment over appended fragments.
 */
class SparkScalarIndexKindsTest extends SharedSpark {

  static Dataset<Row> rows(long first, long count) {
    return spark
        .range(first, first + count)
        .selectExpr(
            "id",
            "cast(id % 50 as int) AS tenant",
            "IF(id % 13 = 0, NULL, concat('user-', id)) AS name");
  }

  static TreeSet<Long> ids(Dataset<Row> df) {
    TreeSet<Long> out = new TreeSet<>();
    for (Row r : df.collectAsList()) {
      out.add(r.getLong(r.fieldIndex("id")));
    }
    return out;
  }

  private static Row call(String sql) {
    return spark.sql(sql).first();
  }

  @Test
  void buildsEachKindInOneTaskAndFilteredReadsUseIt() throws Exception {
    Path dir = Files.createTempDirectory("spark-scalar-kinds").resolve("t");
    rows(0, 6000).write().format("lance").option("max_rows_per_file", 1500).save(dir.toString());
    String table = "table => '" + dir + "'";
    spark.conf().set(dev.lancelot.spark.index.LanceIndexBuilder.ROWS_PER_SEGMENT_CONF, "2000");
    try {
      spark.sparkContext().setJobGroup("bitmap-build", "bitmap build", false);
      Row bitmap =
          call(
              "CALL lance.system.create_scalar_index("
                  + table
                  + ", column => 'tenant', index_type => 'bitmap', name => 'tenant_bitmap')");
      spark.sparkContext().clearJobGroup();
      // not cut by rows per segment: one task writes the whole segment
      assertThat(SparkIndexBuildTest.tasksOf("bitmap-build")).isEqualTo(1);
      assertThat(bitmap.getString(bitmap.fieldIndex("index_type"))).isEqualTo("BITMAP");
      assertThat(bitmap.getLong(bitmap.fieldIndex("indexed_rows"))).isEqualTo(6000);
      assertThat(bitmap.isNullAt(bitmap.fieldIndex("null_rows"))).isTrue();
      Row zones =
          call(
              "CALL lance.system.create_scalar_index("
                  + table
                  + ", column => 'id', index_type => 'ZONEMAP', rows_per_zone => 500)");
      assertThat(zones.getString(zones.fieldIndex("name"))).isEqualTo("id_idx");
      assertThat(zones.getString(zones.fieldIndex("index_type"))).isEqualTo("ZONEMAP");
      Row bloom =
          call(
              "CALL lance.system.create_scalar_index("
                  + table
                  + ", column => 'name', index_type => 'BLOOM_FILTER', number_of_items => 300,"
                  + " probability => 0.01)");
      assertThat(bloom.getString(bloom.fieldIndex("index_type"))).isEqualTo("BLOOM_FILTER");
    } finally {
      spark.sparkContext().clearJobGroup();
      spark.conf().unset(dev.lancelot.spark.index.LanceIndexBuilder.ROWS_PER_SEGMENT_CONF);
    }
    try (dev.lancelot.engine.Dataset ds = dev.lancelot.engine.Dataset.open(dir.toString())) {
      assertThat(ScalarIndexBuild.paramsOf(ds, "id_idx").rowsPerZone()).isEqualTo(500);
      assertThat(ScalarIndexBuild.paramsOf(ds, "name_idx").bloomItems()).isEqualTo(300);
    }
    checkReads(dir);

    rows(6000, 1000).coalesce(1).write().format("lance").mode("append").save(dir.toString());
    for (String name : List.of("tenant_bitmap", "id_idx", "name_idx")) {
      Row optimized =
          call("CALL lance.system.optimize_index(table => '" + dir + "', name => '" + name + "')");
      assertThat(optimized.getInt(optimized.fieldIndex("segments"))).as(name).isEqualTo(2);
      assertThat(optimized.getLong(optimized.fieldIndex("indexed_rows"))).isEqualTo(7000);
      assertThat(optimized.getLong(optimized.fieldIndex("unindexed_rows"))).isZero();
    }
    Row retrained =
        call(
            "CALL lance.system.optimize_index(table => '"
                + dir
                + "', name => 'id_idx', retrain => true)");
    assertThat(retrained.getInt(retrained.fieldIndex("segments"))).isEqualTo(1);
    checkReads(dir);
  }

  private void checkReads(Path dir) {
    List<String[]> cases =
        List.of(
            new String[] {"tenant = 7", "tenant_bitmap"},
            new String[] {"tenant IN (1, 2) AND id < 3000", "tenant_bitmap"},
            new String[] {"id BETWEEN 2000 AND 2100", "id_idx"},
            new String[] {"name = 'user-4321'", "name_idx"},
            new String[] {"name IS NULL AND id > 100", "name_idx"});
    for (String[] c : cases) {
      Dataset<Row> df = spark.read().format("lance").load(dir.toString()).filter(c[0]);
      assertThat(SparkIndexedScanTest.description(df)).as(c[0]).contains("index=[").contains(c[1]);
      TreeSet<Long> indexed = ids(df);
      spark.conf().set("spark.lancelot.scan.useScalarIndex", "false");
      try {
        assertThat(indexed)
            .as(c[0])
            .isEqualTo(ids(spark.read().format("lance").load(dir.toString()).filter(c[0])))
            .isNotEmpty();
      } finally {
        spark.conf().unset("spark.lancelot.scan.useScalarIndex");
      }
    }
  }

  @Test
  void refusesWhatItDoesNotBuild() throws Exception {
    Path dir = Files.createTempDirectory("spark-scalar-refusals").resolve("t");
    rows(0, 100).write().format("lance").save(dir.toString());
    String call = "CALL lance.system.create_scalar_index(table => '" + dir + "', ";
    assertThatThrownBy(() -> spark.sql(call + "column => 'name', index_type => 'INVERTED')"))
        .hasMessageContaining("lancelot builds BTREE, BITMAP, ZONEMAP, BLOOM_FILTER")
        .hasMessageContaining("does not build them");
    assertThatThrownBy(
            () -> spark.sql(call + "column => 'id', index_type => 'BITMAP', rows_per_zone => 10)"))
        .hasMessageContaining("rows_per_zone applies to index_type => 'ZONEMAP' only");
    assertThatThrownBy(
            () ->
                spark.sql(
                    call + "column => 'id', index_type => 'BLOOM_FILTER', probability => 2.0)"))
        .hasMessageContaining("between 0 and 1");
  }

  /**
   * Spark's pushed StringStartsWith / StringContains / StringEndsWith (and LIKE) reach the engine
   * as LIKE patterns whose literal runs an n-gram index (built by lance-core) narrows; the rows
   * equal an unindexed read; NOT LIKE and runs without a trigram read every row.
   */
  @Test
  void likeFiltersFromSparkUseAnNgramIndex() throws Exception {
    Path dir = Files.createTempDirectory("spark-like-ngram").resolve("t");
    rows(0, 6000).write().format("lance").option("max_rows_per_file", 1500).save(dir.toString());
    try (org.lance.Dataset lance = dev.lancelot.engine.testing.LanceOracle.open(allocator, dir)) {
      lance.createIndex(
          List.of("name"),
          org.lance.index.IndexType.NGRAM,
          java.util.Optional.of("name_ngram"),
          org.lance.index.IndexParams.builder()
              .setScalarIndexParams(org.lance.index.scalar.ScalarIndexParams.create("ngram"))
              .build(),
          true);
    }
    checkLikeFilters(dir);
  }

  /**
   * An n-gram index built from Spark ({@code index_type => 'NGRAM'}, one task) narrows the same
   * pushed filters, with the rows of an unindexed read.
   */
  @Test
  void buildsAnNgramIndexThatLikeFiltersUse() throws Exception {
    Path dir = Files.createTempDirectory("spark-build-ngram").resolve("t");
    rows(0, 6000).write().format("lance").option("max_rows_per_file", 1500).save(dir.toString());
    Row created =
        call(
            "CALL lance.system.create_scalar_index(table => '"
                + dir
                + "', column => 'name', index_type => 'NGRAM', name => 'name_ngram')");
    assertThat(created.getString(created.fieldIndex("index_type"))).isEqualTo("NGRAM");
    assertThat(created.getLong(created.fieldIndex("indexed_rows"))).isEqualTo(6000);
    checkLikeFilters(dir);
  }

  private void checkLikeFilters(Path dir) {
    org.apache.spark.sql.Column name = org.apache.spark.sql.functions.col("name");
    List<Object[]> cases =
        List.of(
            new Object[] {name.startsWith("user-123"), true},
            new Object[] {name.contains("r-4567"), true},
            new Object[] {name.endsWith("-5999"), true},
            new Object[] {name.like("%9%"), false},
            new Object[] {org.apache.spark.sql.functions.not(name.contains("user-1")), false});
    for (Object[] c : cases) {
      org.apache.spark.sql.Column filter = (org.apache.spark.sql.Column) c[0];
      Dataset<Row> df = spark.read().format("lance").load(dir.toString()).filter(filter);
      String description = SparkIndexedScanTest.description(df);
      if ((Boolean) c[1]) {
        assertThat(description).as(filter.toString()).contains("index=[name_ngram] superset");
      } else {
        assertThat(description).as(filter.toString()).contains("index=none");
      }
      TreeSet<Long> indexed = ids(df);
      spark.conf().set("spark.lancelot.scan.useScalarIndex", "false");
      try {
        assertThat(indexed)
            .as(filter.toString())
            .isEqualTo(ids(spark.read().format("lance").load(dir.toString()).filter(filter)));
      } finally {
        spark.conf().unset("spark.lancelot.scan.useScalarIndex");
      }
      if ((Boolean) c[1]) {
        assertThat(indexed).as(filter.toString()).isNotEmpty();
      }
    }
  }

  /** A label-list index built from Spark answers the engine's containment filters exactly. */
  @Test
  void buildsALabelListOnAnArrayColumn() throws Exception {
    Path dir = Files.createTempDirectory("spark-label-list").resolve("t");
    spark
        .range(0, 3000)
        .selectExpr(
            "id", "IF(id % 11 = 5, NULL, array(concat('t', id % 3), concat('u', id % 5))) AS tags")
        .write()
        .format("lance")
        .option("max_rows_per_file", 1000)
        .save(dir.toString());
    Row created =
        call(
            "CALL lance.system.create_scalar_index(table => '"
                + dir
                + "', column => 'tags', index_type => 'LABEL_LIST')");
    assertThat(created.getString(created.fieldIndex("index_type"))).isEqualTo("LABEL_LIST");
    assertThat(created.getLong(created.fieldIndex("indexed_rows"))).isEqualTo(3000);
    try (dev.lancelot.engine.Dataset ds = dev.lancelot.engine.Dataset.open(dir.toString())) {
      for (String filter :
          List.of("array_has_all(tags, ['t1', 'u3'])", "array_has_any(tags, ['u4', 'nothing'])")) {
        dev.lancelot.engine.Scanner indexed = ds.newScan().filter(filter);
        long rows = indexed.countRows();
        assertThat(indexed.indexUse().indexes()).as(filter).containsExactly("tags_idx");
        assertThat(indexed.indexUse().exact()).as(filter).isTrue();
        assertThat(rows)
            .as(filter)
            .isEqualTo(ds.newScan().filter(filter).useScalarIndex(false).countRows())
            .isPositive();
      }
    }
    assertThatThrownBy(
            () ->
                spark.sql(
                    "CALL lance.system.create_scalar_index(table => '"
                        + dir
                        + "', column => 'id', index_type => 'LABEL_LIST', name => 'bad')"))
        .hasMessageContaining("is not a list of");
  }
}
