package dev.lancelot.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.Dataset;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.lance.ReadOptions;
import org.lance.Ref;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;

/**
 * Tags and branches from Spark: tags and branches lance-core 7.0.0 created read as Lance reads them
 * (options {@code versionAsOf} / {@code tag} / {@code branch}, SQL {@code VERSION AS OF 'tag'}, the
 * catalog name {@code db.items.branch_<name>}), the tag procedures write tags Lance sees, and bad
 * names and references are refused by name.
 */
class SparkTagsAndBranchesTest extends SharedSpark {
  static Path root;
  static String table; // lance.shop.items, at <root>/shop/items.lance

  @BeforeAll
  static void history() throws Exception {
    root = Files.createTempDirectory("lance-tags");
    spark.conf().set("spark.sql.catalog.lance.root", root.toString());
    table = root.resolve("shop").resolve("items.lance").toString();
    // v1: 0..1000, v2: +1000..1500, v3: delete id < 100
    spark
        .sql(SparkProcedureTest.items(0, 1000))
        .write()
        .format("lance")
        .option("vector.columns", "vector:" + SparkProcedureTest.DIM)
        .save(table);
    spark
        .sql(SparkProcedureTest.items(1000, 1500))
        .write()
        .format("lance")
        .mode("append")
        .save(table);
    try (Dataset ds = Dataset.open(table)) {
      ds.delete("id < 100").close();
    }
    try (org.lance.Dataset lance = lanceOpen()) {
      lance.tags().create("first", 1);
      lance.createBranch("dev/one", Ref.ofMain(2)).close();
      lance.tags().create("on-dev", Ref.ofBranch("dev/one", 2));
    }
  }

  static org.lance.Dataset lanceOpen() {
    return org.lance.Dataset.open(allocator, table, new ReadOptions.Builder().build());
  }

  /** The ids Lance reads at {@code ref}, sorted. */
  static List<Long> lanceIds(Ref ref) {
    return lanceIds(table, ref);
  }

  /** The ids Lance reads at {@code ref} of the dataset at {@code location}, sorted. */
  static List<Long> lanceIds(String location, Ref ref) {
    List<Long> out = new ArrayList<>();
    try (org.lance.Dataset lance =
            org.lance.Dataset.open(allocator, location, new ReadOptions.Builder().build());
        org.lance.Dataset at = lance.checkout(ref);
        LanceScanner scanner =
            at.newScan(new ScanOptions.Builder().columns(List.of("id")).build());
        ArrowReader reader = scanner.scanBatches()) {
      while (reader.loadNextBatch()) {
        VectorSchemaRoot r = reader.getVectorSchemaRoot();
        BigIntVector ids = (BigIntVector) r.getVector("id");
        for (int i = 0; i < r.getRowCount(); i++) {
          out.add(ids.get(i));
        }
      }
    } catch (Exception e) {
      throw new RuntimeException(e);
    }
    out.sort(null);
    return out;
  }

  static List<Long> ids(org.apache.spark.sql.Dataset<Row> df) {
    return df.select("id").orderBy("id").collectAsList().stream().map(r -> r.getLong(0)).toList();
  }

  static List<Long> read(Map<String, String> options) {
    return ids(spark.read().format("lance").options(options).load(table));
  }

  @Test
  void readerOptionsReadTagsAndBranchesAsLanceDoes() {
    List<Long> first = lanceIds(Ref.ofTag("first"));
    assertThat(first).hasSize(1000);
    assertThat(read(Map.of("versionAsOf", "first"))).isEqualTo(first);
    assertThat(read(Map.of("version", "first"))).isEqualTo(first);
    assertThat(read(Map.of("tag", "first"))).isEqualTo(first);

    List<Long> dev = lanceIds(Ref.ofBranch("dev/one"));
    assertThat(dev).hasSize(1500);
    assertThat(read(Map.of("branch", "dev/one"))).isEqualTo(dev);
    assertThat(read(Map.of("branch", "dev/one", "versionAsOf", "2"))).isEqualTo(dev);
    assertThat(read(Map.of("tag", "on-dev"))).isEqualTo(lanceIds(Ref.ofTag("on-dev")));
    assertThat(read(Map.of("branch", "main"))).isEqualTo(lanceIds(Ref.ofMain())).hasSize(1400);
    assertThat(
            spark
                .read()
                .format("lance")
                .option("branch", "dev/one")
                .load(table)
                .filter("id >= 1490")
                .count())
        .isEqualTo(10);
  }

