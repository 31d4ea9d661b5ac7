package dev.lancelot.spark.search;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.OpenOptions;
import dev.lancelot.engine.query.VectorSearch;
import dev.lancelot.engine.query.VectorSearchResult;
import dev.lancelot.engine.query.exec.UnitResult;
import dev.lancelot.engine.query.exec.UnitStats;
import dev.lancelot.engine.query.plan.SearchPlan;
import dev.lancelot.engine.query.plan.SearchUnit;
import dev.lancelot.spark.SerializableConfiguration;
import dev.lancelot.spark.read.LanceColumnVector;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.function.Function;
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
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The physical plan of a vector search (SPEC S4): one Spark task per search unit (index segment
 * or unindexed fragment) returns that unit's local candidates — at most {@code k × refine_factor}
 * per ANN unit and {@code k} per flat unit for each query vector, with row addresses and
 * distances only; the driver merges them with the engine's own merge ({@link VectorSearch#finish},
 * the one the local executor uses) and reads the result columns of the final rows only. No
 * shuffle: one job of unit tasks, then the answer (at most k rows per query vector) is on the
 * driver.
 *
 * <p>Unit results travel as Java-serialized bytes, so the task result is a {@code byte[]} under
 * any {@code spark.serializer}. Its metrics sum the units' statistics and show in the SQL tab.
 */
public final class VectorSearchExec extends SparkPlan {
  private static final long serialVersionUID = 1L;
  static final Map<String, String> METRICS = metricNames();

  private final transient VectorSearchTable.SearchScan scan;
  private final Seq<Attribute> output;
  private transient scala.collection.immutable.Map<String, SQLMetric> metrics;

  public VectorSearchExec(VectorSearchTable.SearchScan scan, Seq<Attribute> output) {
    this.scan = scan;
    this.output = output;
  }

  private static Map<String, String> metricNames() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("units", "search units");
    m.put("partitionsProbed", "partitions probed");
    m.put("rowsScanned", "rows scanned");
    m.put("distancesComputed", "distances computed");
    m.put("candidates", "candidates returned");
    m.put("rowsReturned", "rows returned");
    return m;
  }

  @Override
  public Seq<Attribute> output() {
    return output;
  }

  @Override
  public Seq<SparkPlan> children() {
    return CollectionConverters.asScala(List.<SparkPlan>of()).toList();
  }

  @Override
  public SparkPlan withNewChildrenInternal(scala.collection.immutable.IndexedSeq<SparkPlan> newChildren) {
    return this;
  }

  @Override
  public scala.collection.immutable.Map<String, SQLMetric> metrics() {
    if (metrics == null) {
      Map<String, SQLMetric> m = new LinkedHashMap<>();
      METRICS.forEach((key, description) -> m.put(key, SQLMetrics.createMetric(sparkContext(), description)));
      metrics = scala.collection.immutable.Map.from(CollectionConverters.asScala(m));
    }
    return metrics;
  }

  @Override
  public String nodeName() {
    return "LanceVectorSearch";
  }

  @Override
  public String simpleString(int maxFields) {
    return scan.description().stripTrailing();
  }

  @Override
  public InternalRow[] executeCollect() {
    return search();
  }

  @Override
  public RDD<InternalRow> doExecute() {
    return JavaSparkContext.fromSparkContext(sparkContext()).parallelize(Arrays.asList(search()), 1).rdd();
  }

  /** Runs the units as one Spark job, merges on the driver, and returns the answer's rows. */
  private InternalRow[] search() {
    long start = System.nanoTime();
    VectorSearchTable table = scan.table();
    SearchPlan plan = table.searchPlan();
    List<UnitResult> results = runUnits(plan, new SerializableConfiguration(table.conf()));
    try (Dataset ds = Dataset.open(plan.location(), OpenOptions.defaults().withVersion(plan.version())
            .withHadoopConf(table.conf()));
        VectorSearchResult result = VectorSearch.finish(ds, plan, results, start)) {
      InternalRow[] rows = toRows(result.rows(), table.schema());
      report(results, rows.length);
      return rows;
    }
  }

  private List<UnitResult> runUnits(SearchPlan plan, SerializableConfiguration conf) {
    int n = plan.units().size();
    if (n == 0) {
      return List.of();
    }
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(sparkContext());
    List<Integer> units = IntStream.range(0, n).boxed().toList();
    jsc.setJobDescription("lance vector search on " + plan.location() + "@v" + plan.version() + ": " + n
        + " unit(s)");
    try {
      List<byte[]> bytes = jsc.parallelize(units, n).map(new RunUnit(plan, conf)).collect();
      List<UnitResult> out = new ArrayList<>(bytes.size());
      bytes.forEach(b -> out.add(fromBytes(b)));
      return out;
    } finally {
      jsc.setJobDescription(null);
    }
  }

  private void report(List<UnitResult> results, int rowsReturned) {
    scala.collection.immutable.Map<String, SQLMetric> m = metrics();
    for (UnitResult r : results) {
      UnitStats s = r.stats();
      m.apply("units").add(1);
      m.apply("partitionsProbed").add(s.partitionsProbed());
      m.apply("rowsScanned").add(s.rowsScanned());
      m.apply("distancesComputed").add(s.distancesComputed());
      m.apply("candidates").add(s.candidates());
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

  /** Runs one unit on an executor: opens the plan's version, searches, returns the serialized result. */
  private static final class RunUnit implements Function<Integer, byte[]> {
    private static final long serialVersionUID = 1L;
    private final SearchPlan plan;
    private final SerializableConfiguration conf;

    RunUnit(SearchPlan plan, SerializableConfiguration conf) {
      this.plan = plan;
      this.conf = conf;
    }

    @Override
    public byte[] call(Integer unitIndex) {
      SearchUnit unit = plan.units().get(unitIndex);
      try (Dataset ds = Dataset.open(plan.location(), OpenOptions.defaults().withVersion(plan.version())
          .withHadoopConf(conf.get()))) {
        return toBytes(VectorSearch.runUnit(ds, plan, unit));
      }
    }
  }

  static byte[] toBytes(UnitResult result) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(result);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  static UnitResult fromBytes(byte[] bytes) {
    try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes)) {
      @Override
      protected Class<?> resolveClass(java.io.ObjectStreamClass desc) throws IOException, ClassNotFoundException {
        // The connector may live in a jar added at run time (--jars): resolve through Spark's loader.
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        return loader == null ? super.resolveClass(desc) : Class.forName(desc.getName(), false, loader);
      }
    }) {
      return (UnitResult) in.readObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public int productArity() {
    return 2;
  }

  @Override
  public Object productElement(int n) {
    return switch (n) {
      case 0 -> scan;
      case 1 -> output;
      default -> throw new IndexOutOfBoundsException(n);
    };
  }

  @Override
  public boolean canEqual(Object that) {
    return that instanceof VectorSearchExec;
  }
}
