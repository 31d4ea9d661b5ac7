package dev.lancelot.bench;

import static dev.lancelot.bench.VectorBenchData.log;
import static dev.lancelot.bench.VectorBenchData.ms;

import dev.lancelot.bench.VectorBenchData.Knobs;
import dev.lancelot.bench.VectorBenchData.Series;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.query.VectorQuery;
import dev.lancelot.spark.LanceSparkExtensions;
import dev.lancelot.spark.search.LanceVectorSearch;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Single vector queries through Spark (SPEC S3/S4) next to the engine alone and next to a trivial
 * Spark job in the same session, on a data set of {@link DataSets} ({@code --data}, default the
 * 200,000 × 128 {@code synthetic-200k}; IVF_PQ over the first 90% of the rows, the rest appended
 * unindexed): p50/p99 of {@code LanceVectorSearch.search(...).collectAsList()}, of the SQL function
 * {@code lance_vector_search}, of {@code VectorSearch.search} in the driver JVM and of {@code
 * spark.range(1).collectAsList()}. The four are interleaved query by query, after a warm-up, so
 * that they see the same machine. Every Spark answer is checked against the engine's (same ids in
 * the same order), and recall@10 against the exact answer is reported.
 *
 * <p>Usage: {@code SparkSearchBenchmark <workdir> [queries=50] [warmup=20] [nprobes=16] [refine=4]
 * [master=local[2]] [--data <name>] [--unfair-allocator]}. lance-core writes the source copy of the
 * data, so the allocator is checked as in the other benchmarks.
 */
public final class SparkSearchBenchmark {
  public static void main(String[] argv) throws Exception {
    BenchArgs bench = BenchArgs.start("SparkSearchBenchmark", argv, true);
    String[] args = bench.rest;
    Path work = Path.of(args.length > 0 ? args[0] : "/tmp/lancelot-vector-bench");
    int n = args.length > 1 ? Integer.parseInt(args[1]) : 50;
    int warmup = args.length > 2 ? Integer.parseInt(args[2]) : 20;
    int nprobes = args.length > 3 ? Integer.parseInt(args[3]) : 16;
    int refine = args.length > 4 ? Integer.parseInt(args[4]) : 4;
    String master = args.length > 5 ? args[5] : "local[2]";
    Path dir;
    VectorBenchData data;
    try (BufferAllocator allocator = new RootAllocator()) {
      data = DataSets.load(work, bench.data, n + warmup);
      dir = prepare(allocator, data, work);
    }
    Knobs knobs = Knobs.ann(nprobes, refine, null).metric(data.metric);
    SparkSession spark =
        SparkSession.builder()
            .master(master)
            .appName("spark-search-benchmark")
            .config("spark.ui.enabled", "false")
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.driver.bindAddress", "127.0.0.1")
            .config("spark.sql.extensions", LanceSparkExtensions.class.getName())
            .getOrCreate();
    spark.sparkContext().setLogLevel("WARN");
    String load = VectorBenchData.load();
    Series trivial = new Series(n);
    Series engine = new Series(n);
    Series dataFrame = new Series(n);
    Series sql = new Series(n);
    Series sqlParameter = new Series(n);
    Series sqlAnalysis = new Series(n);
    Series analysis = new Series(n);
    Series job = new Series(n);
    Series slowestTask = new Series(n);
    JobClock clock = new JobClock();
    spark.sparkContext().addSparkListener(clock);
    try (Dataset ds = Dataset.open(dir.toString())) {
      for (int i = 0; i < n + warmup; i++) {
        float[] q = data.queries[i];
        boolean measured = i >= warmup;
        long t0 = System.nanoTime();
        spark.range(1).collectAsList();
        long t1 = System.nanoTime();
        long[] local = VectorBenchData.ours(ds, q, knobs);
        long t2 = System.nanoTime();
        VectorQuery query = VectorBenchData.ourQuery(knobs).vector(q).build();
        org.apache.spark.sql.Dataset<Row> frame =
            LanceVectorSearch.search(spark, dir.toString(), query);
        long t2a = System.nanoTime();
        clock.reset();
        List<Row> viaDataFrame = frame.collectAsList();
        long t3 = System.nanoTime();
        spark.sparkContext().listenerBus().waitUntilEmpty();
        long[] jobTimes = clock.read();
        List<Row> viaSql = spark.sql(sql(dir, q, nprobes, refine)).collectAsList();
        long t4 = System.nanoTime();
        org.apache.spark.sql.Dataset<Row> parameterFrame =
            spark.sql(sqlWithParameter(dir, nprobes, refine), java.util.Map.of("q", q));
        long t4a = System.nanoTime();
        List<Row> viaSqlParameter = parameterFrame.collectAsList();
        long t5 = System.nanoTime();
        check(local, viaDataFrame, "DataFrame", i);
        check(local, viaSql, "SQL", i);
        check(local, viaSqlParameter, "SQL with a parameter", i);
        if (measured) {
          double recall = VectorBenchData.recall(local, data.truth[i]);
          trivial.add(t1 - t0, 0, 1);
          engine.add(t2 - t1, recall, local.length);
          dataFrame.add(t3 - t2, recall, viaDataFrame.size());
          sql.add(t4 - t3, recall, viaSql.size());
          sqlParameter.add(t5 - t4, recall, viaSqlParameter.size());
          sqlAnalysis.add(t4a - t4, 0, 1);
          analysis.add(t2a - t2, 0, 1);
          job.add(jobTimes[0], 0, 1);
          slowestTask.add(jobTimes[1], 0, 1);
        }
      }
    } finally {
      spark.stop();
    }
    String loadAfter = VectorBenchData.load();
    List<String> report = new ArrayList<>();
    report.add(
        "### Single query through Spark, "
            + data.name
            + ", "
            + master
            + ", IVF_PQ "
            + knobs.label()
            + ", k=10, "
            + n
            + " queries after "
            + warmup
            + " warm-up (load "
            + load
            + " → "
            + loadAfter
            + ")");
    report.add("");
    report.add("| path | p50 ms | p99 ms | recall@10 |");
    report.add("|---|---:|---:|---:|");
    report.add(row("trivial Spark job (spark.range(1).collect)", trivial, false));
    report.add(row("engine alone (VectorSearch.search, driver JVM)", engine, true));
    report.add(row("LanceVectorSearch.search(...).collectAsList()", dataFrame, true));
    report.add(
        row("SQL lance_vector_search(...), the vector as " + data.dim + " literals", sql, true));
    report.add(
        row(
            "SQL lance_vector_search(..., q => :q), the vector bound as a parameter",
            sqlParameter,
            true));
    report.add("");
    report.add(
        "Where the DataFrame search's time goes (p50 ms): building the DataFrame (planning the search) "
            + ms(analysis.percentileMs(0.5))
            + "; its job, submission to end as the listener sees it, "
            + ms(job.percentileMs(0.5))
            + "; the slowest task's run time "
            + ms(slowestTask.percentileMs(0.5))
            + ". SQL with a parameter: parsing and analysing the statement (spark.sql, planning the search included) "
            + ms(sqlAnalysis.percentileMs(0.5))
            + ".");
    report.add("");
    report.add(
        String.format(
            "p50 / trivial job p50: DataFrame %.2f; SQL with literals %.2f; SQL with a parameter %.2f",
            dataFrame.percentileMs(0.5) / trivial.percentileMs(0.5),
            sql.percentileMs(0.5) / trivial.percentileMs(0.5),
            sqlParameter.percentileMs(0.5) / trivial.percentileMs(0.5)));
    System.out.println();
    System.out.println("==== RESULTS ====");
    report.forEach(System.out::println);
  }