  @Test
  void sqlReadsTagsByVersionAsOfAndBranchesByName() {
    List<Long> first = lanceIds(Ref.ofTag("first"));
    assertThat(ids(spark.sql("SELECT id FROM lance.shop.items VERSION AS OF 'first'")))
        .isEqualTo(first);
    assertThat(ids(spark.sql("SELECT id FROM lance.`" + table + "` VERSION AS OF 'first'")))
        .isEqualTo(first);
    assertThat(ids(spark.sql("SELECT id FROM lance.shop.items VERSION AS OF 'on-dev'")))
        .isEqualTo(lanceIds(Ref.ofTag("on-dev")));
    assertThat(ids(spark.sql("SELECT id FROM lance.shop.items.`branch_dev/one`")))
        .isEqualTo(lanceIds(Ref.ofBranch("dev/one")));
    assertThat(
            spark
                .sql("SELECT count(*) FROM lance.shop.items.`branch_dev/one` VERSION AS OF 2")
                .first()
                .getLong(0))
        .isEqualTo(1500);
  }

  static Map<String, Long> lanceTags() {
    Map<String, Long> out = new TreeMap<>();
    try (org.lance.Dataset lance = lanceOpen()) {
      lance.tags().list().forEach(t -> out.put(t.getName(), t.getVersion()));
    }
    return out;
  }

  @Test
  void tagProceduresWriteTagsLanceSees() {
    Row created =
        spark
            .sql("CALL lance.system.create_tag(table => 'shop.items', tag => 'gold', version => 2)")
            .first();
    assertThat(created.getString(0)).isEqualTo("gold");
    assertThat(created.isNullAt(1)).isTrue();
    assertThat(created.getLong(2)).isEqualTo(2);
    assertThat(lanceTags()).containsEntry("gold", 2L);
    assertThat(lanceIds(Ref.ofTag("gold")))
        .isEqualTo(ids(spark.sql("SELECT id FROM lance.shop.items VERSION AS OF 'gold'")));

    spark.sql("CALL lance.system.update_tag(table => '" + table + "', tag => 'gold')"); // latest
    assertThat(lanceTags()).containsEntry("gold", 3L);
    spark.sql(
        "CALL lance.system.create_tag(table => 'shop.items', tag => 'dev-head', branch => 'dev/one')");
    List<Row> listed =
        spark.sql("CALL lance.system.list_tags(table => 'shop.items')").collectAsList();
    assertThat(listed.stream().map(r -> r.getString(0)).toList())
        .contains("dev-head", "first", "gold", "on-dev");
    Row devHead = listed.stream().filter(r -> r.getString(0).equals("dev-head")).findFirst().get();
    assertThat(devHead.getString(1)).isEqualTo("dev/one");
    assertThat(devHead.getLong(2)).isEqualTo(2);
    assertThat(devHead.get(3)).isNotNull();

    spark.sql("CALL lance.system.delete_tag(table => 'shop.items', tag => 'gold')");
    spark.sql("CALL lance.system.delete_tag(table => 'shop.items', tag => 'dev-head')");
    assertThat(lanceTags()).doesNotContainKeys("gold", "dev-head").containsKey("first");
  }

