package dev.lancelot.bench;

import static dev.lancelot.bench.VectorBenchData.log;
import static dev.lancelot.bench.VectorBenchData.ms;

import dev.lancelot.bench.VectorBenchData.Knobs;
import dev.lancelot.bench.VectorBenchData.Series;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.index.scalar.BTreeBuildParams;
import dev.lancelot.engine.index.scalar.BTreeIndexBuilder;
import dev.lancelot.engine.query.VectorSearch;
import dev.lancelot.engine.vector.DistanceMetric;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.lance.WriteParams;
import org.lance.index.IndexParams;
import org.lance.index.scalar.ScalarIndexParams;

/**
 * Issue 5: the vector query engine end to end, lancelot vs lance-core 7.0.0 in one JVM. Data: a
 * data set of {@link DataSets} ({@code --data}, default the 200,000 rows of {@code
 * synthetic-200k}); each engine, on its own byte-identical copy of the first 90% of the rows,
 * builds the vector index (as {@link VectorIndexBenchmark}, under the data set's metric) and a
 * BTree on {@code tenant_id}, then appends the last 10% with its own writer, so they are unindexed
 * and searched exactly. Measured, one query in flight at a time, interleaved query by query after
 * warm-up: ANN latency p50/p99 and recall@10 (against the exact top-10 over all 200,000 rows), flat
 * KNN ({@code use_index=false}), a prefiltered and a postfiltered {@code tenant_id = 42} query, and
 * batch throughput (lancelot: all query vectors in one call; Lance 7's Java API has no batch
 * nearest query, so its batch is a loop of single queries on one open dataset).
 *
 * <p>Usage: {@code QueryBenchmark <workdir> [queries=1000] [warmup=100] [flatQueries=50]
 * [types=ivf_pq,ivf_hnsw_sq] [--data <name>] [--unfair-allocator]}. Prepared copies are cached in
 * {@code <workdir>/e2e} (synthetic-200k) or {@code <workdir>/e2e-<data set>}.
 */
public final class QueryBenchmark {
  static final int ROWS = 200_000; // of synthetic-200k
  static final int INDEXED = 180_000;
  static final String FILTER = "tenant_id = 42";
  static final int BATCH = 100;

