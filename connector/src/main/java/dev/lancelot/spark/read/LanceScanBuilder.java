package dev.lancelot.spark.read;

import dev.lancelot.engine.expr.Predicate;
import dev.lancelot.engine.expr.Predicates;
import dev.lancelot.spark.LanceOptions;
import dev.lancelot.spark.LanceTable;
import java.util.ArrayList;
import java.util.Map;
import org.apache.arrow.vector.types.pojo.Field;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.read.SupportsPushDownFilters;
import org.apache.spark.sql.connector.read.SupportsPushDownRequiredColumns;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.types.StructType;

/**
 * Translates Spark's pushdown into an engine scan (docs/architecture.md §7.2: the connector translates, the engine
 * plans): pruned columns become the projection, translatable filters become one engine
 * predicate; the rest is returned for Spark to evaluate.
 */
public final class LanceScanBuilder implements ScanBuilder, SupportsPushDownRequiredColumns,
    SupportsPushDownFilters {
  private final LanceTable table;
  private final LanceOptions options;
  private StructType requiredSchema;
  private Filter[] pushed = new Filter[0];
  private Predicate predicate;

  public LanceScanBuilder(LanceTable table, LanceOptions options) {
    this.table = table;
    this.options = options;
    this.requiredSchema = table.schema();
  }

  @Override
  public void pruneColumns(StructType required) {
    this.requiredSchema = required;
  }

  @Override
  public Filter[] pushFilters(Filter[] filters) {
    Map<String, Field> filterable = SparkFilters.filterableColumns(table.arrowSchema());
    List<Filter> accepted = new ArrayList<>();
    List<Filter> rejected = new ArrayList<>();
    List<Predicate> predicates = new ArrayList<>();
    for (Filter f : filters) {
      Optional<Predicate> p = SparkFilters.translate(f, filterable);
      if (p.isPresent()) {
        accepted.add(f);
        predicates.add(p.get());
      } else {
        rejected.add(f);
      }
    }
    this.pushed = accepted.toArray(new Filter[0]);
    this.predicate = predicates.isEmpty() ? null : Predicates.and(predicates);
    return rejected.toArray(new Filter[0]);
  }

  @Override
  public Filter[] pushedFilters() {
    return pushed.clone();
  }

  @Override
  public Scan build() {
    return new LanceScan(table, options, requiredSchema, predicate == null ? null : predicate.toSql(), pushed);
  }
}
