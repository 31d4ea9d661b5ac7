package dev.lancelot.bench;

import static dev.lancelot.bench.VectorBenchData.log;

import dev.lancelot.bench.VectorBenchData.Knobs;
import dev.lancelot.bench.VectorBenchData.Series;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.query.VectorSearch;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.lance.WriteParams;
import org.lance.index.DistanceType;
import org.lance.index.IndexParams;
import org.lance.index.vector.IvfBuildParams;
import org.lance.index.vector.RQBuildParams;
import org.lance.index.vector.VectorIndexParams;

/**
 * IVF_RQ search, lancelot against lance-core 7 on one and the same table: lance-core builds an
 * IVF_RQ index (256 partitions, 1 bit) over the first 90% of the rows and appends the rest
 * unindexed; then both engines answer the same queries on that directory, interleaved query by
 * query, at several nprobes with and without refine (recall@10 against the exact top 10 over all
 * rows, p50 and p99 latency).
 *
 * <p>Usage: {@code RqSearchBenchmark <workdir> [queries=200] [warmup=20] [--data <name>]}. The
 * prepared table is cached in {@code <workdir>/<data set>-ivf_rq}.
 */
public final class RqSearchBenchmark {
  private RqSearchBenchmark() {}

  public static void main(String[] argv) throws Exception {
    BenchArgs bench = BenchArgs.start("RqSearchBenchmark", argv, true);
    String[] args = bench.rest;
    Path work = Path.of(args.length > 0 ? args[0] : "/tmp/lancelot-vector-bench");
    int nq = args.length > 1 ? Integer.parseInt(args[1]) : 200;
    int warmup = args.length > 2 ? Integer.parseInt(args[2]) : 20;
    List<String> report = new ArrayList<>();
    try (BufferAllocator allocator = new RootAllocator()) {
      VectorBenchData data = DataSets.load(work, bench.data, nq);
      int indexed = data.indexedRows();
      Path table = work.resolve(data.name + "-ivf_rq");
      prepare(allocator, data, work, indexed, table);
      try (Dataset ods = Dataset.open(table.toString());
          org.lance.Dataset lds = VectorBenchData.openLance(allocator, table)) {
        if (ods.countRows() != data.rows || lds.countRows() != data.rows) {
          throw new IllegalStateException("the table does not hold " + data.rows + " rows");
        }
        log(
            "plan: "
                + VectorSearch.explain(
                    ods,
                    VectorBenchData.ourQuery(Knobs.ann(4, null, null).metric(data.metric))
                        .vector(data.queries[0])
                        .build()));
        Knobs widest = Knobs.ann(64, null, null).metric(data.metric);
        VectorBenchData.prewarm(
            data.queries,
            q -> VectorBenchData.ours(ods, q, widest),
            q -> VectorBenchData.lance(lds, q, widest));
        report.add(
            String.format(
                "### IVF_RQ (256 partitions, 1 bit, built by lance-core), %s: %,d rows indexed +"
                    + " %,d unindexed, %d queries (%d warm-up), k=10",
                data.name, indexed, data.rows - indexed, data.queries.length, warmup));
        report.add("");
        report.add(
            "| parameters | recall lancelot | recall Lance 7 | Δ recall | p50 ms lancelot | p50 ms"
                + " Lance 7 | p99 ms lancelot | p99 ms Lance 7 | load avg |");
        report.add("|---|---:|---:|---:|---:|---:|---:|---:|---|");
        for (int nprobes : new int[] {1, 4, 16, 64}) {
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
      }
    }
    System.out.println();
    System.out.println("==== RESULTS ====");
    report.forEach(System.out::println);
  }

  /** lance-core builds the index over the first {@code indexed} rows, then appends the rest. */
  private static void prepare(
      BufferAllocator allocator, VectorBenchData data, Path work, int indexed, Path table)
      throws Exception {
    Path marker = table.resolveSibling(table.getFileName() + ".READY");
    if (Files.exists(marker)) {
      return;
    }
    VectorBenchData.deleteTree(table);
    VectorBenchData.copyTree(data.source(allocator, work, indexed), table);
    DistanceType distance = DistanceType.valueOf(VectorBenchData.lanceDistance(data.metric));
    IvfBuildParams ivf = new IvfBuildParams.Builder().setNumPartitions(256).build();
    RQBuildParams rq = new RQBuildParams.Builder().setNumBits((byte) 1).build();
    long t0 = System.nanoTime();
    try (org.lance.Dataset ds = VectorBenchData.openLance(allocator, table)) {
      ds.createIndex(
          List.of("vector"),
          org.lance.index.IndexType.IVF_RQ,
          Optional.of("vector_idx"),
          IndexParams.builder()
              .setVectorIndexParams(VectorIndexParams.withIvfRqParams(distance, ivf, rq))
              .build(),
          true);
    }
    log(String.format("Lance built IVF_RQ in %.1f s", (System.nanoTime() - t0) / 1e9));
    try (ArrowReader r =
        VectorBenchData.reader(allocator, data.ipc(allocator, indexed, data.rows))) {
      org.lance.Dataset.write()
          .allocator(allocator)
          .reader(r)
          .uri(table.toString())
          .mode(WriteParams.WriteMode.APPEND)
          .execute()
          .close();
    }
    Files.writeString(marker, "ready\n");
  }
}