  @Test
  void badTagsAndBranchesAreRefusedByName() {
    assertThatThrownBy(() -> read(Map.of("versionAsOf", "nope")))
        .hasMessageContaining("Cannot find tag \"nope\"")
        .hasMessageContaining("its tags are [");
    assertThatThrownBy(() -> read(Map.of("tag", "../x")))
        .hasMessageContaining("Invalid tag name \"../x\"");
    assertThatThrownBy(() -> read(Map.of("branch", "../../etc")))
        .hasMessageContaining("Invalid branch name \"../../etc\"");
    assertThatThrownBy(() -> read(Map.of("branch", "nobranch")))
        .hasMessageContaining("Cannot find branch \"nobranch\"")
        .hasMessageContaining("its branches are [dev/one]");
    assertThatThrownBy(() -> read(Map.of("tag", "first", "version", "2")))
        .hasMessageContaining("Cannot read tag \"first\" together with version 2");
    assertThatThrownBy(
            () -> spark.sql("SELECT id FROM lance.shop.items VERSION AS OF 'missing'").collect())
        .hasMessageContaining("Cannot find tag \"missing\"");
    assertThatThrownBy(
            () ->
                spark
                    .sql("CALL lance.system.create_tag(table => 'shop.items', tag => 'first')")
                    .collect())
        .hasMessageContaining("Cannot create tag \"first\"")
        .hasMessageContaining("already exists (on version 1)");
    assertThatThrownBy(
            () ->
                spark
                    .sql(
                        "CALL lance.system.create_tag(table => 'shop.items', tag => 'late', version => 99)")
                    .collect())
        .hasMessageContaining("Cannot tag version 99");
    assertThatThrownBy(
            () ->
                spark
                    .sql("CALL lance.system.delete_tag(table => 'shop.items', tag => 'missing')")
                    .collect())
        .hasMessageContaining("Cannot find tag \"missing\"");
    assertThatThrownBy(
            () ->
                spark
                    .sql(
                        "CALL lance.system.create_branch(table => 'shop.items', branch => 'x', "
                            + "tag => 'first', version => 1)")
                    .collect())
        .hasMessageContaining("create_branch takes a tag or a version");
    assertThatThrownBy(
            () ->
                spark
                    .sql(
                        "CALL lance.system.create_branch(table => 'shop.items', branch => 'dev/one')")
                    .collect())
        .hasMessageContaining("Cannot create branch \"dev/one\"")
        .hasMessageContaining("already exists");
    assertThatThrownBy(
            () ->
                spark
                    .sql("CALL lance.system.delete_branch(table => 'shop.items', branch => 'nope')")
                    .collect())
        .hasMessageContaining("Cannot find branch \"nope\"");
    assertThatThrownBy(
            () ->
                spark
                    .sql(
                        "CALL lance.system.delete_branch(table => 'shop.items', branch => 'dev/one')")
                    .collect())
        .hasMessageContaining("tags [on-dev] point to its versions");
    assertThat(lanceTags()).containsOnlyKeys("first", "on-dev");
    assertThat(lanceIds(Ref.ofBranch("dev/one"))).hasSize(1500);
  }

  static List<String> lanceBranches(String location) {
    try (org.lance.Dataset lance =
        org.lance.Dataset.open(allocator, location, new ReadOptions.Builder().build())) {
      return lance.branches().list().stream().map(org.lance.Branch::getName).sorted().toList();
    }
  }

  static List<Long> range(long from, long to) {
    List<Long> out = new ArrayList<>();
    for (long i = from; i < to; i++) {
      out.add(i);
    }
    return out;
  }