  public static void main(String[] argv) throws Exception {
    BenchArgs bench = BenchArgs.start("QueryBenchmark", argv, true);
    String[] args = bench.rest;
    Path work = Path.of(args.length > 0 ? args[0] : "/tmp/lancelot-vector-bench");
    int nq = args.length > 1 ? Integer.parseInt(args[1]) : 1000;
    int warmup = args.length > 2 ? Integer.parseInt(args[2]) : 100;
    int flatQueries = args.length > 3 ? Integer.parseInt(args[3]) : 50;
    List<String> types =
        Arrays.asList((args.length > 4 ? args[4] : "ivf_pq,ivf_hnsw_sq").split(","));
    List<String> report = new ArrayList<>();
    try (BufferAllocator allocator = new RootAllocator()) {
      VectorBenchData data = DataSets.load(work, bench.data, nq);
      int rows = data.rows;
      int indexed = data.indexedRows();
      System.out.printf(
          "QueryBenchmark: data set %s, %,d rows x float32[%d] %s (%,d indexed + %,d appended unindexed),"
              + " %d queries (%d warm-up), k=10; JVM %s, %d cores; %s%n",
          data.name,
          rows,
          data.dim,
          data.metric.lanceName(),
          indexed,
          rows - indexed,
          nq,
          warmup,
          System.getProperty("java.version"),
          Runtime.getRuntime().availableProcessors(),
          work);
      Path source = data.source(allocator, work, indexed);
      byte[] appended = data.ipc(allocator, indexed, rows);
      long[][] filteredTruth =
          data.exactTopK(data.queries, VectorBenchData.TRUTH_K, i -> data.tenants[i] == 42);
      long tenantRows = Arrays.stream(data.tenants).filter(t -> t == 42).count();
      boolean first = true;
      for (String type : types) {
        IndexType t = IndexType.parse(type);
        Path ours = work.resolve(data.workDir("e2e")).resolve(type).resolve("lancelot");
        Path lance = work.resolve(data.workDir("e2e")).resolve(type).resolve("lance");
        prepare(allocator, source, appended, t, data.metric, ours, lance);
        try (Dataset ods = Dataset.open(ours.toString());
            org.lance.Dataset lds = VectorBenchData.openLance(allocator, lance)) {
          if (ods.countRows() != rows || lds.countRows() != rows) {
            throw new IllegalStateException("prepared copies do not hold " + rows + " rows");
          }
          report.add("");
          report.add(
              String.format(
                  "### ANN end to end, %s, %s (%s) over %,d rows + %,d unindexed, %d queries, k=10",
                  data.name,
                  t,
                  VectorIndexBenchmark.describe(t, data.metric),
                  indexed,
                  rows - indexed,
                  nq));
          report.add("");
          report.add(
              "| parameters | recall lancelot | recall Lance 7 | Δ recall | p50 ms lancelot | p50 ms Lance 7 "
                  + "| p99 ms lancelot | p99 ms Lance 7 | load avg |");
          report.add("|---|---:|---:|---:|---:|---:|---:|---:|---|");
          log(
              "plan: "
                  + VectorSearch.explain(
                      ods,
                      VectorBenchData.ourQuery(Knobs.ann(4, null, null).metric(data.metric))
                          .vector(data.queries[0])
                          .build()));
          Knobs widest = Knobs.ann(t == IndexType.IVF_PQ ? 64 : 16, null, null).metric(data.metric);
          VectorBenchData.prewarm(
              data.queries,
              q -> VectorBenchData.ours(ods, q, widest),
              q -> VectorBenchData.lance(lds, q, widest));
          for (int nprobes :
              t == IndexType.IVF_PQ ? new int[] {1, 4, 16, 64} : new int[] {1, 4, 16}) {
            for (Integer refine : new Integer[] {null, 4}) {
              Knobs k = Knobs.ann(nprobes, refine, null).metric(data.metric);
              Series[] s =
                  VectorBenchData.sideBySide(
                      data.queries,
                      data.truth,
                      warmup,
                      q -> VectorBenchData.ours(ods, q, k),
                      q -> VectorBenchData.lance(lds, q, k));
              report.add(VectorIndexBenchmark.row(k.label(), s[0], s[1]));
              log(report.get(report.size() - 1));
            }
          }
          if (first) {
            first = false;
            flat(data, ods, lds, warmup, flatQueries, report);
          }
          filtered(data, filteredTruth, tenantRows, ods, lds, t, warmup, Math.min(nq, 200), report);
          batch(data, ods, lds, t, report);
        }
        System.out.println(String.join("\n", report));
      }
    }
    System.out.println();
    System.out.println("==== RESULTS ====");
    report.forEach(System.out::println);
  }

