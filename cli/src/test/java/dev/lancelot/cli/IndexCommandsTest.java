package dev.lancelot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lancelot.engine.WriteMode;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** create-index, create-scalar-index, optimize-indices and the index section of info. */
class IndexCommandsTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  private String dataset(int rows, int rowsPerFile) {
    Path p = dir.resolve("ds");
    CliData.write(p, 0, rows, WriteMode.CREATE, rowsPerFile);
    return p.toString();
  }

  private static JsonNode json(CliData.Result r) throws Exception {
    assertThat(r.code()).as(r.err()).isZero();
    return JSON.readTree(r.out());
  }

  private static JsonNode index(JsonNode info, String name) {
    for (JsonNode i : info.get("indexes")) {
      if (i.get("name").asText().equals(name)) {
        return i;
      }
    }
    throw new AssertionError("no index " + name + " in " + info);
  }

  @Test
  void createIndexHumanOutputThenInfoListsIt() {
    String ds = dataset(3000, 1000);
    CliData.Result r =
        CliData.run(
            "create-index",
            ds,
            "--column",
            "vector",
            "--type",
            "IVF_PQ",
            "--metric",
            "l2",
            "--num-partitions",
            "4",
            "--num-sub-vectors",
            "4",
            "--num-bits",
            "8",
            "--max-iterations",
            "10");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out())
        .contains(
            "created IVF_PQ index \"vector_idx\" on vector",
            "dataset is now at version 2",
            "vector_idx  IVF_PQ on vector, l2, dim 16, 4 partitions, 1 segment",
            "indexed 3 fragments [0-2] (3,000 rows); unindexed 0 fragments (0 rows)");

    CliData.Result info = CliData.run("info", ds);
    assertThat(info.code()).as(info.err()).isZero();
    assertThat(info.out())
        .contains("indexes\n  vector_idx  IVF_PQ on vector, l2, dim 16, 4 partitions, 1 segment");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "IVF_FLAT",
        "IVF_PQ",
        "IVF_SQ",
        "IVF_RQ",
        "IVF_HNSW_FLAT",
        "IVF_HNSW_SQ",
        "IVF_HNSW_PQ"
      })
  void createIndexJsonForEveryType(String type) throws Exception {
    String ds = dataset(1000, 1000);
    java.util.List<String> args =
        new java.util.ArrayList<>(
            java.util.List.of(
                "create-index",
                ds,
                "--column",
                "vector",
                "--type",
                type.toLowerCase(),
                "--metric",
                "cosine",
                "--num-partitions",
                "2",
                "--max-iterations",
                "5",
                "--name",
                "emb",
                "--json"));
    if (type.contains("PQ")) {
      args.addAll(java.util.List.of("--num-sub-vectors", "8"));
    }
    if (type.contains("HNSW")) {
      args.addAll(java.util.List.of("--m", "8", "--ef-construction", "40"));
    }
    JsonNode out = json(CliData.run(args.toArray(String[]::new)));
    assertThat(out.get("version").asLong()).isEqualTo(2);
    JsonNode idx = out.get("index");
    assertThat(idx.get("name").asText()).isEqualTo("emb");
    assertThat(idx.get("type").asText()).isEqualTo(type);
    assertThat(idx.get("column").asText()).isEqualTo("vector");
    assertThat(idx.get("metric").asText()).isEqualTo("cosine");
    assertThat(idx.get("dimension").asInt()).isEqualTo(CliData.DIM);
    assertThat(idx.get("partitions").asInt()).isEqualTo(2);
    assertThat(idx.get("segments")).hasSize(1);
    assertThat(idx.get("segments").get(0).get("vectors").asLong()).isEqualTo(1000);
    assertThat(idx.get("indexed_rows").asLong()).isEqualTo(1000);
    assertThat(idx.get("unindexed_fragments")).isEmpty();

    JsonNode info = index(json(CliData.run("info", ds, "--json")), "emb");
    assertThat(info.get("type").asText()).isEqualTo(type);
    assertThat(info.get("unindexed_rows").asLong()).isZero();
  }

  /** IVF_RQ with two bits per dimension, then optimize-indices extends it over an append. */
  @Test
  void ivfRqWithNumBitsIsBuiltAndOptimized() throws Exception {
    String ds = dataset(2000, 1000);
    CliData.Result r =
        CliData.run(
            "create-index",
            ds,
            "--column",
            "vector",
            "--type",
            "ivf_rq",
            "--num-bits",
            "2",
            "--num-partitions",
            "2");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out())
        .contains(
            "created IVF_RQ index \"vector_idx\" on vector",
            "vector_idx  IVF_RQ on vector, l2, dim 16, 2 partitions, 1 segment");
    CliData.write(Path.of(ds), 2000, 500, WriteMode.APPEND, 1000);
    CliData.Result opt = CliData.run("optimize-indices", ds);
    assertThat(opt.code()).as(opt.err()).isZero();
    assertThat(opt.out())
        .contains(
            "vector_idx (IVF_RQ): added 1 delta segment; newly covers 1 fragment [2] (500 rows)");
    JsonNode idx = index(json(CliData.run("info", ds, "--json")), "vector_idx");
    assertThat(idx.get("segments")).hasSize(2);
    assertThat(idx.get("unindexed_rows").asLong()).isZero();
  }

  @Test
  void createScalarIndexHumanAndJson() throws Exception {
    String ds = dataset(2000, 1000);
    CliData.Result r = CliData.run("create-scalar-index", ds, "--column", "tenant_id");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out())
        .contains(
            "created BTREE index \"tenant_id_idx\" on tenant_id",
            "tenant_id_idx  BTREE on tenant_id, 1 segment, 1 page, 0 nulls",
            "indexed 2 fragments [0-1] (2,000 rows); unindexed 0 fragments (0 rows)");

    JsonNode out =
        json(
            CliData.run(
                "create-scalar-index",
                ds,
                "--column",
                "name",
                "--type",
                "BTREE",
                "--name",
                "by_name",
                "--json"));
    assertThat(out.get("version").asLong()).isEqualTo(3);
    JsonNode idx = out.get("index");
    assertThat(idx.get("type").asText()).isEqualTo("BTREE");
    assertThat(idx.get("column").asText()).isEqualTo("name");
    assertThat(idx.get("rows_in_index").asLong()).isEqualTo(2000);
    assertThat(idx.get("null_rows").asLong())
        .isEqualTo(2000 / 7 + 1); // ids 3, 10, 17, ... have no name
    assertThat(idx.get("indexed_rows").asLong()).isEqualTo(2000);

    // --replace rebuilds under the same name
    JsonNode again =
        json(
            CliData.run("create-scalar-index", ds, "--column", "tenant_id", "--replace", "--json"));
    assertThat(again.get("index").get("segments")).hasSize(1);
    JsonNode info = json(CliData.run("info", ds, "--json"));
    assertThat(info.get("indexes")).hasSize(2);
  }

  @Test
  void appendThenOptimizeCoversTheNewFragment() throws Exception {
    String ds = dataset(2000, 1000);
    assertThat(
            CliData.run(
                    "create-index",
                    ds,
                    "--column",
                    "vector",
                    "--type",
                    "IVF_PQ",
                    "--num-partitions",
                    "4",
                    "--num-sub-vectors",
                    "4",
                    "--max-iterations",
                    "10")
                .code())
        .isZero();
    assertThat(CliData.run("create-scalar-index", ds, "--column", "tenant_id").code()).isZero();
    CliData.write(Path.of(ds), 2000, 500, WriteMode.APPEND, 1000);

    JsonNode before = json(CliData.run("info", ds, "--json"));
    for (String name : new String[] {"vector_idx", "tenant_id_idx"}) {
      assertThat(index(before, name).get("unindexed_fragments").toString()).isEqualTo("[2]");
      assertThat(index(before, name).get("unindexed_rows").asLong()).isEqualTo(500);
    }
    CliData.Result human = CliData.run("info", ds);
    assertThat(human.out())
        .contains("indexed 2 fragments [0-1] (2,000 rows); unindexed 1 fragment [2] (500 rows)");

    CliData.Result r = CliData.run("optimize-indices", ds);
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out())
        .contains(
            "vector_idx (IVF_PQ): added 1 delta segment; newly covers 1 fragment [2] (500 rows); version 5",
            "tenant_id_idx (BTREE): rebuilt over all fragments (scalar indexes are rebuilt, not extended), 1 segment "
                + "replaces 1; newly covers 1 fragment [2] (500 rows); version 6",
            "dataset is at version 6");

    JsonNode after = json(CliData.run("info", ds, "--json"));
    JsonNode vec = index(after, "vector_idx");
    assertThat(vec.get("segments")).hasSize(2);
    assertThat(vec.get("segments").get(1).get("fragments").toString()).isEqualTo("[2]");
    assertThat(vec.get("unindexed_fragments")).isEmpty();
    assertThat(vec.get("unindexed_rows").asLong()).isZero();
    assertThat(vec.get("indexed_rows").asLong()).isEqualTo(2500);
    JsonNode bt = index(after, "tenant_id_idx");
    assertThat(bt.get("unindexed_rows").asLong()).isZero();
    assertThat(bt.get("rows_in_index").asLong()).isEqualTo(2500);
    assertThat(CliData.run("info", ds).out())
        .contains("unindexed 0 fragments (0 rows)")
        .doesNotContain("unindexed 1 fragment");

    // Nothing left to do.
    CliData.Result again = CliData.run("optimize-indices", ds);
    assertThat(again.out())
        .contains(
            "vector_idx (IVF_PQ): up to date, nothing to do",
            "tenant_id_idx (BTREE): up to date, nothing to do",
            "dataset is at version 6");
  }

  @Test
  void optimizeJsonWithRetrainOfOneIndex() throws Exception {
    String ds = dataset(2000, 1000);
    assertThat(
            CliData.run(
                    "create-index",
                    ds,
                    "--column",
                    "vector",
                    "--type",
                    "IVF_SQ",
                    "--num-partitions",
                    "3")
                .code())
        .isZero();
    assertThat(CliData.run("create-scalar-index", ds, "--column", "tenant_id").code()).isZero();
    CliData.write(Path.of(ds), 2000, 300, WriteMode.APPEND, 1000);
    CliData.write(Path.of(ds), 2300, 300, WriteMode.APPEND, 1000);

    JsonNode out =
        json(CliData.run("optimize-indices", ds, "--index", "vector_idx", "--retrain", "--json"));
    assertThat(out.get("version").asLong()).isEqualTo(6);
    assertThat(out.get("indexes")).hasSize(1);
    JsonNode r = out.get("indexes").get(0);
    assertThat(r.get("name").asText()).isEqualTo("vector_idx");
    assertThat(r.get("type").asText()).isEqualTo("IVF_SQ");
    assertThat(r.get("action").asText()).isEqualTo("retrained");
    assertThat(r.get("segments_added").asInt()).isEqualTo(1);
    assertThat(r.get("segments_removed").asInt()).isEqualTo(1);
    assertThat(r.get("segments").asInt()).isEqualTo(1);
    assertThat(r.get("fragments_newly_covered").toString()).isEqualTo("[2,3]");
    assertThat(r.get("rows_newly_covered").asLong()).isEqualTo(600);
    assertThat(r.get("unindexed_fragments")).isEmpty();

    JsonNode info = json(CliData.run("info", ds, "--json"));
    assertThat(index(info, "vector_idx").get("partitions").asInt()).isEqualTo(3);
    assertThat(index(info, "vector_idx").get("unindexed_rows").asLong()).isZero();
    assertThat(index(info, "tenant_id_idx").get("unindexed_rows").asLong()).isEqualTo(600);
  }

  @Test
  void optimizeWithoutIndexes() {
    String ds = dataset(100, 100);
    CliData.Result r = CliData.run("optimize-indices", ds);
    assertThat(r.code()).isZero();
    assertThat(r.out()).contains("no indexes to optimize", "dataset is at version 1");
    assertThat(CliData.run("info", ds).out()).contains("indexes   (none)");
  }

  /**
   * The recall command on a cosine index names the ground truth's metric (the search's), measures a
   * grid with use_index=false in every scenario where it can run, reports the fast_search cell as
   * not measured, and always prints its JSON.
   */
  @Test
  void recallOnACosineIndexIsAgainstCosineExactSearchAndAlwaysPrintsJson() throws Exception {
    String ds = dataset(2000, 1000);
    assertThat(
            CliData.run(
                    "create-index",
                    ds,
                    "--column",
                    "vector",
                    "--type",
                    "IVF_HNSW_SQ",
                    "--metric",
                    "cosine",
                    "--num-partitions",
                    "4",
                    "--max-iterations",
                    "5")
                .code())
        .isZero();
    CliData.write(Path.of(ds), 2000, 300, WriteMode.APPEND, 1000);
    Path queries = dir.resolve("q.fvecs");
    float[][] q = new float[5][CliData.DIM];
    java.util.Random r = new java.util.Random(3);
    for (float[] v : q) {
      for (int d = 0; d < v.length; d++) {
        v[d] = (float) r.nextGaussian();
      }
    }
    dev.lancelot.engine.query.eval.QuerySets.writeFvecs(queries, q);
    JsonNode rows =
        json(
            CliData.run(
                "recall",
                ds,
                "--q-file",
                queries.toString(),
                "--k",
                "5",
                "--grid",
                "use_index=false,true",
                "--json"));
    java.util.Map<String, JsonNode> cells = new java.util.LinkedHashMap<>();
    rows.forEach(
        row -> cells.put(row.get("scenario").asText() + " | " + row.get("setting").asText(), row));
    assertThat(cells.get("no filter | use_index=false").get("recall").asDouble()).isEqualTo(1.0);
    // use_index=false naming no metric searches in l2, as Lance 7 does; the report says so.
    assertThat(cells.get("no filter | use_index=false").get("metric").asText()).isEqualTo("l2");
    assertThat(cells.get("no filter | use_index=true").get("metric").asText()).isEqualTo("cosine");
    assertThat(cells.get("unindexed data present | use_index=false").get("recall").asDouble())
        .isEqualTo(1.0);
    assertThat(cells.get("fast_search | use_index=false").get("note").asText())
        .contains("not measured")
        .contains("fast_search and use_index=false");
    assertThat(cells.get("fast_search | use_index=true").get("recall").asDouble())
        .isBetween(0.0, 1.0);

    CliData.Result table =
        CliData.run(
            "recall",
            ds,
            "--q-file",
            queries.toString(),
            "--k",
            "5",
            "--grid",
            "nprobes=2;metric=cosine,l2");
    assertThat(table.code()).as(table.err()).isZero();
    assertThat(table.out())
        .contains("against exact search in the metric each setting searches with")
        .contains("nprobes=2, metric=cosine")
        .contains("nprobes=2, metric=l2");
  }

  @Test
  void createsBitmapZoneMapBloomFilterAndNgramIndexesAndRebuildsThemOnOptimize() throws Exception {
    String ds = dataset(2000, 1000);
    CliData.Result bitmap =
        CliData.run("create-scalar-index", ds, "--column", "tenant_id", "--type", "bitmap");
    assertThat(bitmap.code()).as(bitmap.err()).isZero();
    assertThat(bitmap.out()).contains("created BITMAP index \"tenant_id_idx\" on tenant_id");
    JsonNode zones =
        json(
            CliData.run(
                "create-scalar-index",
                ds,
                "--column",
                "id",
                "--type",
                "zonemap",
                "--rows-per-zone",
                "300",
                "--json"));
    assertThat(zones.get("index").get("type").asText()).isEqualTo("ZONEMAP");
    assertThat(zones.get("index").get("indexed_rows").asLong()).isEqualTo(2000);
    JsonNode bloom =
        json(
            CliData.run(
                "create-scalar-index",
                ds,
                "--column",
                "name",
                "--type",
                "BLOOMFILTER",
                "--name",
                "name_bloom",
                "--items-per-zone",
                "250",
                "--probability",
                "0.01",
                "--json"));
    assertThat(bloom.get("index").get("type").asText()).isEqualTo("BLOOM_FILTER");

    CliData.Result ngram =
        CliData.run("create-scalar-index", ds, "--column", "name", "--type", "ngram");
    assertThat(ngram.code()).as(ngram.err()).isZero();
    assertThat(ngram.out()).contains("created NGRAM index \"name_idx\" on name");
    CliData.Result wrong =
        CliData.run("create-scalar-index", ds, "--column", "id", "--type", "inverted");
    assertThat(wrong.code()).isNotZero();
    assertThat(wrong.err()).contains("lancelot builds BTREE, BITMAP, ZONEMAP, BLOOM_FILTER");
    CliData.Result misplaced =
        CliData.run(
            "create-scalar-index",
            ds,
            "--column",
            "id",
            "--type",
            "bitmap",
            "--rows-per-zone",
            "9");
    assertThat(misplaced.code()).isNotZero();
    assertThat(misplaced.err()).contains("--rows-per-zone applies to --type zonemap only");

    CliData.write(Path.of(ds), 2000, 500, WriteMode.APPEND, 1000);
    CliData.Result r = CliData.run("optimize-indices", ds);
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out())
        .contains(
            "tenant_id_idx (BITMAP): rebuilt over all fragments",
            "id_idx (ZONEMAP): rebuilt over all fragments",
            "name_bloom (BLOOM_FILTER): rebuilt over all fragments",
            "name_idx (NGRAM): rebuilt over all fragments");
    JsonNode info = json(CliData.run("info", ds, "--json"));
    for (String name : new String[] {"tenant_id_idx", "id_idx", "name_bloom", "name_idx"}) {
      assertThat(index(info, name).get("unindexed_rows").asLong()).as(name).isZero();
    }
    try (dev.lancelot.engine.Dataset d = dev.lancelot.engine.Dataset.open(ds)) {
      assertThat(
              dev.lancelot.engine.distributed.ScalarIndexBuild.paramsOf(d, "id_idx").rowsPerZone())
          .isEqualTo(300);
      assertThat(d.newScan().filter("tenant_id = 3").indexUse().indexes())
          .containsExactly("tenant_id_idx");
    }
  }
}
