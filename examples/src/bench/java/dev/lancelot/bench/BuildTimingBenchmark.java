package dev.lancelot.bench;

import static dev.lancelot.bench.VectorBenchData.log;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.index.scalar.BTreeBuildParams;
import dev.lancelot.engine.index.scalar.BTreeIndexBuilder;
import dev.lancelot.engine.vector.DistanceMetric;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.lance.index.IndexParams;
import org.lance.index.scalar.ScalarIndexParams;
import org.slf4j.LoggerFactory;

/**
 * Index build time over repeated builds, lancelot vs lance-core 7.0.0 in one JVM. One build per
 * engine does not settle a close cell: build times move from run to run, and the first build in a
 * JVM also pays for class loading, static initialisation and interpreted code, which a long-lived
 * Spark executor pays once. This job builds the index {@code builds} times per engine, the engines
 * interleaved (lancelot, Lance, lancelot, Lance, ...), each build on its own fresh byte-identical
 * copy of all rows of a data set of {@link DataSets} ({@code --data}, default {@code
 * synthetic-200k}; copying is not timed). Nothing is collected between builds: a forced full
 * collection shrinks the heap, and the next lancelot build would pay for growing it again, while a
 * build that collects garbage of the ones before it is what a long-lived JVM does. Each build is
 * timed wall-clock, from opening the dataset to closing it after the commit, and reported; then,
 * per engine, the first build ("first build in a fresh JVM") and the statistics of the other builds
 * (steady state: mean ± sd, median, min–max) with the ratio of the medians (lancelot / Lance).
 *
 * <p>Index kinds ({@code type}): {@code btree} on {@code tenant_id}, Lance's default page size;
 * {@code ivf_pq} and {@code ivf_hnsw_sq} on {@code vector} with the parameters of {@link
 * QueryBenchmark} and {@link VectorIndexBenchmark} (lancelot at its default seed, Lance unseeded).
 * {@code engines} is the order of the builds: {@code lancelot,lance} (or {@code both}, the
 * default), {@code lance,lancelot} (Lance builds first), or one engine alone ({@code lancelot},
 * {@code lance}), e.g. to profile its first build without the other's code in the JVM. Before the
 * first build the job initialises what both engines take from shared libraries (Arrow's schema
 * classes with their Jackson mapper, SLF4J logging), so neither engine's first build pays for the
 * other's; what only one engine uses (lancelot: Hadoop's file system, protobuf; Lance: its native
 * library) stays in that engine's first build.
 *
 * <p>The first builds are from a fresh JVM only when the data set and its source copy ({@code
 * <workdir>/data-<name>/source-<rows>}) were prepared by an earlier run: preparing them uses both
 * engines, and a run that had to do it says so in its output.
 *
 * <p>Usage: {@code BuildTimingBenchmark <workdir> [builds=5] [type=btree] [engines=lancelot,lance]
 * [--data <name>] [--unfair-allocator]}, e.g. through the bench profile: {@code mvn -B -ntp -o
 * -DskipTests -Pbench verify -pl examples -am -Dbench.main=dev.lancelot.bench.BuildTimingBenchmark
 * -Dbench.args="/tmp/lancelot-vector-bench 11 btree --data structured-1m"}.
 */
public final class BuildTimingBenchmark {
  static final String BTREE = "btree";
  static final String BTREE_COLUMN = "tenant_id";

  private enum Engine {
    LANCELOT("lancelot"),
    LANCE("Lance 7");

    final String label;

    Engine(String label) {
      this.label = label;
    }
  }

