package dev.lancelot.spark.index;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.LancelotException;
import dev.lancelot.engine.OpenOptions;
import dev.lancelot.engine.index.vector.VectorIndexSpec;
import dev.lancelot.engine.internal.DatasetInternals;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFragment;
import dev.lancelot.engine.internal.format.proto.TableProtos.IndexMetadata;
import dev.lancelot.engine.internal.index.vector.build.TrainedModel;
import dev.lancelot.engine.internal.index.vector.build.VectorIndexBuilder;
import dev.lancelot.engine.internal.index.vector.build.VectorIndexOps;
import dev.lancelot.engine.io.HadoopFileIO;
import dev.lancelot.spark.JavaSerialized;
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
 * index's existing model.
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
        Dataset created = VectorIndexOps.create(ds, column, spec, distributed(spark, conf))) {
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
   * Brings index {@code name} up to date with the fragments appended since it was built: one delta
   * segment encoded with its existing model (or, with {@code retrain}, a new model over every
   * fragment replacing all segments). Returns the version afterwards (unchanged when nothing was
   * unindexed).
   */
  public static long optimize(SparkSession spark, String location, String name, boolean retrain) {
    Configuration conf = LancePathCatalog.hadoopConf();
    try (Dataset ds =
        Dataset.open(
            HadoopFileIO.qualify(location, conf), OpenOptions.defaults().withHadoopConf(conf))) {
      Dataset after = VectorIndexOps.optimize(ds, name, retrain, distributed(spark, conf));
      long version = after.version();
      if (after != ds) {
        after.close();
      }
      return version;
    }
  }

  /**
   * One task per group of fragments writes that group's segment with the model broadcast from the
   * driver.
   */
  static VectorIndexBuilder.SegmentWriter distributed(SparkSession spark, Configuration conf) {
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
    return (dataset, column, spec, model, fragments) ->
        writeSegments(spark, conf, dataset, column, spec, model, fragments, rowsPerSegment);
  }

  /**
   * Consecutive fragments with at most {@code rowsPerSegment} live rows together (at least one
   * each).
   */
  static List<long[]> groups(List<DataFragment> fragments, long rowsPerSegment) {
    List<long[]> out = new ArrayList<>();
    List<Long> current = new ArrayList<>();
    long rows = 0;
    for (DataFragment f : fragments) {
      long live =
          f.getPhysicalRows() - (f.hasDeletionFile() ? f.getDeletionFile().getNumDeletedRows() : 0);
      if (!current.isEmpty() && rows + live > rowsPerSegment) {
        out.add(current.stream().mapToLong(Long::longValue).toArray());
        current.clear();
        rows = 0;
      }
      current.add(f.getId());
      rows += live;
    }
    if (!current.isEmpty()) {
      out.add(current.stream().mapToLong(Long::longValue).toArray());
    }
    return out;
  }

  private static List<IndexMetadata> writeSegments(
      SparkSession spark,
      Configuration conf,
      Dataset dataset,
      String column,
      VectorIndexSpec spec,
      TrainedModel model,
      List<DataFragment> fragments,
      long rowsPerSegment) {
    List<long[]> groups = groups(fragments, rowsPerSegment);
    if (groups.isEmpty()) {
      return List.of();
    }
    String location = dataset.location();
    long version = dataset.version();
    SerializableConfiguration shipped = new SerializableConfiguration(conf);
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
    Broadcast<JavaSerialized<TrainedModel>> broadcast = jsc.broadcast(JavaSerialized.of(model));
    LOG.info(
        "Writing {} index \"{}\" of {}@v{} as {} segment(s) of at most {} rows, one Spark task each",
        spec.type(),
        spec.nameFor(column),
        location,
        version,
        groups.size(),
        rowsPerSegment);
    try {
      // collect() keeps the order of the list: segments come back in fragment order
      List<byte[]> entries =
          jsc.parallelize(groups, groups.size())
              .map(
                  group ->
                      writeSegment(
                          location, version, shipped, column, spec, broadcast.value().get(), group))
              .collect();
      List<IndexMetadata> out = new ArrayList<>(entries.size());
      for (byte[] e : entries) {
        out.add(IndexMetadata.parseFrom(e));
      }
      return out;
    } catch (com.google.protobuf.InvalidProtocolBufferException e) {
      throw new IllegalStateException("A segment task returned an unreadable manifest entry", e);
    } finally {
      broadcast.destroy();
    }
  }

  /** In an executor: the segment of one group of fragments, written; returns its manifest entry. */
  private static byte[] writeSegment(
      String location,
      long version,
      SerializableConfiguration conf,
      String column,
      VectorIndexSpec spec,
      TrainedModel model,
      long[] group) {
    try (Dataset ds =
        Dataset.open(
            location, OpenOptions.defaults().withVersion(version).withHadoopConf(conf.get()))) {
      List<DataFragment> fragments = new ArrayList<>(group.length);
      for (long id : group) {
        fragments.add(
            DatasetInternals.snapshot(ds)
                .fragment(id)
                .orElseThrow(
                    () ->
                        new LancelotException(
                            "Cannot index fragment "
                                + id
                                + " of "
                                + location
                                + "@v"
                                + version
                                + ": the version has no such fragment")));
      }
      return VectorIndexBuilder.build(ds, column, spec, fragments, model).metadata().toByteArray();
    }
  }
}