  @Test
  void branchProceduresAndWritesToBranchesAreLances() {
    String t = root.resolve("shop").resolve("branchy.lance").toString();
    spark.sql(SparkProcedureTest.items(0, 100)).write().format("lance").save(t);
    spark.sql(SparkProcedureTest.items(100, 200)).write().format("lance").mode("append").save(t);
    Row exp =
        spark
            .sql(
                "CALL lance.system.create_branch(table => 'shop.branchy', branch => 'exp', "
                    + "version => 1)")
            .collectAsList()
            .get(0);
    assertThat(exp.getString(0)).isEqualTo("exp");
    assertThat(exp.isNullAt(1)).isTrue();
    assertThat(exp.getLong(2)).isEqualTo(1);
    Row latest =
        spark
            .sql("CALL lance.system.create_branch(table => 'shop.branchy', branch => 'exp/latest')")
            .collectAsList()
            .get(0);
    assertThat(latest.getLong(2)).isEqualTo(2);
    spark.sql("CALL lance.system.create_tag(table => 'shop.branchy', tag => 'v1', version => 1)");
    spark.sql(
        "CALL lance.system.create_branch(table => 'shop.branchy', branch => 'from-tag', "
            + "tag => 'v1')");
    Row child =
        spark
            .sql(
                "CALL lance.system.create_branch(table => 'shop.branchy', branch => 'exp/child', "
                    + "from_branch => 'exp')")
            .collectAsList()
            .get(0);
    assertThat(child.getString(1)).isEqualTo("exp");
    assertThat(child.getLong(2)).isEqualTo(1);
    assertThat(lanceBranches(t)).containsExactly("exp", "exp/child", "exp/latest", "from-tag");
    assertThat(
            spark.sql("CALL lance.system.list_branches(table => 'shop.branchy')").collectAsList())
        .extracting(r -> r.getString(0))
        .containsExactly("exp", "exp/child", "exp/latest", "from-tag");
    assertThat(lanceIds(t, Ref.ofBranch("from-tag"))).isEqualTo(range(0, 100));
    assertThat(lanceIds(t, Ref.ofBranch("exp/latest"))).isEqualTo(range(0, 200));

    // writes to branch exp: the DataFrame writer's option, then SQL on the catalog name
    spark
        .sql(SparkProcedureTest.items(1000, 1010))
        .write()
        .format("lance")
        .option("branch", "exp")
        .mode("append")
        .save(t);
    spark.sql(
        "INSERT INTO lance.shop.branchy.`branch_exp` " + SparkProcedureTest.items(2000, 2005));
    spark.sql("DELETE FROM lance.shop.branchy.`branch_exp` WHERE id < 10");
    spark.sql("UPDATE lance.shop.branchy.`branch_exp` SET tenant_id = 99 WHERE id = 50");
    spark.sql(
        "MERGE INTO lance.shop.branchy.`branch_exp` t USING (SELECT 60L AS id, 77 AS tenant_id) s "
            + "ON t.id = s.id WHEN MATCHED THEN UPDATE SET tenant_id = s.tenant_id");
    List<Long> expected = new ArrayList<>(range(10, 100));
    expected.addAll(range(1000, 1010));
    expected.addAll(range(2000, 2005));
    assertThat(lanceIds(t, Ref.ofBranch("exp"))).isEqualTo(expected);
    assertThat(ids(spark.read().format("lance").option("branch", "exp").load(t)))
        .isEqualTo(expected);
    assertThat(
            spark
                .sql("SELECT tenant_id FROM lance.shop.branchy.`branch_exp` WHERE id = 50")
                .collectAsList()
                .get(0)
                .getInt(0))
        .isEqualTo(99);
    assertThat(
            spark
                .sql("SELECT tenant_id FROM lance.shop.branchy.`branch_exp` WHERE id = 60")
                .collectAsList()
                .get(0)
                .getInt(0))
        .isEqualTo(77);
    // an overwrite through the writer option replaces the branch's rows, on the branch
    spark
        .sql(SparkProcedureTest.items(3000, 3003))
        .write()
        .format("lance")
        .option("branch", "exp/latest")
        .mode("overwrite")
        .save(t);
    assertThat(lanceIds(t, Ref.ofBranch("exp/latest"))).containsExactly(3000L, 3001L, 3002L);
    assertThat(lanceBranches(t)).contains("exp/latest");
    assertThatThrownBy(() -> spark.sql("DROP TABLE lance.shop.branchy.`branch_exp`"))
        .hasMessageContaining("it is a branch of table shop.branchy")
        .hasMessageContaining(
            "CALL lance.system.delete_branch(table => 'shop.branchy', branch => 'exp')");
    assertThat(lanceIds(t, Ref.ofBranch("exp"))).isEqualTo(expected);
    // main and the other branches are as they were
    assertThat(lanceIds(t, Ref.ofMain())).isEqualTo(range(0, 200));
    assertThat(lanceIds(t, Ref.ofBranch("exp/child"))).isEqualTo(range(0, 100));
    try (Dataset ds = Dataset.open(t)) {
      assertThat(ds.version()).isEqualTo(2);
    }

    assertThatThrownBy(
            () ->
                spark
                    .sql(
                        "CALL lance.system.delete_branch(table => 'shop.branchy', branch => 'exp')")
                    .collect())
        .hasMessageContaining("branches [exp/child] were created from it");
    Row deleted =
        spark
            .sql("CALL lance.system.delete_branch(table => 'shop.branchy', branch => 'exp/child')")
            .collectAsList()
            .get(0);
    assertThat(deleted.getString(0)).isEqualTo("exp/child");
    spark.sql("CALL lance.system.delete_branch(table => 'shop.branchy', branch => 'exp')");
    assertThat(lanceBranches(t)).containsExactly("exp/latest", "from-tag");
    assertThat(lanceIds(t, Ref.ofBranch("exp/latest"))).containsExactly(3000L, 3001L, 3002L);
  }
}