  public static void main(String[] argv) throws Exception {
    BenchArgs bench = BenchArgs.start("BuildTimingBenchmark", argv, true);
    String[] args = bench.rest;
    Path work = Path.of(args.length > 0 ? args[0] : "/tmp/lancelot-vector-bench");
    int builds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    String type = (args.length > 2 ? args[2] : BTREE).toLowerCase(Locale.ROOT);
    String engines = (args.length > 3 ? args[3] : "both").toLowerCase(Locale.ROOT);
    if (builds < 1) {
      throw new IllegalArgumentException(
          "Cannot run BuildTimingBenchmark: builds must be at least 1, got " + builds);
    }
    IndexType vectorType = type.equals(BTREE) ? null : IndexType.parse(type);
    if (vectorType != null
        && vectorType != IndexType.IVF_PQ
        && vectorType != IndexType.IVF_HNSW_SQ) {
      throw new IllegalArgumentException(
          "Cannot run BuildTimingBenchmark: index type "
              + type
              + " is not timed here (btree, ivf_pq or ivf_hnsw_sq)");
    }
    // The order of the builds; the report shows lancelot's column first whatever the order.
    List<Engine> order =
        switch (engines) {
          case "both", "lancelot,lance" -> List.of(Engine.LANCELOT, Engine.LANCE);
          case "lance,lancelot" -> List.of(Engine.LANCE, Engine.LANCELOT);
          case "lancelot" -> List.of(Engine.LANCELOT);
          case "lance" -> List.of(Engine.LANCE);
          default ->
              throw new IllegalArgumentException(
                  "Cannot run BuildTimingBenchmark: engines must be lancelot,lance (or both),"
                      + " lance,lancelot, lancelot or lance, got "
                      + engines);
        };
    List<Engine> shown = order.stream().sorted().toList();
    boolean seconds = vectorType != null; // BTree builds take well under a second
    String unit = seconds ? "s" : "ms";
    long[][] ns = new long[Engine.values().length][builds];
    String[][] loads = new String[Engine.values().length][builds];
    boolean prepared;
    String name;
    int rows;
    DistanceMetric metric;
    String loadStart;
    String loadEnd;
    try (BufferAllocator allocator = new RootAllocator()) {
      // Preparing the data set or its source copy runs both engines' readers and writers: only
      // a run that finds them cached times first builds in a fresh JVM.
      Map.Entry<String, Integer> ready = DataSets.generated(work, bench.data);
      Path source = null;
      metric = null;
      if (ready != null) {
        BenchArgs.relabel(ready.getKey());
        source =
            work.resolve(VectorBenchData.workDir(ready.getKey(), "data"))
                .resolve("source-" + ready.getValue());
        if (!java.nio.file.Files.exists(source.resolve("_versions"))) {
          source = null;
        } else if (vectorType != null) {
          metric =
              ready.getKey().equals(VectorBenchData.SYNTHETIC)
                  ? DistanceMetric.L2
                  : DistanceMetric.parse(
                      DataSets.readManifest(work.resolve(ready.getKey())).get("metric"));
        }
      }
      prepared = source == null;
      if (prepared) {
        VectorBenchData data = DataSets.load(work, bench.data, 0);
        source = data.source(allocator, work, data.rows);
        name = data.name;
        rows = data.rows;
        metric = data.metric;
      } else {
        name = ready.getKey();
        rows = ready.getValue();
      }
      System.out.printf(
          "BuildTimingBenchmark: data set %s, %,d rows, %s, %d builds per engine (%s), interleaved;"
              + " JVM %s, %d cores, max heap %d MiB; %s%n",
          name,
          rows,
          vectorType == null
              ? "BTree on " + BTREE_COLUMN
              : vectorType + " (" + VectorIndexBenchmark.describe(vectorType, metric) + ")",
          builds,
          engines,
          System.getProperty("java.version"),
          Runtime.getRuntime().availableProcessors(),
          Runtime.getRuntime().maxMemory() >> 20,
          work);
      if (prepared) {
        log(
            "this run prepared the source copy "
                + source
                + " with both engines, so its first builds are NOT from a fresh JVM; run it again"
                + " for first-build figures");
      }
      initialiseShared(allocator);
      Path base = work.resolve(VectorBenchData.workDir(name, "buildtime")).resolve(type);
      loadStart = VectorBenchData.load();
      for (int b = 0; b < builds; b++) {
        for (Engine e : order) {
          Path dir = base.resolve(e == Engine.LANCELOT ? "lancelot" : "lance");
          VectorBenchData.copyTree(source, dir);
          loads[e.ordinal()][b] = VectorBenchData.load();
          ns[e.ordinal()][b] = build(allocator, e, dir, vectorType, metric);
          log(
              String.format(
                  "build %d, %s: %s %s",
                  b + 1, e.label, format(ns[e.ordinal()][b], seconds), unit));
        }
        // Checked with lancelot once every engine has built this round, so the check never runs
        // lancelot's code before lancelot's first build.
        for (Engine e : order) {
          check(base.resolve(e == Engine.LANCELOT ? "lancelot" : "lance"), vectorType);
        }
      }
      loadEnd = VectorBenchData.load();
    }
    List<String> report = new ArrayList<>();
    report.add(
        String.format(
            "### build time, %s, %s, %,d rows, %d builds per engine, %s%s",
            vectorType == null
                ? "BTree on " + BTREE_COLUMN
                : vectorType + " (" + VectorIndexBenchmark.describe(vectorType, metric) + ")",
            name,
            rows,
            builds,
            order.size() == 2 ? "interleaved, " + order.get(0).label + " first" : "one engine only",
            prepared ? " (first builds NOT from a fresh JVM: this run prepared the source)" : ""));
    report.add("");
    StringBuilder head = new StringBuilder("| build |");
    StringBuilder rule = new StringBuilder("|---:|");
    for (Engine e : shown) {
      head.append(' ').append(e.label).append(" (").append(unit).append(") | load before |");
      rule.append("---:|---|");
    }
    report.add(head.toString());
    report.add(rule.toString());
    for (int b = 0; b < builds; b++) {
      StringBuilder row = new StringBuilder("| " + (b + 1) + (b == 0 ? " (first)" : "") + " |");
      for (Engine e : shown) {
        row.append(' ')
            .append(format(ns[e.ordinal()][b], seconds))
            .append(" | ")
            .append(loads[e.ordinal()][b])
            .append(" |");
      }
      report.add(row.toString());
    }
    report.add("");
    report.add(
        "| "
            + unit
            + " | "
            + String.join(" | ", shown.stream().map(e -> e.label).toList())
            + (shown.size() == 2 ? " | lancelot / Lance |" : " |"));
    report.add(shown.size() == 2 ? "|---|---:|---:|---:|" : "|---|---:|");
    double[][] first = new double[shown.size()][];
    double[][] steady = new double[shown.size()][];
    for (int i = 0; i < shown.size(); i++) {
      double[] all = Arrays.stream(ns[shown.get(i).ordinal()]).mapToDouble(x -> x).toArray();
      first[i] = Arrays.copyOf(all, 1);
      steady[i] = Arrays.copyOfRange(all, 1, all.length);
    }
    report.add(
        statRow(
            "first build in a fresh JVM" + (prepared ? " (NOT fresh here)" : ""),
            first,
            v -> v[0],
            seconds));
    if (builds < 2) {
      report.add("| steady state | needs builds ≥ 2 | |" + (shown.size() == 2 ? " |" : ""));
    } else {
      String s = "steady state (" + (builds == 2 ? "build 2" : "builds 2–" + builds) + "): ";
      report.add(meanRow(s + "mean ± sd", steady, seconds));
      report.add(statRow(s + "median", steady, BuildTimingBenchmark::median, seconds));
      report.add(rangeRow(s + "min–max", steady, seconds));
    }
    report.add(
        "| load average (1/5/15 min) at start → end | "
            + loadStart
            + " → "
            + loadEnd
            + " |"
            + (shown.size() == 2 ? " | |" : ""));
    System.out.println();
    System.out.println("==== RESULTS ====");
    report.forEach(System.out::println);
  }

