package dev.lancelot.spark;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancelot.engine.CloseableIterator;
import dev.lancelot.engine.expr.FilterParser;
import dev.lancelot.engine.query.VectorQuery;
import dev.lancelot.engine.query.VectorSearch;
import dev.lancelot.engine.query.VectorSearchResult;
import dev.lancelot.engine.testing.ClusteredData;
import dev.lancelot.engine.testing.Rows;
import dev.lancelot.spark.search.LanceVectorSearch;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.lance.WriteParams;

/**
 * A filter crosses to Spark tasks bound, not as text: the driver parses and binds it once per
 * query, the tasks (twelve input partitions of a read, one task per search unit) evaluate the bound
 * predicate they received and parse nothing, and the rows equal the engine's local answer. The Kryo
 * subclass runs the same with Kryo as Spark's serializer.
 */
class SparkFiltersBindOnceTest extends SharedSpark {
  static final String FILTER = "id % 7 <> 3 AND lower(name) = name OR tenant_id BETWEEN 3 AND 4";

  /** What Spark pushes down, and the same as engine SQL. */
  static final String SPARK_FILTER =
      "tenant_id = 3 OR (name LIKE 'user-1%' AND id BETWEEN 100 AND 5000) OR name IS NULL";

  static final String PUSHED =
      "tenant_id = 3 OR (name LIKE 'user-1%' AND id >= 100 AND id <= 5000) OR name IS NULL";
  static final int DIM = 8;
  static Path dir;

  @BeforeAll
  static void write() throws Exception {
    dir = Files.createTempDirectory("spark-bind-once");
    ClusteredData.write(allocator, dir, 0, 6000, DIM, 5, 3, WriteParams.WriteMode.CREATE, 2000);
  }

  @Test
  void readTasksReceiveTheBoundFilterAndParseNothing() {
    org.apache.spark.sql.Dataset<Row> df =
        spark
            .read()
            .format("lance")
            .option("max_rows_per_partition", "500")
            .load(dir.toString())
            .filter(SPARK_FILTER)
            .select("id");
    assertThat(df.queryExecution().executedPlan().toString())
        .contains("LanceScan")
        .contains("filter=");
    assertThat(
            spark
                .read()
                .format("lance")
                .option("max_rows_per_partition", "500")
                .load(dir.toString())
                .rdd()
                .getNumPartitions())
        .isEqualTo(12);
    long before = FilterParser.parseCount();
    List<Long> ids = new ArrayList<>();
    df.collectAsList().forEach(r -> ids.add(r.getLong(0)));
    long parses = FilterParser.parseCount() - before;
    assertThat(parses)
        .as("parses for one query of 12 tasks (the driver's, once per scan Spark plans)")
        .isBetween(0L, 2L);
    ids.sort(Comparator.naturalOrder());
    assertThat(ids).isNotEmpty().isEqualTo(localIds(PUSHED));
  }

  @Test
  void searchUnitsReceiveTheBoundFilterAndParseNothing() {
    float[] q = ClusteredData.queries(1, DIM, 5, 3, 11)[0];
    for (boolean prefilter : new boolean[] {true, false}) {
      VectorQuery query =
          VectorQuery.builder("vector")
              .vector(q)
              .k(20)
              .useIndex(false)
              .filter(FILTER)
              .prefilter(prefilter)
              .columns("id")
              .build();
      long before = FilterParser.parseCount();
      List<Row> rows = LanceVectorSearch.search(spark, dir.toString(), query).collectAsList();
      assertThat(FilterParser.parseCount() - before)
          .as("parses, prefilter=%s", prefilter)
          .isEqualTo(1);
      List<Object> sparkIds =
          rows.stream().map(r -> (Object) r.getLong(r.fieldIndex("id"))).toList();
      try (dev.lancelot.engine.Dataset ds = dev.lancelot.engine.Dataset.open(dir.toString());
          VectorSearchResult local = VectorSearch.search(ds, query)) {
        int id =
            local.rows().getSchema().getFields().stream()
                .map(f -> f.getName())
                .toList()
                .indexOf("id");
        assertThat(sparkIds)
            .as("prefilter=%s", prefilter)
            .isNotEmpty()
            .isEqualTo(Rows.of(local.rows()).stream().map(r -> r.get(id)).toList());
      }
    }
  }

  static List<Long> localIds(String filter) {
    List<Long> out = new ArrayList<>();
    try (dev.lancelot.engine.Dataset ds = dev.lancelot.engine.Dataset.open(dir.toString());
        CloseableIterator<VectorSchemaRoot> it =
            ds.newScan().columns("id").filter(filter).batches()) {
      while (it.hasNext()) {
        Rows.of(it.next()).forEach(r -> out.add((Long) r.get(0)));
      }
    }
    out.sort(Comparator.naturalOrder());
    return out;
  }
}