  /**
   * Builds (once, cached) each engine's copy: vector index + BTree on 180,000 rows, then the
   * append.
   */
  static void prepare(
      BufferAllocator allocator,
      Path source,
      byte[] appended,
      IndexType t,
      DistanceMetric metric,
      Path ours,
      Path lance)
      throws Exception {
    Path marker = ours.getParent().resolve("READY");
    if (Files.exists(marker)) {
      return;
    }
    VectorBenchData.copyTree(source, ours);
    VectorBenchData.copyTree(source, lance);
    long vo = VectorIndexBenchmark.buildOurs(ours, t, metric, null);
    long vl = VectorIndexBenchmark.buildLance(allocator, lance, t, metric);
    long t0 = System.nanoTime();
    try (Dataset ds = Dataset.open(ours.toString())) {
      BTreeIndexBuilder.build(ds, BTreeBuildParams.of("tenant_id")).close();
    }
    long bo = System.nanoTime() - t0;
    t0 = System.nanoTime();
    try (org.lance.Dataset ds = VectorBenchData.openLance(allocator, lance)) {
      ds.createIndex(
          List.of("tenant_id"),
          org.lance.index.IndexType.BTREE,
          Optional.of("tenant_id_idx"),
          IndexParams.builder().setScalarIndexParams(ScalarIndexParams.create("btree")).build(),
          true);
    }
    long bl = System.nanoTime() - t0;
    try (Dataset ds = Dataset.open(ours.toString());
        ArrowReader r = VectorBenchData.reader(allocator, appended)) {
      ds.append(r).close();
    }
    try (ArrowReader r = VectorBenchData.reader(allocator, appended)) {
      org.lance.Dataset.write()
          .allocator(allocator)
          .reader(r)
          .uri(lance.toString())
          .mode(WriteParams.WriteMode.APPEND)
          .execute()
          .close();
    }
    log(
        String.format(
            "prepared %s: vector index lancelot %.1f s / Lance %.1f s; BTree lancelot %.2f s / Lance %.2f s",
            t, vo / 1e9, vl / 1e9, bo / 1e9, bl / 1e9));
    Files.writeString(marker, "ok\n");
  }

  static void flat(
      VectorBenchData data,
      Dataset ods,
      org.lance.Dataset lds,
      int warmup,
      int n,
      List<String> report) {
    float[][] qs = Arrays.copyOf(data.queries, n);
    long[][] truth = Arrays.copyOf(data.truth, n);
    Knobs k = new Knobs(10, null, null, null, false, null, false, data.metric);
    Series[] s =
        VectorBenchData.sideBySide(
            qs,
            truth,
            Math.min(warmup, 10),
            q -> VectorBenchData.ours(ods, q, k),
            q -> VectorBenchData.lance(lds, q, k));
    report.add("");
    report.add(
        String.format(
            "### flat KNN (use_index=false), %s, over %,d rows, %d queries, k=10",
            data.name, data.rows, n));
    report.add("");
    report.add("| | lancelot | Lance 7 | ratio |");
    report.add("|---|---:|---:|---:|");
    report.add(String.format("| recall@10 | %.3f | %.3f | |", s[0].recall(), s[1].recall()));
    report.add(
        String.format(
            "| p50 ms | %s | %s | %.2f |",
            ms(s[0].percentileMs(0.5)),
            ms(s[1].percentileMs(0.5)),
            s[0].percentileMs(0.5) / s[1].percentileMs(0.5)));
    report.add(
        String.format(
            "| p99 ms | %s | %s | %.2f |",
            ms(s[0].percentileMs(0.99)),
            ms(s[1].percentileMs(0.99)),
            s[0].percentileMs(0.99) / s[1].percentileMs(0.99)));
    report.add(
        String.format(
            "| million vectors scanned / s (at p50) | %.1f | %.1f | %.2f |",
            data.rows / s[0].percentileMs(0.5) / 1e3,
            data.rows / s[1].percentileMs(0.5) / 1e3,
            s[1].percentileMs(0.5) / s[0].percentileMs(0.5)));
    report.add("| load avg | " + VectorBenchData.load() + " | | |");
    log("flat done");
  }