  /**
   * Initialises what both engines take from shared libraries, so that neither engine's first build
   * pays for the other's: Arrow's schema classes (building a {@link Schema} first builds Arrow's
   * Jackson mapper, about a third of a second in a cold JVM), a vector root, and SLF4J logging.
   */
  private static void initialiseShared(BufferAllocator allocator) {
    Schema schema =
        new Schema(
            List.of(
                Field.nullable("id", new ArrowType.Int(64, true)),
                Field.nullable("tenant_id", new ArrowType.Int(32, true))));
    if (schema.toJson().isEmpty()) {
      throw new IllegalStateException("Arrow wrote an empty schema");
    }
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
      root.allocateNew();
      root.setRowCount(0);
    }
    LoggerFactory.getLogger(BuildTimingBenchmark.class)
        .info("initialised Arrow's schema classes and logging before the first build");
  }

  /** Times one build on {@code dir}; {@code vectorType} null: the BTree. */
  private static long build(
      BufferAllocator allocator, Engine e, Path dir, IndexType vectorType, DistanceMetric metric) {
    if (vectorType != null) {
      return e == Engine.LANCELOT
          ? VectorIndexBenchmark.buildOurs(dir, vectorType, metric, null)
          : VectorIndexBenchmark.buildLance(allocator, dir, vectorType, metric);
    }
    long t0 = System.nanoTime();
    if (e == Engine.LANCELOT) {
      try (Dataset ds = Dataset.open(dir.toString())) {
        BTreeIndexBuilder.build(ds, BTreeBuildParams.of(BTREE_COLUMN)).close();
      }
    } else {
      try (org.lance.Dataset ds = VectorBenchData.openLance(allocator, dir)) {
        ds.createIndex(
            List.of(BTREE_COLUMN),
            org.lance.index.IndexType.BTREE,
            Optional.of(BTREE_COLUMN + "_idx"),
            IndexParams.builder().setScalarIndexParams(ScalarIndexParams.create("btree")).build(),
            true);
      }
    }
    return System.nanoTime() - t0;
  }

  /** Refuses to report a build that left no index (read by lancelot, untimed). */
  private static void check(Path dir, IndexType vectorType) {
    String index = vectorType == null ? BTREE_COLUMN + "_idx" : "vector_idx";
    try (Dataset ds = Dataset.open(dir.toString())) {
      if (ds.indexes().segments(index).isEmpty()) {
        throw new IllegalStateException("the build on " + dir + " committed no index " + index);
      }
    }
  }

  static double median(double[] v) {
    double[] s = v.clone();
    Arrays.sort(s);
    int n = s.length;
    return n == 0 ? Double.NaN : n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
  }

  private static String format(double nanos, boolean seconds) {
    return seconds
        ? String.format("%.2f", nanos / 1e9)
        : VectorBenchData.ms(nanos / 1e6); // 3 significant digits
  }

  private interface Stat {
    double of(double[] v);
  }

  /** One statistic per engine and, for two engines, their ratio (lancelot / Lance). */
  private static String statRow(String label, double[][] values, Stat stat, boolean seconds) {
    StringBuilder row = new StringBuilder("| " + label + " |");
    for (double[] v : values) {
      row.append(' ').append(format(stat.of(v), seconds)).append(" |");
    }
    if (values.length == 2) {
      row.append(String.format(" %.2f |", stat.of(values[0]) / stat.of(values[1])));
    }
    return row.toString();
  }

  /** Mean ± sd per engine and, for two engines, the ratio of the means. */
  private static String meanRow(String label, double[][] values, boolean seconds) {
    StringBuilder row = new StringBuilder("| " + label + " |");
    for (double[] v : values) {
      row.append(' ')
          .append(format(RecallSpreadBenchmark.mean(v), seconds))
          .append(" ± ")
          .append(v.length < 2 ? "n/a" : format(RecallSpreadBenchmark.sd(v), seconds))
          .append(" |");
    }
    if (values.length == 2) {
      row.append(
          String.format(
              " %.2f (of means) |",
              RecallSpreadBenchmark.mean(values[0]) / RecallSpreadBenchmark.mean(values[1])));
    }
    return row.toString();
  }

  private static String rangeRow(String label, double[][] values, boolean seconds) {
    StringBuilder row = new StringBuilder("| " + label + " |");
    for (double[] v : values) {
      row.append(' ')
          .append(format(RecallSpreadBenchmark.min(v), seconds))
          .append("–")
          .append(format(RecallSpreadBenchmark.max(v), seconds))
          .append(" |");
    }
    if (values.length == 2) {
      row.append(" |");
    }
    return row.toString();
  }
}
