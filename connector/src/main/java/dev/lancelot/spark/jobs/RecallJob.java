package dev.lancelot.spark.jobs;

import dev.lancelot.engine.LancelotException;
import dev.lancelot.spark.recall.DistributedRecall;
import dev.lancelot.spark.recall.RecallInputException;
import dev.lancelot.spark.recall.RecallResult;
import dev.lancelot.spark.recall.RecallRun;
import dev.lancelot.spark.recall.RecallSpec;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.SparkSession;

/**
 * The distributed recall evaluation as a Spark application (see {@link DistributedRecall} and
 * docs/recall.md):
 *
 * <pre>
 * spark-submit --class dev.lancelot.spark.jobs.RecallJob lancelot-spark-runtime.jar \
 *   --dataset s3a://bucket/items --queries s3a://bucket/queries.fvecs --k 10,100 \
 *   --grid "nprobes=1,4,16;refine_factor=1,4" --filter "tenant_id < 10" --out s3a://bucket/recall
 * </pre>
 *
 * Exit code 0 on success, 2 on bad input (with one message on standard error), 1 on any other
 * failure.
 */
public final class RecallJob {
  static final String USAGE =
      String.join(
          "\n",
          "Usage: RecallJob --dataset <uri> --queries <uri> --k <k>[,<k>...] --out <dir> [options]",
          "",
          "Measures recall@k, rows returned and per-query latency of the dataset's vector searches for every",
          "setting of a grid in five scenarios (no filter, prefilter, highly selective prefilter, unindexed",
          "data present, fast_search), against exact search on the same version.",
          "",
          "  --dataset <uri>            the Lance dataset searched",
          "  --queries <uri>            query vectors: a Lance dataset or an .fvecs file",
          "  --query-column <name>      the query vector column of a Lance dataset of queries (default: --column)",
          "  --column <name>            the vector column searched (default: vector)",
          "  --k <k>[,<k>...]           the k of the searches, each evaluated on its own (default: 10)",
          "  --grid <grid>              settings, e.g. \"nprobes=1,4,16;refine_factor=1,4\" (default: one setting of",
          "                             defaults); refine_factor=1 means no refine step",
          "  --filter <sql>             the filter of the prefilter scenario",
          "  --selective-filter <sql>   the filter of the highly selective prefilter scenario",
          "  --out <dir>                where results.json, results.lance, report.html and its plots go",
          "  --truth <dir>              where ground truths are stored and reused (default: <out>/truth)",
          "  --limit-queries <n>        the first n query vectors only",
          "  --version <v>              the dataset version (default: the latest)",
          "  --help                     this text");
  private static final Set<String> OPTIONS =
      Set.of(
          "dataset",
          "queries",
          "query-column",
          "column",
          "k",
          "grid",
          "filter",
          "selective-filter",
          "out",
          "truth",
          "limit-queries",
          "version");

  private RecallJob() {}

  public static void main(String[] args) {
    if (List.of(args).contains("--help")) {
      System.out.println(USAGE);
      return;
    }
    RecallSpec spec;
    try {
      spec = parse(args);
    } catch (LancelotException e) {
      System.err.println(e.getMessage());
      System.exit(2);
      return;
    }
    SparkSession spark = SparkSession.builder().appName("lancelot-recall").getOrCreate();
    int code;
    try {
      code = run(spark, spec, System.out, System.err);
    } finally {
      spark.stop();
    }
    if (code != 0) {
      System.exit(code);
    }
  }

  /**
   * Parses the arguments and runs the evaluation in {@code spark}; returns the exit code (0, or 2
   * on bad input after printing its message to {@code err}).
   */
  public static int run(SparkSession spark, String[] args, PrintStream out, PrintStream err) {
    if (List.of(args).contains("--help")) {
      out.println(USAGE);
      return 0;
    }
    RecallSpec spec;
    try {
      spec = parse(args);
    } catch (LancelotException e) {
      err.println(e.getMessage());
      return 2;
    }
    return run(spark, spec, out, err);
  }

  private static int run(SparkSession spark, RecallSpec spec, PrintStream out, PrintStream err) {
    RecallRun run;
    try {
      run =
          DistributedRecall.run(
              spark,
              spec,
              line -> {
                out.println(line);
                out.flush();
              });
    } catch (LancelotException e) {
      err.println(e.getMessage());
      return 2;
    }
    out.printf(
        "%-28s %-26s %-7s %5s %8s %8s %8s %10s %10s%n",
        "scenario", "params", "metric", "k", "recall", "p5", "rows", "p50 ms", "p99 ms");
    for (RecallResult r : run.rows()) {
      if (r.measured()) {
        out.printf(
            "%-28s %-26s %-7s %5d %8.4f %8.4f %8.2f %10.3f %10.3f%n",
            r.scenario(),
            r.params(),
            r.metric(),
            r.k(),
            r.recall(),
            r.recallP5(),
            r.rowsPerQuery(),
            r.p50Ms(),
            r.p99Ms());
      } else {
        out.printf("%-28s %-26s %-7s %5d %s%n", r.scenario(), r.params(), "-", r.k(), r.note());
      }
    }
    out.printf(
        "ground truth: %d reused, %d computed; %d query vectors on version %d%n",
        run.truthsReused().size(), run.truthsComputed().size(), run.queries(), run.version());
    return 0;
  }

  /**
   * The arguments as a spec; unknown or repeated options and missing values fail with a message.
   */
  static RecallSpec parse(String[] args) {
    Map<String, String> a = new LinkedHashMap<>();
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      if (!arg.startsWith("--") || !OPTIONS.contains(arg.substring(2))) {
        throw new RecallInputException(
            "Cannot run the recall job: unknown argument \"" + arg + "\". See --help.");
      }
      if (i + 1 >= args.length) {
        throw new RecallInputException(
            "Cannot run the recall job: " + arg + " needs a value. See --help.");
      }
      if (a.put(arg.substring(2), args[++i]) != null) {
        throw new RecallInputException("Cannot run the recall job: " + arg + " is given twice.");
      }
    }
    for (String required : List.of("dataset", "queries", "out")) {
      if (!a.containsKey(required)) {
        throw new RecallInputException(
            "Cannot run the recall job: --" + required + " is required. See --help.");
      }
    }
    RecallSpec.Builder b =
        RecallSpec.builder(a.get("dataset"))
            .column(a.getOrDefault("column", "vector"))
            .queriesAt(a.get("queries"), a.get("query-column"))
            .grid(a.get("grid"))
            .filter(a.get("filter"))
            .selectiveFilter(a.get("selective-filter"))
            .out(a.get("out"))
            .truth(a.get("truth"));
    if (a.containsKey("k")) {
      List<Integer> ks = new ArrayList<>();
      for (String k : a.get("k").split(",", -1)) {
        ks.add(number("--k", k.trim()));
      }
      b.ks(ks);
    }
    if (a.containsKey("limit-queries")) {
      b.limitQueries(number("--limit-queries", a.get("limit-queries")));
    }
    if (a.containsKey("version")) {
      b.version(number("--version", a.get("version")));
    }
    return b.build();
  }

  private static int number(String option, String value) {
    try {
      return Integer.parseInt(value);
    } catch (NumberFormatException e) {
      throw new RecallInputException(
          "Cannot run the recall job: " + option + " \"" + value + "\" is not a whole number.");
    }
  }
}
