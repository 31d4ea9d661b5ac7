package dev.lancelot.spark.index;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.LancelotException;
import dev.lancelot.engine.OpenOptions;
import dev.lancelot.engine.format.proto.TableProtos.DataFragment;
import dev.lancelot.engine.index.vector.VectorIndexSpec;
import dev.lancelot.engine.index.vector.VectorIndexes;
import dev.lancelot.engine.index.vector.build.EncodedShard;
import dev.lancelot.engine.index.vector.build.TrainedModel;
import dev.lancelot.engine.index.vector.build.VectorIndexBuilder;
import dev.lancelot.engine.index.vector.hnsw.HnswBuildParams;
import dev.lancelot.engine.io.HadoopFileIO;
import dev.lancelot.engine.index.vector.store.IndexSegmentWriter;
import dev.lancelot.spark.JavaSerialized;
import dev.lancelot.spark.LancePathCatalog;
import dev.lancelot.spark.SerializableConfiguration;
import java.io.Serializable;
import java.util.List;
import java.util.stream.IntStream;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Vector index creation from Spark (SPEC S7): the driver trains the model on a sample (IVF
 * centroids and the PQ codebook or SQ bounds, exactly as a local build), each fragment is assigned
 * and encoded by one Spark task where the data is, the driver gathers the encoded rows (codes, not
 * vectors, for quantized types), one Spark task per IVF partition builds its HNSW graph when the
 * type has them, and the driver writes one index segment in Lance's layout and commits it. The
 * segment equals the one a local build with the same spec (and seed) writes. {@link #optimize}
 * adds a delta segment for fragments appended since, encoded the same way with the index's
 * existing model.
 *
 * <pre>{@code
 * long version = LanceIndexBuilder.createIndex(spark, "s3a://bucket/items", "vector",
 *     VectorIndexSpec.of(IndexType.IVF_PQ, DistanceMetric.L2).withNumPartitions(256).withNumSubVectors(16));
 * }</pre>
 */
public final class LanceIndexBuilder {
  private static final Logger LOG = LoggerFactory.getLogger(LanceIndexBuilder.class);

  private LanceIndexBuilder() {}

  /**
   * Builds index {@code spec.nameFor(column)} over every fragment of the latest version of the
   * dataset at {@code location} and commits it; returns the new version.
   */
  public static long createIndex(SparkSession spark, String location, String column, VectorIndexSpec spec) {
    Configuration conf = LancePathCatalog.hadoopConf();
    try (Dataset ds = Dataset.open(HadoopFileIO.qualify(location, conf), OpenOptions.defaults().withHadoopConf(conf));
         Dataset created = VectorIndexes.create(ds, column, spec, distributed(spark, conf))) {
      return created.version();
    }
  }

  /**
   * {@link #createIndex(SparkSession, String, String, VectorIndexSpec)} with the spec as named
   * parameters ({@link VectorIndexSpec#fromMap}: {@code index_type}, {@code metric},
   * {@code num_partitions}, ...), for callers without the engine's types (e.g. PySpark through
   * {@code spark._jvm}).
   */
  public static long createIndex(SparkSession spark, String location, String column, java.util.Map<String, ?> params) {
    return createIndex(spark, location, column, VectorIndexSpec.fromMap(params));
  }

  /**
   * Brings index {@code name} up to date with the fragments appended since it was built: one
   * delta segment encoded with its existing model (or, with {@code retrain}, a new model over every
   * fragment replacing all segments). Returns the version afterwards (unchanged when nothing was
   * unindexed).
   */
  public static long optimize(SparkSession spark, String location, String name, boolean retrain) {
    Configuration conf = LancePathCatalog.hadoopConf();
    try (Dataset ds = Dataset.open(HadoopFileIO.qualify(location, conf), OpenOptions.defaults().withHadoopConf(conf))) {
      Dataset after = VectorIndexes.optimize(ds, name, retrain, distributed(spark, conf));
      long version = after.version();
      if (after != ds) {
        after.close();
      }
      return version;
    }
  }

  /**
   * Encodes one fragment per Spark task, on the dataset version the driver planned on, and builds
   * the HNSW graph of each IVF partition in a task of its own.
   */
  static VectorIndexBuilder.ShardEncoder distributed(SparkSession spark, Configuration conf) {
    return new SparkEncoder(spark, conf);
  }

  private static final class SparkEncoder implements VectorIndexBuilder.ShardEncoder {
    private final SparkSession spark;
    private final Configuration conf;

    SparkEncoder(SparkSession spark, Configuration conf) {
      this.spark = spark;
      this.conf = conf;
    }

    @Override
    public List<EncodedShard> encode(Dataset dataset, String column, TrainedModel model,
        List<DataFragment> fragments) {
      return encodeFragments(spark, conf, dataset, column, model, fragments);
    }

    @Override
    public List<IndexSegmentWriter.Partition> buildGraphs(TrainedModel model,
        List<IndexSegmentWriter.Partition> partitions, HnswBuildParams params) {
      if (partitions.isEmpty()) {
        return List.of();
      }
      JavaSparkContext jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
      Broadcast<JavaSerialized<TrainedModel>> broadcast = jsc.broadcast(JavaSerialized.of(model));
      // each task gets one partition's number and codes (or vectors); collect() keeps the order
      List<JavaSerialized<GraphTask>> tasks = IntStream.range(0, partitions.size())
          .mapToObj(p -> JavaSerialized.of(new GraphTask(p, partitions.get(p)))).toList();
      LOG.info("Building the HNSW graphs of {} IVF partitions in {} Spark tasks", partitions.size(), partitions.size());
      try {
        return jsc.parallelize(tasks, partitions.size())
            .map(task -> JavaSerialized.of(VectorIndexBuilder.withGraph(broadcast.value().get(),
                task.get().partition(), params, task.get().number())))
            .collect().stream().map(JavaSerialized::get).toList();
      } finally {
        broadcast.destroy();
      }
    }
  }

  /** The input of one graph task: an IVF partition's rows and its number (which seeds its graph). */
  record GraphTask(int number, IndexSegmentWriter.Partition partition) implements Serializable {}

  private static List<EncodedShard> encodeFragments(SparkSession spark, Configuration conf, Dataset dataset,
      String column, TrainedModel model, List<DataFragment> fragments) {
    List<Long> ids = fragments.stream().map(DataFragment::getId).toList();
    if (ids.isEmpty()) {
      return List.of();
    }
    String location = dataset.location();
    long version = dataset.version();
    SerializableConfiguration shipped = new SerializableConfiguration(conf);
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
    Broadcast<JavaSerialized<TrainedModel>> broadcast = jsc.broadcast(JavaSerialized.of(model));
    LOG.info("Encoding {} fragments of {}@v{} for a {} index in {} Spark tasks", ids.size(), location, version,
        model.type(), ids.size());
    try {
      // collect() keeps the order of the list, so the shards come back in fragment order
      return jsc.parallelize(ids, ids.size()).map(id -> JavaSerialized.of(encodeOne(location, version, shipped, column,
          broadcast.value().get(), id))).collect().stream().map(JavaSerialized::get).toList();
    } finally {
      broadcast.destroy();
    }
  }

  private static EncodedShard encodeOne(String location, long version, SerializableConfiguration conf, String column,
      TrainedModel model, long fragmentId) {
    try (Dataset ds = Dataset.open(location, OpenOptions.defaults().withVersion(version).withHadoopConf(conf.get()))) {
      DataFragment fragment = ds.snapshot().fragment(fragmentId).orElseThrow(() -> new LancelotException(
          "Cannot encode fragment " + fragmentId + " of " + location + "@v" + version + ": the version has no such"
              + " fragment"));
      return VectorIndexBuilder.encode(ds, column, model, List.of(fragment));
    }
  }
}
