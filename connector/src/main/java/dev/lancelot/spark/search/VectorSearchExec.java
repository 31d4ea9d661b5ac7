package dev.lancelot.spark.search;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.distributed.SearchTask;
import dev.lancelot.engine.distributed.TaskResult;
import dev.lancelot.engine.distributed.VectorSearchPlan;
import dev.lancelot.engine.index.vector.VectorIndexCache;
import dev.lancelot.engine.io.ReadCounters;
import dev.lancelot.engine.query.UnitStats;
import dev.lancelot.engine.query.VectorSearchResult;
import dev.lancelot.spark.ConfigurationBroadcasts;
import dev.lancelot.spark.JavaSerialized;
import dev.lancelot.spark.ScalaCollections;
import dev.lancelot.spark.SerializableConfiguration;
import dev.lancelot.spark.read.LanceColumnVector;
import dev.lancelot.spark.scalashim.LeafExecPlan;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.function.Function;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.execution.SQLExecution;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.metric.SQLMetric;
import org.apache.spark.sql.execution.metric.SQLMetrics;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import scala.Tuple2;
import scala.collection.Seq;

/**
 * The physical plan of a vector search (SPEC S4): one Spark task per search unit (index segment or
 * unindexed fragment) returns that unit's local candidates — at most {@code k × refine_factor} per
 * ANN unit and {@code k} per flat unit for each query vector, with row addresses and distances
 * only; the driver merges them with the engine's own merge ({@link VectorSearchPlan#finish}, the
 * one the local executor uses) and reads the result columns of the final rows only. No shuffle: one
 * job of unit tasks, then the answer (at most k rows per query vector) is on the driver.
 *
 * <p>Unit results travel wrapped in {@link JavaSerialized}, so they cross any {@code
 * spark.serializer}. Its metrics sum the units' statistics and show in the SQL tab.
 */
public final class VectorSearchExec extends LeafExecPlan {
  private static final long serialVersionUID = 1L;
  static final Map<String, String> METRICS = metricNames();

  /**
   * Spark conf: byte budget of each JVM's index segment cache (default: 1 GiB or a quarter of the
   * heap).
   */
  public static final String CACHE_CONF = "spark.lancelot.cache.maxBytes";

  private final transient PlannedSearch search;
  private final scala.collection.immutable.List<Attribute> output;
  private transient scala.collection.immutable.Map<String, SQLMetric> metrics;

  /** Public for Spark, which copies plan nodes through their public constructor. */
  public VectorSearchExec(PlannedSearch search, Seq<? extends Attribute> output) {
    this.search = search;
    this.output = ScalaCollections.list(ScalaCollections.toJava(output));
  }

