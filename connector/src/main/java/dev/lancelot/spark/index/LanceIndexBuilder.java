package dev.lancelot.spark.index;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.OpenOptions;
import dev.lancelot.engine.distributed.IndexBuild;
import dev.lancelot.engine.distributed.IndexBuildTask;
import dev.lancelot.engine.distributed.IndexModel;
import dev.lancelot.engine.distributed.ScalarIndexBuild;
import dev.lancelot.engine.distributed.ScalarIndexBuildTask;
import dev.lancelot.engine.distributed.WrittenSegment;
import dev.lancelot.engine.index.IndexSegment;
import dev.lancelot.engine.index.scalar.ScalarBuildParams;
import dev.lancelot.engine.index.scalar.ScalarIndexBuilder;
import dev.lancelot.engine.index.vector.VectorIndexSpec;
import dev.lancelot.engine.io.HadoopFileIO;
import dev.lancelot.spark.LancePathCatalog;
import dev.lancelot.spark.SerializableConfiguration;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Vector index creation from Spark (SPEC S7): the driver trains the model once, on a sample (IVF
 * centroids and the PQ codebook or SQ bounds, exactly as a local build); the fragments are cut into
 * groups of at most {@code spark.lancelot.index.rowsPerSegment} live rows (default {@value
 * #DEFAULT_ROWS_PER_SEGMENT}; a fragment is never split), and one Spark task per group, where the
 * data is, assigns and encodes the group's rows, builds the HNSW graphs when the type has them and
 * writes the group's index segment in Lance's layout. Tasks return only the segments' manifest
 * entries; the driver commits all segments in one version. So the driver's memory does not grow
 * with the row count, and a larger index is searched by more tasks (one per segment). With one
 * group, the segment is the one a local build with the same spec (and seed) writes. {@link
 * #optimize} adds delta segments for fragments appended since, encoded the same way with the
 * index's existing model. Scalar indexes are built the same way ({@link #createScalarIndex}): for a
 * BTree one task per group gathers, sorts and writes its group's segment; a bitmap, zone map or
 * bloom filter is written whole by one task.
 *
 * <pre>{@code
 * long version = LanceIndexBuilder.createIndex(spark, "s3a://bucket/items", "vector",
 *     VectorIndexSpec.of(IndexType.IVF_PQ, DistanceMetric.L2).withNumPartitions(256).withNumSubVectors(16));
 * }</pre>
 */
public final class LanceIndexBuilder {
  private static final Logger LOG = LoggerFactory.getLogger(LanceIndexBuilder.class);

  /** Spark conf: most live rows in one index segment written by one task. */
  public static final String ROWS_PER_SEGMENT_CONF = "spark.lancelot.index.rowsPerSegment";

  public static final long DEFAULT_ROWS_PER_SEGMENT = 1_000_000L;

  private LanceIndexBuilder() {}

  /**
   * Builds index {@code spec.nameFor(column)} over every fragment of the latest version of the
   * dataset at {@code location} and commits it; returns the new version.
   */
  public static long createIndex(
      SparkSession spark, String location, String column, VectorIndexSpec spec) {
    Configuration conf = LancePathCatalog.hadoopConf();
    try (Dataset ds =
            Dataset.open(
                HadoopFileIO.qualify(location, conf), OpenOptions.defaults().withHadoopConf(conf));
        Dataset created =
            IndexBuild.create(ds, column, spec, rowsPerSegment(spark), runner(spark, conf))) {
      return created.version();
    }
  }

  /**
   * {@link #createIndex(SparkSession, String, String, VectorIndexSpec)} with the spec as named
   * parameters ({@link VectorIndexSpec#fromMap}: {@code index_type}, {@code metric}, {@code
   * num_partitions}, ...), for callers without the engine's types (e.g. PySpark through {@code
   * spark._jvm}).
   */
  public static long createIndex(
      SparkSession spark, String location, String column, java.util.Map<String, ?> params) {
    return createIndex(spark, location, column, VectorIndexSpec.fromMap(params));
  }

  /**
   * Brings index {@code name} up to date with the fragments appended since it was built. A vector
   * index gets one delta segment encoded with its existing model (or, with {@code retrain}, a new
   * model over every fragment replacing all segments); a scalar index (BTree, bitmap, zone map,
   * bloom filter) gets new segments over the unindexed fragments only, in Spark tasks (or, with
   * {@code retrain}, is rebuilt over every fragment). Returns the version afterwards (unchanged
   * when nothing was unindexed).
   */
  public static long optimize(SparkSession spark, String location, String name, boolean retrain) {
    Configuration conf = LancePathCatalog.hadoopConf();
    try (Dataset ds =
        Dataset.open(
            HadoopFileIO.qualify(location, conf), OpenOptions.defaults().withHadoopConf(conf))) {
      List<IndexSegment> segments = ds.indexes().segments(name);
      boolean scalar = !segments.isEmpty() && ScalarIndexBuilder.builds(segments.get(0).type());
      Dataset after;
      if (scalar && retrain) {
        ScalarBuildParams params = ScalarIndexBuild.paramsOf(ds, name).withReplace(true);
        after =
            ScalarIndexBuild.create(
                ds,
                params,
                rowsPerSegment(spark),
                tasks -> writeScalarSegments(spark, conf, tasks));
      } else if (scalar) {
        after =
            ScalarIndexBuild.optimize(
                ds, name, rowsPerSegment(spark), tasks -> writeScalarSegments(spark, conf, tasks));
      } else {
        after = IndexBuild.optimize(ds, name, retrain, rowsPerSegment(spark), runner(spark, conf));
      }
      long version = after.version();
      if (after != ds) {
        after.close();
      }
      return version;
    }
  }

  /**
   * Builds scalar index {@code params.name()} of {@code params.type()} over every fragment of the
   * latest version of the dataset at {@code location} in Spark tasks (a BTree: one task per group
   * of fragments; the other kinds: one task writing the whole segment) and commits it; returns the
   * new version.
   */
  public static long createScalarIndex(
      SparkSession spark, String location, ScalarBuildParams params) {
    Configuration conf = LancePathCatalog.hadoopConf();
    try (Dataset ds =
        Dataset.open(
            HadoopFileIO.qualify(location, conf), OpenOptions.defaults().withHadoopConf(conf))) {
      try (Dataset created =
          ScalarIndexBuild.create(
              ds,
              params,
              rowsPerSegment(spark),
              tasks -> writeScalarSegments(spark, conf, tasks))) {
        return created.version();
      }
    }
  }

  /** {@value #ROWS_PER_SEGMENT_CONF}, checked. */
  static long rowsPerSegment(SparkSession spark) {
    long rowsPerSegment =
        Long.parseLong(
            spark
                .conf()
                .get(ROWS_PER_SEGMENT_CONF, String.valueOf(DEFAULT_ROWS_PER_SEGMENT))
                .trim());
    if (rowsPerSegment < 1) {
      throw new InvalidInputException(
          "Cannot build an index from Spark: "
              + ROWS_PER_SEGMENT_CONF
              + " must be at least 1,"
              + " got "
              + rowsPerSegment
              + ".");
    }
    return rowsPerSegment;
  }

  /**
   * One Spark task per group of fragments writes that group's segment with the model broadcast from
   * the driver.
   */
  static IndexBuild.TaskRunner runner(SparkSession spark, Configuration conf) {
    return (model, tasks) -> writeSegments(spark, conf, model, tasks);
  }

  private static List<WrittenSegment> writeSegments(
      SparkSession spark, Configuration conf, IndexModel model, List<IndexBuildTask> tasks) {
    IndexBuildTask first = tasks.get(0);
    SerializableConfiguration shipped = new SerializableConfiguration(conf);
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
    Broadcast<byte[]> broadcast = jsc.broadcast(model.toBytes());
    LOG.info(
        "Writing {} index of {}@v{} as {} segment(s), one Spark task each",
        model.type(),
        first.location(),
        first.version(),
        tasks.size());
    List<byte[]> shippedTasks = new ArrayList<>(tasks.size());
    tasks.forEach(t -> shippedTasks.add(t.toBytes()));
    try {
      return onExecutors(jsc, shippedTasks, task -> writeSegment(shipped, broadcast.value(), task));
    } finally {
      broadcast.destroy();
    }
  }

  /**
   * Runs {@code write} on each task's bytes, one Spark task each, and reads the segments they
   * return, in task order ({@code collect()} keeps the order of the list).
   */
  private static List<WrittenSegment> onExecutors(
      JavaSparkContext jsc,
      List<byte[]> tasks,
      org.apache.spark.api.java.function.Function<byte[], byte[]> write) {
    List<byte[]> entries = jsc.parallelize(tasks, tasks.size()).map(write).collect();
    List<WrittenSegment> out = new ArrayList<>(entries.size());
    for (byte[] e : entries) {
      out.add(WrittenSegment.fromBytes(e));
    }
    return out;
  }

  private static List<WrittenSegment> writeScalarSegments(
      SparkSession spark, Configuration conf, List<ScalarIndexBuildTask> tasks) {
    ScalarIndexBuildTask first = tasks.get(0);
    LOG.info(
        "Writing scalar index {} of {}@v{} as {} segment(s), one Spark task each",
        first.indexName(),
        first.location(),
        first.version(),
        tasks.size());
    SerializableConfiguration shipped = new SerializableConfiguration(conf);
    List<byte[]> shippedTasks = new ArrayList<>(tasks.size());
    tasks.forEach(t -> shippedTasks.add(t.toBytes()));
    return onExecutors(
        JavaSparkContext.fromSparkContext(spark.sparkContext()),
        shippedTasks,
        task -> writeScalarSegment(shipped, task));
  }

  /** In an executor: the scalar index segment of one task, written; returns it as bytes. */
  private static byte[] writeScalarSegment(SerializableConfiguration conf, byte[] bytes) {
    ScalarIndexBuildTask task = ScalarIndexBuildTask.fromBytes(bytes);
    LOG.info(
        "Writing the scalar index segment of fragments {} ({} rows) of {}@v{}",
        task.fragments(),
        task.liveRows(),
        task.location(),
        task.version());
    Dataset ds = Dataset.openCached(task.location(), task.version(), conf.get());
    return task.run(ds).toBytes();
  }

  /** In an executor: the segment of one task, written; returns it as bytes. */
  private static byte[] writeSegment(SerializableConfiguration conf, byte[] model, byte[] bytes) {
    IndexBuildTask task = IndexBuildTask.fromBytes(bytes);
    LOG.info(
        "Writing the index segment of fragments {} ({} rows) of {}@v{}",
        task.fragments(),
        task.liveRows(),
        task.location(),
        task.version());
    Dataset ds = Dataset.openCached(task.location(), task.version(), conf.get());
    return task.run(ds, IndexModel.fromBytes(model)).toBytes();
  }
}