  /**
   * Wall time of the last job (submission to end) and the longest executor run time of its tasks,
   * in ns.
   */
  static final class JobClock extends org.apache.spark.scheduler.SparkListener {
    private volatile long start;
    private volatile long end;
    private volatile long slowest;

    void reset() {
      start = 0;
      end = 0;
      slowest = 0;
    }

    long[] read() {
      return new long[] {(end - start) * 1_000_000L, slowest * 1_000_000L};
    }

    @Override
    public void onJobStart(org.apache.spark.scheduler.SparkListenerJobStart e) {
      start = e.time();
    }

    @Override
    public void onJobEnd(org.apache.spark.scheduler.SparkListenerJobEnd e) {
      end = e.time();
    }

    @Override
    public void onTaskEnd(org.apache.spark.scheduler.SparkListenerTaskEnd e) {
      if (e.taskInfo() != null) {
        slowest = Math.max(slowest, e.taskInfo().duration());
      }
    }
  }

  static String row(String label, Series s, boolean recall) {
    return "| "
        + label
        + " | "
        + ms(s.percentileMs(0.5))
        + " | "
        + ms(s.percentileMs(0.99))
        + " | "
        + (recall ? String.format("%.3f", s.recall()) : "")
        + " |";
  }

  static void check(long[] expected, List<Row> got, String path, int query) {
    long[] ids = got.stream().mapToLong(r -> r.getLong(r.fieldIndex("id"))).toArray();
    if (!java.util.Arrays.equals(expected, ids)) {
      throw new IllegalStateException(
          path
              + " answer of query "
              + query
              + " differs from the engine's: "
              + java.util.Arrays.toString(ids)
              + " vs "
              + java.util.Arrays.toString(expected));
    }
  }

  static String sql(Path dir, float[] q, int nprobes, int refine) {
    StringBuilder sb =
        new StringBuilder("SELECT id, _distance FROM lance_vector_search('")
            .append(dir)
            .append("', column => 'vector', q => array(");
    for (int i = 0; i < q.length; i++) {
      sb.append(i == 0 ? "" : ", ").append("CAST(").append(q[i]).append(" AS FLOAT)");
    }
    return sb.append("), k => 10, nprobes => ")
        .append(nprobes)
        .append(", refine_factor => ")
        .append(refine)
        .append(", columns => array('id'))")
        .toString();
  }

  static String sqlWithParameter(Path dir, int nprobes, int refine) {
    return "SELECT id, _distance FROM lance_vector_search('"
        + dir
        + "', column => 'vector', q => :q, k => 10, "
        + "nprobes => "
        + nprobes
        + ", refine_factor => "
        + refine
        + ", columns => array('id'))";
  }

  /**
   * lancelot's copy only (cached): IVF_PQ over the first 90% of the rows, then the rest appended
   * unindexed.
   */
  static Path prepare(BufferAllocator allocator, VectorBenchData data, Path work) throws Exception {
    Path dir = work.resolve(data.workDir("spark-search")).resolve("ivf_pq");
    Path marker = dir.getParent().resolve("READY");
    if (Files.exists(marker)) {
      return dir;
    }
    VectorBenchData.deleteTree(dir);
    VectorBenchData.copyTree(data.source(allocator, work, data.indexedRows()), dir);
    long build = VectorIndexBenchmark.buildOurs(dir, IndexType.IVF_PQ, data.metric, null);
    try (Dataset ds = Dataset.open(dir.toString());
        ArrowReader r =
            VectorBenchData.reader(allocator, data.ipc(allocator, data.indexedRows(), data.rows))) {
      ds.append(r).close();
    }
    log(
        String.format(
            "prepared %s: IVF_PQ built in %.1f s, %,d rows appended",
            dir, build / 1e9, data.rows - data.indexedRows()));
    Files.writeString(marker, "ok\n");
    return dir;
  }
}