  static void filtered(
      VectorBenchData data,
      long[][] filteredTruth,
      long tenantRows,
      Dataset ods,
      org.lance.Dataset lds,
      IndexType t,
      int warmup,
      int n,
      List<String> report) {
    float[][] qs = Arrays.copyOf(data.queries, n);
    long[][] truth = Arrays.copyOf(filteredTruth, n);
    report.add("");
    report.add(
        String.format(
            "### filtered, %s, %s, `%s` (%d of %,d rows; BTree on tenant_id built before the append),"
                + " %d queries, k=10, recall against the exact filtered top-10",
            data.name, t, FILTER, tenantRows, data.rows, n));
    report.add("");
    report.add(
        "| mode | recall lancelot | recall Lance 7 | mean rows lancelot | mean rows Lance 7 | p50 ms lancelot "
            + "| p50 ms Lance 7 | p99 ms lancelot | p99 ms Lance 7 | load avg |");
    report.add("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|");
    int nprobes = t == IndexType.IVF_PQ ? 16 : 4;
    for (boolean prefilter : new boolean[] {true, false}) {
      Knobs k = new Knobs(10, nprobes, null, null, true, FILTER, prefilter, data.metric);
      if (prefilter) {
        log(
            "plan: "
                + VectorSearch.explain(ods, VectorBenchData.ourQuery(k).vector(qs[0]).build()));
      }
      Series[] s =
          VectorBenchData.sideBySide(
              qs,
              truth,
              qs.length, // one untimed pass over every query, as for ANN
              q -> VectorBenchData.ours(ods, q, k),
              q -> VectorBenchData.lance(lds, q, k));
      report.add(
          String.format(
              "| %s, nprobes=%d | %.3f | %.3f | %.1f | %.1f | %s | %s | %s | %s | %s |",
              prefilter ? "prefilter" : "postfilter",
              nprobes,
              s[0].recall(),
              s[1].recall(),
              (double) s[0].rowsSum / s[0].n,
              (double) s[1].rowsSum / s[1].n,
              ms(s[0].percentileMs(0.5)),
              ms(s[1].percentileMs(0.5)),
              ms(s[0].percentileMs(0.99)),
              ms(s[1].percentileMs(0.99)),
              VectorBenchData.load()));
      log(report.get(report.size() - 1));
    }
  }

  static void batch(
      VectorBenchData data, Dataset ods, org.lance.Dataset lds, IndexType t, List<String> report) {
    int nprobes = t == IndexType.IVF_PQ ? 16 : 4;
    Knobs k = Knobs.ann(nprobes, null, null).metric(data.metric);
    float[][] qs = Arrays.copyOf(data.queries, Math.min(BATCH, data.queries.length));
    int reps = 7;
    long[] ours = new long[reps];
    long[] lance = new long[reps];
    int oursRows = 0;
    int lanceRows = 0;
    for (int w = 0; w < 2; w++) {
      VectorBenchData.oursBatch(ods, qs, k);
      for (float[] q : qs) {
        VectorBenchData.lance(lds, q, k);
      }
    }
    for (int r = 0; r < reps; r++) {
      long t0 = System.nanoTime();
      oursRows = VectorBenchData.oursBatch(ods, qs, k);
      ours[r] = System.nanoTime() - t0;
      t0 = System.nanoTime();
      lanceRows = 0;
      for (float[] q : qs) {
        lanceRows += VectorBenchData.lance(lds, q, k).length;
      }
      lance[r] = System.nanoTime() - t0;
    }
    Arrays.sort(ours);
    Arrays.sort(lance);
    double o = ours[reps / 2] / 1e6;
    double l = lance[reps / 2] / 1e6;
    report.add("");
    report.add(
        "### batch, "
            + data.name
            + ", "
            + t
            + ", "
            + qs.length
            + " query vectors, nprobes="
            + nprobes
            + ", k=10 (median of "
            + reps
            + " after 2 warm-ups)");
    report.add("");
    report.add("| | lancelot (one call) | Lance 7 (loop of 100 nearest calls) | ratio |");
    report.add("|---|---:|---:|---:|");
    report.add(String.format("| time per batch (ms) | %s | %s | %.2f |", ms(o), ms(l), o / l));
    report.add(
        String.format(
            "| queries / s | %.0f | %.0f | %.2f |",
            qs.length * 1000 / o, qs.length * 1000 / l, l / o));
    report.add(String.format("| rows returned | %d | %d | |", oursRows, lanceRows));
    report.add("| load avg | " + VectorBenchData.load() + " | | |");
    log("batch done");
  }
}
