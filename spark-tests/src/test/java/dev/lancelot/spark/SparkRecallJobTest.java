package dev.lancelot.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.WriteMode;
import dev.lancelot.engine.WriteOptions;
import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.index.vector.VectorIndexSpec;
import dev.lancelot.engine.index.vector.VectorIndexes;
import dev.lancelot.engine.internal.scan.ScanSpec;
import dev.lancelot.engine.query.VectorQuery;
import dev.lancelot.engine.query.VectorSearch;
import dev.lancelot.engine.query.VectorSearchResult;
import dev.lancelot.engine.query.eval.QuerySets;
import dev.lancelot.engine.query.eval.RecallEvaluator;
import dev.lancelot.engine.query.eval.RecallRow;
import dev.lancelot.engine.testing.ArrowStreams;
import dev.lancelot.engine.testing.BruteForce;
import dev.lancelot.engine.testing.ClusteredData;
import dev.lancelot.engine.vector.DistanceMetric;
import dev.lancelot.spark.jobs.RecallJob;
import dev.lancelot.spark.recall.DistributedRecall;
import dev.lancelot.spark.recall.RecallResult;
import dev.lancelot.spark.recall.RecallRun;
import dev.lancelot.spark.recall.RecallSpec;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.imageio.ImageIO;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The distributed recall evaluation ({@link DistributedRecall}, {@link RecallJob}): its numbers are
 * the local {@link RecallEvaluator}'s and those of a brute force in the test, on a cosine index (so
 * the ground truth is ranked by the index's metric); ground truths are reused by key; the outputs
 * are complete; bad input fails with one message and writes nothing.
 */
class SparkRecallJobTest extends SharedSpark {
  static final int DIM = 16;
  static final int CLUSTERS = 12;
  static final String FILTER = "tenant_id < 10";
  static final String SELECTIVE = "tenant_id = 40";
  static final String GRID = "nprobes=1,4;refine_factor=1,2";
  static final ObjectMapper JSON = new ObjectMapper();
  static Path tmp;
  static Path dir;
  static long indexedVersion;
  static float[][] queries;

  @BeforeAll
  static void build() throws Exception {
    tmp = Files.createTempDirectory("spark-recall-job");
    dir = tmp.resolve("items");
    write(0, 2000, WriteMode.CREATE);
    try (Dataset ds = Dataset.open(dir.toString())) {
      VectorIndexes.create(
              ds,
              "vector",
              VectorIndexSpec.of(IndexType.IVF_PQ, DistanceMetric.COSINE)
                  .withNumPartitions(8)
                  .withNumSubVectors(4))
          .close();
    }
    try (Dataset ds = Dataset.open(dir.toString())) {
      indexedVersion = ds.version();
    }
    write(
        2000,
        300,
        WriteMode.APPEND); // unindexed rows: the unindexed and fast_search scenarios are measured
    queries = ClusteredData.queries(24, DIM, CLUSTERS, 8, 33);
  }

  static void write(long first, int rows, WriteMode mode) throws Exception {
    try (VectorSchemaRoot b = ClusteredData.generate(allocator, first, rows, DIM, CLUSTERS, 8);
        ArrowReader r = ArrowStreams.readerOf(allocator, List.of(b))) {
      Dataset.write(dir.toString(), r, WriteOptions.of(mode).withMaxRowsPerFile(1000)).close();
    }
  }

  /**
   * The vectors in a DataFrame, in two partitions (a round-robin repartition: not in their order).
   */
  static org.apache.spark.sql.Dataset<Row> queryFrame(float[][] vectors) {
    return queryFrameInOrder(vectors).repartition(2);
  }

