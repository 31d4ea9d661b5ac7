package dev.lancelot.spark.procedures;

import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.spark.LanceCatalog;
import dev.lancelot.spark.TableNames;
import dev.lancelot.spark.recall.DistributedRecall;
import dev.lancelot.spark.recall.RecallResult;
import dev.lancelot.spark.recall.RecallRun;
import dev.lancelot.spark.recall.RecallSpec;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * {@code CALL lance.system.recall(table => 'db.items', queries => 'queries', k => 10, grid =>
 * 'nprobes=1,4,16;refine_factor=1,4' [, query_column, column, filter, selective_filter, out, truth,
 * version, limit_queries])}: the distributed recall evaluation of {@link DistributedRecall} (the
 * same as the {@code RecallJob} application) from SQL. {@code queries} is a table or view the
 * session can read (any catalog), a table of this catalog, or the location of a Lance dataset or an
 * {@code .fvecs} file. Returns one row per k × scenario × setting, with the fields of {@code
 * results.json}; with {@code out} it also writes {@code results.json}, {@code results.lance} and
 * {@code report.html} there, and keeps the ground truth under {@code <out>/truth} (or {@code
 * truth}) for later calls.
 */
final class RecallProcedure extends LanceProcedure {
  static final String NAME = "recall";
  private static final String SUMMARY =
      "Measures recall@k of every setting of a grid in each scenario (no filter, prefilter, highly selective "
          + "prefilter, unindexed data present, fast_search) against exact search in the metric the search uses, "
          + "distributed, with the ground truth stored for reuse; returns one row per scenario and setting.";

  static final StructType RESULT =
      new StructType()
          .add("scenario", DataTypes.StringType, false)
          .add("params", DataTypes.StringType, false)
          .add("metric", DataTypes.StringType, true)
          .add("k", DataTypes.IntegerType, false)
          .add("recall", DataTypes.DoubleType, true)
          .add("recall_p5", DataTypes.DoubleType, true)
          .add("rows_per_query", DataTypes.DoubleType, true)
          .add("p50_ms", DataTypes.DoubleType, true)
          .add("p99_ms", DataTypes.DoubleType, true)
          .add("partitions_probed", DataTypes.DoubleType, true)
          .add("distances_computed", DataTypes.DoubleType, true)
          .add("note", DataTypes.StringType, true);

  private static final Parameter[] PARAMETERS = {
    required("table", DataTypes.StringType),
    required("queries", DataTypes.StringType),
    optional("query_column", DataTypes.StringType),
    optional("column", DataTypes.StringType, "'vector'"),
    optional("k", DataTypes.LongType, "10"),
    optional("grid", DataTypes.StringType),
    optional("filter", DataTypes.StringType),
    optional("selective_filter", DataTypes.StringType),
    optional("out", DataTypes.StringType),
    optional("truth", DataTypes.StringType),
    optional("version", DataTypes.LongType),
    optional("limit_queries", DataTypes.LongType),
  };

  RecallProcedure(LanceCatalog catalog) {
    super(catalog, NAME, SUMMARY, PARAMETERS, RESULT);
  }

  @Override
  protected List<InternalRow> run(SparkSession spark, ProcedureArguments args) {
    String location = tableLocation(args);
    String queryColumn = args.has("query_column") ? args.string("query_column") : null;
    RecallSpec.Builder spec =
        RecallSpec.builder(location)
            .column(args.string("column"))
            .k(Math.toIntExact(positive(args, "k")));
    String queries = args.string("queries");
    org.apache.spark.sql.Dataset<Row> frame = sessionTable(spark, queries);
    if (frame != null) {
      spec.queries(frame, queryColumn);
    } else {
      spec.queriesAt(catalog().locationOf(queries), queryColumn);
    }
    if (args.has("grid")) {
      spec.grid(args.string("grid"));
    }
    if (args.has("filter")) {
      spec.filter(args.string("filter"));
    }
    if (args.has("selective_filter")) {
      spec.selectiveFilter(args.string("selective_filter"));
    }
    if (args.has("out")) {
      spec.out(args.string("out"));
    }
    if (args.has("truth")) {
      spec.truth(args.string("truth"));
    }
    if (args.has("version")) {
      spec.version(positive(args, "version"));
    }
    if (args.has("limit_queries")) {
      spec.limitQueries(Math.toIntExact(positive(args, "limit_queries")));
    }
    RecallRun run = DistributedRecall.run(spark, spec.build());
    List<InternalRow> rows = new ArrayList<>(run.rows().size());
    for (RecallResult r : run.rows()) {
      // fields() is the results.json row, in RESULT's column order, unmeasured numbers as null
      rows.add(
          new GenericInternalRow(
              r.fields().values().stream()
                  .map(v -> v instanceof String text ? UTF8String.fromString(text) : v)
                  .toArray()));
    }
    return rows;
  }

  /**
   * The queries as a table or view the session resolves (a temporary view, a table of any catalog),
   * or null when the name is a location or names nothing the session knows (then it is taken as a
   * table of this catalog or a location).
   */
  private static org.apache.spark.sql.Dataset<Row> sessionTable(SparkSession spark, String name) {
    if (TableNames.isPath(name)) {
      return null;
    }
    try {
      return spark.table(name);
    } catch (Exception e) { // AnalysisException: no such table or view in the session
      return null;
    }
  }

  private static long positive(ProcedureArguments args, String name) {
    Object v = args.given().get(name);
    long n = ((Number) v).longValue();
    if (n < 1) {
      throw new InvalidInputException("argument " + name + " must be at least 1, got " + n + ".");
    }
    return n;
  }
}
