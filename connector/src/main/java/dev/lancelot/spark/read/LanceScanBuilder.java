package dev.lancelot.spark.read;

import dev.lancelot.engine.distributed.DatasetStatistics;
import dev.lancelot.engine.expr.Predicate;
import dev.lancelot.engine.expr.Predicates;
import dev.lancelot.spark.LanceOptions;
import dev.lancelot.spark.LanceTable;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.spark.sql.connector.expressions.aggregate.AggregateFunc;
import org.apache.spark.sql.connector.expressions.aggregate.Aggregation;
import org.apache.spark.sql.connector.expressions.aggregate.CountStar;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.read.SupportsPushDownAggregates;
import org.apache.spark.sql.connector.read.SupportsPushDownLimit;
import org.apache.spark.sql.connector.read.SupportsPushDownRequiredColumns;
import org.apache.spark.sql.connector.read.SupportsPushDownV2Filters;
import org.apache.spark.sql.types.StructType;

/**
 * Translates Spark's pushdown into an engine scan (docs/architecture.md §7.2: the connector
 * translates, the engine plans): pruned columns become the projection, translatable predicates
 * become one engine predicate ({@link SparkPredicates}; the rest, and the inexact ones, are
 * returned for Spark to evaluate) with the table's own scan filter ({@link ArrayPredicatePushDown}
 * puts there the array predicates Spark does not push), a LIMIT caps each partition, and {@code
 * COUNT(*)} of an unfiltered scan is answered from the manifest ({@link LanceCountScan}).
 * docs/sql.md describes what is pushed.
 */
public final class LanceScanBuilder
    implements ScanBuilder,
        SupportsPushDownRequiredColumns,
        SupportsPushDownV2Filters,
        SupportsPushDownLimit,
        SupportsPushDownAggregates {
  private final LanceTable table;
  private final LanceOptions options;
  private final LanceStreamOptions streamOptions;
  private StructType requiredSchema;
  private org.apache.spark.sql.connector.expressions.filter.Predicate[] pushed =
      new org.apache.spark.sql.connector.expressions.filter.Predicate[0];
  private Predicate predicate;
  private long limit = -1;
  private OptionalLong countStar = OptionalLong.empty();
  private int countAggregates;

  public LanceScanBuilder(LanceTable table, LanceOptions options) {
    this(table, options, LanceStreamOptions.parse(java.util.Map.of()));
  }

  /** A scan that a streaming query may also read as a stream with {@code streamOptions}. */
  public LanceScanBuilder(
      LanceTable table, LanceOptions options, LanceStreamOptions streamOptions) {
    this.table = table;
    this.options = options;
    this.streamOptions = streamOptions;
    this.requiredSchema = table.schema();
    this.predicate = table.scanFilter();
  }

  @Override
  public void pruneColumns(StructType required) {
    this.requiredSchema = required;
  }

  /**
   * Pushes every predicate the engine can evaluate; returns those Spark must still evaluate: the
   * untranslated ones and those pushed only in part (a superset of their rows).
   */
  @Override
  public org.apache.spark.sql.connector.expressions.filter.Predicate[] pushPredicates(
      org.apache.spark.sql.connector.expressions.filter.Predicate[] predicates) {
    List<org.apache.spark.sql.connector.expressions.filter.Predicate> accepted = new ArrayList<>();
    List<org.apache.spark.sql.connector.expressions.filter.Predicate> postScan = new ArrayList<>();
    List<Predicate> engine = new ArrayList<>();
    if (table.scanFilter() != null) {
      engine.add(table.scanFilter()); // array predicates Spark does not push (D77)
    }
    for (org.apache.spark.sql.connector.expressions.filter.Predicate p : predicates) {
      Optional<SparkPredicates.Translation> t = SparkPredicates.translate(p, table.arrowSchema());
      if (t.isPresent()) {
        accepted.add(p);
        engine.add(t.get().predicate());
      }
      if (t.isEmpty() || !t.get().exact()) {
        postScan.add(p);
      }
    }
    this.pushed =
        accepted.toArray(new org.apache.spark.sql.connector.expressions.filter.Predicate[0]);
    this.predicate = engine.isEmpty() ? null : Predicates.and(engine);
    return postScan.toArray(new org.apache.spark.sql.connector.expressions.filter.Predicate[0]);
  }

  @Override
  public org.apache.spark.sql.connector.expressions.filter.Predicate[] pushedPredicates() {
    return pushed.clone();
  }

  /** Each partition stops after {@code limit} rows; Spark keeps its own limit over them. */
  @Override
  public boolean pushLimit(int limit) {
    if (limit < 0) {
      return false;
    }
    this.limit = limit;
    return true;
  }

  @Override
  public boolean isPartiallyPushed() {
    return true;
  }

  /** True for {@code COUNT(*)} (possibly several) without GROUP BY over an unfiltered scan. */
  @Override
  public boolean supportCompletePushDown(Aggregation aggregation) {
    return isCountStar(aggregation) && predicate == null;
  }

  /**
   * Accepts {@code COUNT(*)} without GROUP BY and without a pushed filter when the manifest counts
   * every fragment's deleted rows: the count is then physical minus deleted rows. Anything else
   * ({@code COUNT(col)}, which needs the column's nulls, other aggregates, a filter) Spark
   * computes.
   */
  @Override
  public boolean pushAggregation(Aggregation aggregation) {
    if (!supportCompletePushDown(aggregation) || pushed.length > 0) {
      return false;
    }
    countStar = DatasetStatistics.of(table.dataset()).exactLiveRows();
    countAggregates = aggregation.aggregateExpressions().length;
    return countStar.isPresent();
  }

  private static boolean isCountStar(Aggregation aggregation) {
    if (aggregation.groupByExpressions().length > 0
        || aggregation.aggregateExpressions().length == 0) {
      return false;
    }
    for (AggregateFunc f : aggregation.aggregateExpressions()) {
      if (!(f instanceof CountStar)) {
        return false;
      }
    }
    return true;
  }

  @Override
  public Scan build() {
    if (countStar.isPresent()) {
      return new LanceCountScan(table, countStar.getAsLong(), countAggregates);
    }
    return new LanceScan(table, options, requiredSchema, predicate, limit, streamOptions);
  }
}