  static org.apache.spark.sql.Dataset<Row> queryFrameInOrder(float[][] vectors) {
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < vectors.length; i++) {
      Float[] boxed = new Float[vectors[i].length];
      for (int d = 0; d < boxed.length; d++) {
        boxed[d] = vectors[i][d];
      }
      rows.add(RowFactory.create(500L + i, Arrays.asList(boxed)));
    }
    StructType schema =
        new StructType()
            .add("id", DataTypes.LongType)
            .add("embedding", DataTypes.createArrayType(DataTypes.FloatType));
    return spark.createDataFrame(rows, schema);
  }

  static RecallSpec.Builder spec() {
    return RecallSpec.builder(dir.toString()).queries(queryFrame(queries), "embedding").k(10);
  }

  @Test
  void recallIsTheLocalEvaluatorsAndABruteForcesOnACosineIndex() throws Exception {
    Path out = tmp.resolve("equal");
    RecallRun run =
        DistributedRecall.run(
            spark,
            spec()
                .grid(GRID)
                .filter(FILTER)
                .selectiveFilter(SELECTIVE)
                .out(out.toString())
                .build());
    List<RecallRow> local;
    try (Dataset ds = Dataset.open(dir.toString())) {
      local =
          RecallEvaluator.evaluate(
              ds,
              queries,
              new RecallEvaluator.Options("vector", 10, FILTER, SELECTIVE),
              RecallEvaluator.parseGrid(GRID));
    }
    assertThat(run.rows()).hasSameSizeAs(local);
    for (int i = 0; i < local.size(); i++) {
      RecallRow l = local.get(i);
      RecallResult d = run.rows().get(i);
      String what = d.scenario() + " " + d.params();
      assertThat(d.scenario()).isEqualTo(l.scenario());
      assertThat(d.params()).isEqualTo(l.setting());
      assertThat(d.note()).as(what).isEqualTo(l.note());
      assertThat(d.metric()).as(what).isEqualTo(l.metric());
      if (l.measured()) {
        assertThat(d.metric()).as("the index's metric ranks the ground truth").isEqualTo("cosine");
        assertThat(d.recall()).as(what).isCloseTo(l.recall(), within(1e-12));
        assertThat(d.rowsPerQuery()).as(what).isCloseTo(l.meanRows(), within(1e-12));
        assertThat(d.recallP5()).as(what).isLessThanOrEqualTo(d.recall());
        assertThat(d.p50Ms()).as(what).isPositive().isLessThanOrEqualTo(d.p99Ms());
        assertThat(d.distancesComputed()).as(what).isPositive();
      }
    }
    assertThat(run.rows())
        .filteredOn(RecallResult::measured)
        .extracting(RecallResult::scenario)
        .contains(
            "no filter",
            "prefilter",
            "highly selective prefilter",
            "unindexed data present",
            "fast_search");
    assertThat(run.rows())
        .filteredOn(RecallResult::measured)
        .extracting(RecallResult::recall)
        .as("an IVF_PQ index at nprobes=1 misses some neighbours")
        .anyMatch(r -> r < 1.0);

    // Independent brute force: plain cosine distances over every row, the engine's ANN answers.
    BruteForce brute = BruteForce.byRowId(dir.toString());
    for (RecallResult d : run.rows()) {
      if (!d.measured()
          || !(d.scenario().equals("no filter") || d.scenario().equals("prefilter"))) {
        continue;
      }
      String filter = d.scenario().equals("prefilter") ? FILTER : null;
      double sum = 0;
      try (Dataset ds = Dataset.open(dir.toString())) {
        for (float[] q : queries) {
          Set<Long> truth =
              brute.nearest(q, 10, "cosine", filter == null ? t -> true : t -> t < 10);
          VectorQuery.Builder ann =
              VectorQuery.builder("vector").vector(q).k(10).withRowId(true).columns(List.of());
          for (String p : d.params().split(", ")) {
            String[] kv = p.split("=");
            if (kv[0].equals("nprobes")) {
              ann.nprobes(Integer.parseInt(kv[1]));
            } else if (kv[0].equals("refine_factor") && !kv[1].equals("1")) {
              ann.refineFactor(Integer.parseInt(kv[1]));
            }
          }
          if (filter != null) {
            ann.filter(filter).prefilter(true);
          }
          sum += RecallEvaluator.recallOf(rowIds(ds, ann.build()), truth, 10);
        }
      }
      assertThat(d.recall())
          .as("brute force, " + d.scenario() + " " + d.params())
          .isCloseTo(sum / queries.length, within(1e-12));
    }
  }

  static Set<Long> rowIds(Dataset ds, VectorQuery q) {
    try (VectorSearchResult r = VectorSearch.search(ds, q)) {
      UInt8Vector ids = (UInt8Vector) r.rows().getVector(ScanSpec.ROW_ID);
      Set<Long> out = new HashSet<>();
      for (int i = 0; i < r.rowCount(); i++) {
        out.add(ids.get(i));
      }
      return out;
    }
  }

  @Test
  void groundTruthIsReusedByKeyAndRecomputedWhenTheKeyChanges() {
    String truth = tmp.resolve("truths").toString();
    RecallSpec first = spec().truth(truth).build();
    RecallRun a = DistributedRecall.run(spark, first);
    assertThat(a.truthsComputed()).hasSize(1);
    assertThat(a.truthsReused()).isEmpty();

    List<String> log = new ArrayList<>();
    RecallRun b = DistributedRecall.run(spark, first, log::add);
    assertThat(b.truthsReused()).isEqualTo(a.truthsComputed());
    assertThat(b.truthsComputed()).isEmpty();
    assertThat(log).anyMatch(l -> l.startsWith("reusing ground truth"));
    for (int i = 0; i < a.rows().size(); i++) {
      assertThat(b.rows().get(i).fields().get("recall"))
          .isEqualTo(a.rows().get(i).fields().get("recall"));
    }

    RecallRun otherK = DistributedRecall.run(spark, spec().truth(truth).k(5).build());
    assertThat(otherK.truthsComputed()).as("another k").hasSize(1);
    RecallRun withFilter = DistributedRecall.run(spark, spec().truth(truth).filter(FILTER).build());
    assertThat(withFilter.truthsReused()).as("no-filter truth again").isEqualTo(a.truthsComputed());
    assertThat(withFilter.truthsComputed()).as("the filter's truth").hasSize(1);
    RecallRun otherVersion =
        DistributedRecall.run(spark, spec().truth(truth).version(indexedVersion).build());
    assertThat(otherVersion.version()).isEqualTo(indexedVersion);
    assertThat(otherVersion.truthsComputed()).as("another version").hasSize(1);
    RecallRun fewerQueries =
        DistributedRecall.run(spark, spec().truth(truth).limitQueries(5).build());
    assertThat(fewerQueries.queries()).isEqualTo(5);
    assertThat(fewerQueries.truthsComputed()).as("other query vectors").hasSize(1);
  }

  /**
   * {@code CALL lance.system.recall} from SQL returns the rows of the same evaluation (and writes
   * the same outputs), with the queries from a temporary view or a dataset location; it reuses the
   * truth stored by the job; bad values are one message naming the procedure.
   */
  @Test
  void theRecallProcedureReturnsTheJobsRowsFromSql() throws Exception {
    String truth = tmp.resolve("procedure-truths").toString();
    RecallRun viaJava =
        DistributedRecall.run(
            spark,
            RecallSpec.builder(dir.toString())
                .queries(queryFrameInOrder(queries), "embedding")
                .k(10)
                .grid(GRID)
                .filter(FILTER)
                .truth(truth)
                .build());
    queryFrameInOrder(queries).createOrReplaceTempView("recall_queries");
    Path out = tmp.resolve("procedure-out");
    List<Row> rows =
        spark
            .sql(
                "CALL lance.system.recall(table => '"
                    + dir
                    + "', queries => 'recall_queries', "
                    + "query_column => 'embedding', k => 10, grid => '"
                    + GRID
                    + "', filter => '"
                    + FILTER
                    + "', truth => '"
                    + truth
                    + "', out => '"
                    + out
                    + "')")
            .collectAsList();
    assertThat(rows).hasSameSizeAs(viaJava.rows());
    for (int i = 0; i < rows.size(); i++) {
      Row r = rows.get(i);
      RecallResult expected = viaJava.rows().get(i);
      assertThat(r.getString(r.fieldIndex("scenario"))).isEqualTo(expected.scenario());
      assertThat(r.getString(r.fieldIndex("params"))).isEqualTo(expected.params());
      assertThat(r.getInt(r.fieldIndex("k"))).isEqualTo(10);
      Object recall = r.get(r.fieldIndex("recall"));
      assertThat(recall)
          .as(expected.scenario() + " " + expected.params())
          .isEqualTo(expected.fields().get("recall"));
      assertThat(r.get(r.fieldIndex("note"))).isEqualTo(expected.note());
    }
    assertThat(rows)
        .filteredOn(r -> r.getString(r.fieldIndex("scenario")).equals("no filter"))
        .allSatisfy(r -> assertThat(r.getString(r.fieldIndex("metric"))).isEqualTo("cosine"));
    assertThat(out.resolve("results.json")).isRegularFile();
    assertThat(out.resolve("report.html")).isRegularFile();
    assertThat(spark.read().format("lance").load(out.resolve("results.lance").toString()).count())
        .isEqualTo(rows.size());

    // Queries from a location, positional-free defaults (k 10, column vector, one setting of
    // defaults).
    Path fvecs = tmp.resolve("procedure-queries.fvecs");
    QuerySets.writeFvecs(fvecs, queries);
    List<Row> fromFile =
        spark
            .sql(
                "CALL lance.system.recall(table => '"
                    + dir
                    + "', queries => '"
                    + fvecs
                    + "', truth => '"
                    + truth
                    + "')")
            .collectAsList();
    assertThat(fromFile)
        .filteredOn(r -> r.getString(r.fieldIndex("scenario")).equals("no filter"))
        .singleElement()
        .satisfies(r -> assertThat(r.getString(r.fieldIndex("params"))).isEqualTo("defaults"));

    assertThatThrownBy(
            () ->
                spark
                    .sql(
                        "CALL lance.system.recall(table => '"
                            + dir
                            + "', queries => 'recall_queries',"
                            + " query_column => 'embedding', grid => 'nprobes=1;bogus=2')")
                    .collectAsList())
        .hasMessageContaining("Cannot run lance.system.recall")
        .hasMessageContaining("bogus");
    assertThatThrownBy(
            () ->
                spark
                    .sql(
                        "CALL lance.system.recall(table => '"
                            + dir
                            + "', queries => 'recall_queries',"
                            + " query_column => 'embedding', k => 0)")
                    .collectAsList())
        .hasMessageContaining("k must be at least 1");
    assertThatThrownBy(
            () ->
                spark
                    .sql(
                        "CALL lance.system.recall(table => '"
                            + dir
                            + "', queries => 'no_such_view')")
                    .collectAsList())
        .hasMessageContaining("Cannot run lance.system.recall");
  }

  /**
   * The same vectors from an .fvecs file share the DataFrame's ground truth (a query is its
   * position and vector); an empty grid is one setting of defaults.
   */
  @Test
  void anEmptyGridIsOneSettingOfDefaultsAndFvecsQueriesShareTheTruth() throws Exception {
    String truth = tmp.resolve("shared-truths").toString();
    RecallRun fromFrame =
        DistributedRecall.run(
            spark,
            RecallSpec.builder(dir.toString())
                .queries(queryFrameInOrder(queries), "embedding")
                .truth(truth)
                .build());
    Path fvecs = tmp.resolve("same-queries.fvecs");
    QuerySets.writeFvecs(fvecs, queries);
    Path out = tmp.resolve("empty-grid");
    ByteArrayOutputStream stdout = new ByteArrayOutputStream();
    int code =
        RecallJob.run(
            spark,
            new String[] {
              "--dataset",
              dir.toString(),
              "--queries",
              fvecs.toString(),
              "--grid",
              "",
              "--truth",
              truth,
              "--out",
              out.toString()
            },
            new PrintStream(stdout, true, StandardCharsets.UTF_8),
            System.err);
    assertThat(code).isZero();
    assertThat(stdout.toString(StandardCharsets.UTF_8))
        .contains("reusing ground truth " + fromFrame.truthsComputed().get(0))
        .doesNotContain("computing ground truth");
    List<Map<String, Object>> json =
        JSON.readValue(
            out.resolve("results.json").toFile(),
            new com.fasterxml.jackson.core.type.TypeReference<List<Map<String, Object>>>() {});
    assertThat(json)
        .filteredOn(r -> r.get("note") == null)
        .extracting(r -> r.get("params"))
        .containsOnly("defaults");
    assertThat(json)
        .filteredOn(r -> r.get("scenario").equals("no filter"))
        .singleElement()
        .satisfies(r -> assertThat(r.get("recall")).isEqualTo(fromFrame.rows().get(0).recall()));
    assertThat(out.resolve("truth")).as("--truth elsewhere").doesNotExist();
  }

  @Test
  void theJobWritesResultsJsonLanceAndAnHtmlReportWithValidPlots() throws Exception {
    Path fvecs = tmp.resolve("queries.fvecs");
    QuerySets.writeFvecs(fvecs, queries);
    Path out = tmp.resolve("job-out");
    ByteArrayOutputStream stdout = new ByteArrayOutputStream();
    ByteArrayOutputStream stderr = new ByteArrayOutputStream();
    int code =
        RecallJob.run(
            spark,
            new String[] {
              "--dataset",
              dir.toString(),
              "--queries",
              fvecs.toString(),
              "--k",
              "5,10",
              "--grid",
              "nprobes=1,4",
              "--filter",
              FILTER,
              "--limit-queries",
              "12",
              "--out",
              out.toString()
            },
            new PrintStream(stdout, true, StandardCharsets.UTF_8),
            new PrintStream(stderr, true, StandardCharsets.UTF_8));
    assertThat(code).as(stderr.toString(StandardCharsets.UTF_8)).isZero();
    assertThat(stdout.toString(StandardCharsets.UTF_8))
        .contains("computing ground truth")
        .contains("recall [1/");

    List<Map<String, Object>> json =
        JSON.readValue(
            out.resolve("results.json").toFile(),
            new com.fasterxml.jackson.core.type.TypeReference<List<Map<String, Object>>>() {});
    // per k: 2 settings in 4 scenarios, and the selective scenario not measured
    assertThat(json).hasSize(2 * (4 * 2 + 1));
    for (Map<String, Object> row : json) {
      assertThat(row.keySet())
          .containsExactlyInAnyOrder(
              "recall",
              "recall_p5",
              "rows_per_query",
              "p50_ms",
              "p99_ms",
              "partitions_probed",
              "distances_computed",
              "metric",
              "k",
              "params",
              "scenario",
              "note");
    }
    assertThat(json).extracting(r -> r.get("k")).containsOnly(5, 10);
    assertThat(json)
        .filteredOn(r -> r.get("note") == null)
        .allMatch(
            r ->
                r.get("metric").equals("cosine")
                    && ((Number) r.get("recall")).doubleValue() > 0
                    && ((Number) r.get("partitions_probed")).doubleValue() > 0);
    assertThat(json)
        .filteredOn(r -> r.get("note") != null)
        .extracting(r -> r.get("scenario"))
        .containsOnly("highly selective prefilter");

    List<Row> lance =
        spark
            .read()
            .format("lance")
            .load(out.resolve("results.lance").toString())
            .orderBy("k", "scenario", "params")
            .collectAsList();
    assertThat(lance).hasSize(json.size());
    assertThat(lance.get(0).schema().fieldNames())
        .containsExactly(
            "scenario",
            "params",
            "metric",
            "k",
            "recall",
            "recall_p5",
            "rows_per_query",
            "p50_ms",
            "p99_ms",
            "partitions_probed",
            "distances_computed",
            "note");

    String html = Files.readString(out.resolve("report.html"));
    Matcher img = Pattern.compile("<img src=\"([^\"]+)\"").matcher(html);
    List<String> images = new ArrayList<>();
    while (img.find()) {
      images.add(img.group(1));
    }
    assertThat(images).hasSize(2);
    for (String name : images) {
      Path png = out.resolve(name);
      byte[] bytes = Files.readAllBytes(png);
      assertThat(bytes.length).as(name).isGreaterThan(1000);
      assertThat(Arrays.copyOf(bytes, 8))
          .as("PNG magic of " + name)
          .isEqualTo(new byte[] {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'});
      var image = ImageIO.read(png.toFile());
      assertThat(image).as(name).isNotNull();
      assertThat(image.getWidth()).isEqualTo(900);
    }
    assertThat(html).contains("<table>").contains("prefilter").contains("nprobes=4");
  }

  @Test
  void helpPrintsTheUsage() {
    ByteArrayOutputStream stdout = new ByteArrayOutputStream();
    assertThat(
            RecallJob.run(
                spark, new String[] {"--help"}, new PrintStream(stdout, true), System.err))
        .isZero();
    assertThat(stdout.toString()).contains("--dataset <uri>").contains("--selective-filter");
  }

  @Test
  void badInputFailsWithOneMessageAndWritesNothing() throws Exception {
    Path fvecs = tmp.resolve("bad-queries.fvecs");
    QuerySets.writeFvecs(fvecs, queries);
    Path eightDims = tmp.resolve("eight.fvecs");
    QuerySets.writeFvecs(eightDims, new float[][] {new float[8], new float[8]});
    Path queryDataset = tmp.resolve("query-items");
    try (VectorSchemaRoot b = ClusteredData.generate(allocator, 0, 20, DIM, CLUSTERS, 9);
        ArrowReader r = ArrowStreams.readerOf(allocator, List.of(b))) {
      Dataset.write(queryDataset.toString(), r, WriteOptions.of(WriteMode.CREATE)).close();
    }
    String ds = dir.toString();
    Map<List<String>, String> cases = new java.util.LinkedHashMap<>();
    cases.put(
        List.of("--queries", tmp.resolve("missing.fvecs").toString()), "there is no query file at");
    cases.put(
        List.of("--queries", tmp.resolve("missing-dataset").toString()),
        "cannot read the query vectors at");
    cases.put(
        List.of("--queries", queryDataset.toString(), "--query-column", "embedding"),
        "have no column \"embedding\"");
    cases.put(
        List.of("--queries", queryDataset.toString(), "--query-column", "name"),
        "is string, not a vector");
    cases.put(
        List.of("--queries", eightDims.toString()), "have 8 dimensions but column \"vector\"");
    float[][] withNaN = {queries[0], queries[1].clone()};
    withNaN[1][3] = Float.NaN;
    Path nanQueries = tmp.resolve("nan.fvecs");
    QuerySets.writeFvecs(nanQueries, withNaN);
    cases.put(
        List.of("--queries", nanQueries.toString()),
        "query vector 1 (counting from 0) of " + nanQueries + " has a null, NaN or infinite value");
    cases.put(List.of("--queries", fvecs.toString(), "--grid", "nprobs=1,4"), "nprobs");
    cases.put(
        List.of("--queries", fvecs.toString(), "--grid", "nprobes="),
        "\"nprobes\" has an empty value");
    cases.put(
        List.of("--queries", fvecs.toString(), "--grid", "k=5"), "the evaluation sets it itself");
    cases.put(List.of("--queries", fvecs.toString(), "--filter", "tenant_id <"), "does not parse");
    cases.put(
        List.of("--queries", fvecs.toString(), "--selective-filter", "no_such = 1"),
        "does not apply");
    cases.put(List.of("--queries", fvecs.toString(), "--k", "0"), "of at least 1");
    cases.put(
        List.of("--queries", fvecs.toString(), "--column", "name"), "it is not a vector column");
    cases.put(
        List.of("--queries", fvecs.toString(), "--nprobes", "4"), "unknown argument \"--nprobes\"");
    int n = 0;
    for (Map.Entry<List<String>, String> c : cases.entrySet()) {
      Path out = tmp.resolve("bad-out-" + n++);
      List<String> args = new ArrayList<>(List.of("--dataset", ds, "--out", out.toString()));
      args.addAll(c.getKey());
      ByteArrayOutputStream stderr = new ByteArrayOutputStream();
      int code =
          RecallJob.run(
              spark,
              args.toArray(new String[0]),
              new PrintStream(new ByteArrayOutputStream()),
              new PrintStream(stderr, true, StandardCharsets.UTF_8));
      String message = stderr.toString(StandardCharsets.UTF_8);
      assertThat(code).as(c.getKey().toString()).isEqualTo(2);
      assertThat(message).as(c.getKey().toString()).contains(c.getValue());
      assertThat(message.strip().lines().count()).as("one message: " + message).isEqualTo(1);
      assertThat(out).as("nothing written for " + c.getKey()).doesNotExist();
    }
    ByteArrayOutputStream stderr = new ByteArrayOutputStream();
    assertThat(
            RecallJob.run(
                spark,
                new String[] {
                  "--dataset",
                  tmp.resolve("nothing").toString(),
                  "--queries",
                  fvecs.toString(),
                  "--out",
                  tmp.resolve("bad-out-x").toString()
                },
                new PrintStream(new ByteArrayOutputStream()),
                new PrintStream(stderr, true, StandardCharsets.UTF_8)))
        .isEqualTo(2);
    assertThat(stderr.toString(StandardCharsets.UTF_8)).contains("Cannot evaluate recall on");
    assertThat(tmp.resolve("bad-out-x")).doesNotExist();
  }
}