  private static Map<String, String> metricNames() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("units", "search units");
    m.put("partitionsProbed", "partitions probed");
    m.put("rowsScanned", "rows scanned");
    m.put("distancesComputed", "distances computed");
    m.put("candidates", "candidates returned");
    m.put("rowsReturned", "rows returned");
    m.put("bytesRead", "bytes read");
    m.put("filesOpened", "files opened");
    m.put("indexCacheHits", "index cache hits");
    m.put("indexCacheMisses", "index cache misses");
    return m;
  }

  @Override
  public scala.collection.immutable.List<Attribute> output() {
    return output;
  }

  @Override
  public scala.collection.immutable.List<SparkPlan> children() {
    return ScalaCollections.empty();
  }

  @Override
  public scala.collection.immutable.Map<String, SQLMetric> metrics() {
    if (metrics == null) {
      Map<String, SQLMetric> m = new LinkedHashMap<>();
      METRICS.forEach(
          (key, description) -> m.put(key, SQLMetrics.createMetric(sparkContext(), description)));
      metrics = ScalaCollections.map(m);
    }
    return metrics;
  }

  @Override
  public String nodeName() {
    return "LanceVectorSearch";
  }

  @Override
  public String simpleString(int maxFields) {
    return search.description().stripTrailing();
  }

  @Override
  public InternalRow[] executeCollect() {
    return search();
  }

  @Override
  public RDD<InternalRow> doExecute() {
    return JavaSparkContext.fromSparkContext(sparkContext())
        .parallelize(Arrays.asList(search()), 1)
        .rdd();
  }

  /** Runs the units as one Spark job, merges on the driver, and returns the answer's rows. */
  private InternalRow[] search() {
    long start = System.nanoTime();
    PlannedSearch table = search;
    VectorSearchPlan plan = table.searchPlan();
    long cacheBytes =
        sparkContext()
            .conf()
            .getSizeAsBytes(CACHE_CONF, String.valueOf(VectorIndexCache.maxBytes()));
    List<UnitOutcome> outcomes =
        runUnits(plan, ConfigurationBroadcasts.of(sparkContext(), table.conf()), cacheBytes);
    List<TaskResult> results = outcomes.stream().map(UnitOutcome::result).toList();
    Dataset ds = Dataset.openCached(plan.location(), plan.version(), table.conf());
    try (VectorSearchResult result = plan.finish(ds, results, start)) {
      InternalRow[] rows = toRows(result.rows(), table.schema());
      report(outcomes, rows.length);
      return rows;
    }
  }

  // The preferred locations' list is a Scala Seq of Scala Seqs, whose type Java cannot name once
  // for Scala 2.12 and 2.13 (D53): passed raw.
  @SuppressWarnings({"unchecked", "rawtypes"})
  private List<UnitOutcome> runUnits(
      VectorSearchPlan plan, Broadcast<SerializableConfiguration> conf, long cacheBytes) {
    List<SearchTask> tasks = plan.tasks();
    int n = tasks.size();
    if (n == 0) {
      return List.of();
    }
    List<Tuple2<byte[], scala.collection.immutable.List<String>>> placed = new ArrayList<>(n);
    for (SearchTask task : tasks) {
      List<String> where = UnitPlacement.preferred(task, search.conf());
      placed.add(new Tuple2<>(task.toBytes(), ScalaCollections.list(where)));
    }
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(sparkContext());
    jsc.setJobDescription(
        "lance vector search on "
            + plan.location()
            + "@v"
            + plan.version()
            + ": "
            + n
            + " unit(s)");
    try {
      JavaRDD<byte[]> units =
          sparkContext()
              .<byte[]>makeRDD(
                  (scala.collection.immutable.List) ScalaCollections.list(placed),
                  scala.reflect.ClassTag$.MODULE$.apply(byte[].class))
              .toJavaRDD();
      List<JavaSerialized<UnitOutcome>> outcomes =
          units.map(new RunUnit(conf, cacheBytes)).collect();
      List<UnitOutcome> out = new ArrayList<>(outcomes.size());
      for (int i = 0; i < outcomes.size(); i++) {
        UnitOutcome o = outcomes.get(i).get();
        UnitPlacement.record(tasks.get(i), o.host, o.executorId);
        out.add(o);
      }
      return out;
    } finally {
      jsc.setJobDescription(null);
    }
  }

  private void report(List<UnitOutcome> outcomes, int rowsReturned) {
    scala.collection.immutable.Map<String, SQLMetric> m = metrics();
    for (UnitOutcome o : outcomes) {
      UnitStats s = o.result().stats();
      m.apply("units").add(1);
      m.apply("partitionsProbed").add(s.partitionsProbed());
      m.apply("rowsScanned").add(s.rowsScanned());
      m.apply("distancesComputed").add(s.distancesComputed());
      m.apply("candidates").add(s.candidates());
      m.apply("bytesRead").add(o.bytesRead);
      m.apply("filesOpened").add(o.filesOpened);
      m.apply("indexCacheHits").add(o.indexCacheHits);
      m.apply("indexCacheMisses").add(o.indexCacheMisses);
    }
    m.apply("rowsReturned").add(rowsReturned);
    String executionId = sparkContext().getLocalProperty(SQLExecution.EXECUTION_ID_KEY());
    SQLMetrics.postDriverMetricUpdates(sparkContext(), executionId, m.values().toSeq());
  }

  private static InternalRow[] toRows(VectorSchemaRoot root, StructType schema) {
    List<FieldVector> vectors = root.getFieldVectors();
    ColumnVector[] columns = new ColumnVector[vectors.size()];
    for (int i = 0; i < columns.length; i++) {
      columns[i] = new LanceColumnVector(vectors.get(i));
    }
    UnsafeProjection project = UnsafeProjection.create(schema);
    InternalRow[] rows = new InternalRow[root.getRowCount()];
    Iterator<InternalRow> it = new ColumnarBatch(columns, root.getRowCount()).rowIterator();
    for (int i = 0; i < rows.length; i++) {
      rows[i] = project.apply(it.next()).copy();
    }
    return rows;
  }

  /** What a unit task sends back: the unit's candidates, what it read, and where it ran. */
  static final class UnitOutcome implements java.io.Serializable {
    private static final long serialVersionUID = 1L;
    private final byte[] result;
    final long bytesRead;
    final long filesOpened;
    final long indexCacheHits;
    final long indexCacheMisses;
    final String host;
    final String executorId;

    UnitOutcome(TaskResult result, ReadCounters.Reading reads, String host, String executorId) {
      this.result = result.toBytes();
      this.bytesRead = reads.bytesRead();
      this.filesOpened = reads.filesOpened();
      this.indexCacheHits = reads.indexCacheHits();
      this.indexCacheMisses = reads.indexCacheMisses();
      this.host = host;
      this.executorId = executorId;
    }

    TaskResult result() {
      return TaskResult.fromBytes(result);
    }
  }

  /**
   * Runs one task on an executor: takes the plan's version from the executor's dataset cache,
   * searches, and returns the serialized outcome.
   */
  private static final class RunUnit implements Function<byte[], JavaSerialized<UnitOutcome>> {
    private static final long serialVersionUID = 1L;
    private final Broadcast<SerializableConfiguration> conf;
    private final long cacheBytes;

    RunUnit(Broadcast<SerializableConfiguration> conf, long cacheBytes) {
      this.conf = conf;
      this.cacheBytes = cacheBytes;
    }

    @Override
    public JavaSerialized<UnitOutcome> call(byte[] taskBytes) {
      if (VectorIndexCache.maxBytes() != cacheBytes) {
        VectorIndexCache.setMaxBytes(cacheBytes);
      }
      SearchTask task = SearchTask.fromBytes(taskBytes);
      ReadCounters.Reading before = ReadCounters.now();
      Dataset ds = Dataset.openCached(task.location(), task.version(), conf.value().get());
      TaskResult result = task.run(ds);
      org.apache.spark.SparkEnv env = org.apache.spark.SparkEnv.get();
      String host = env == null ? null : env.blockManager().blockManagerId().host();
      String executorId = env == null ? null : env.executorId();
      return JavaSerialized.of(new UnitOutcome(result, before.since(), host, executorId));
    }
  }

  @Override
  public int productArity() {
    return 2;
  }

  @Override
  public Object productElement(int n) {
    return switch (n) {
      case 0 -> search;
      case 1 -> output;
      default -> throw new IndexOutOfBoundsException(n);
    };
  }

  @Override
  public boolean canEqual(Object that) {
    return that instanceof VectorSearchExec;
  }
}
