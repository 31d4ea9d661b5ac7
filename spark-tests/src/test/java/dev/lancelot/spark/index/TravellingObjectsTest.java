package dev.lancelot.spark.index;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.FragmentMetadata;
import dev.lancelot.engine.WriteMode;
import dev.lancelot.engine.WriteOptions;
import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.index.vector.VectorIndexSpec;
import dev.lancelot.engine.internal.DatasetInternals;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFragment;
import dev.lancelot.engine.internal.index.vector.build.TrainedModel;
import dev.lancelot.engine.internal.index.vector.build.VectorIndexBuilder;
import dev.lancelot.engine.internal.query.DistributedSearch;
import dev.lancelot.engine.internal.query.exec.UnitResult;
import dev.lancelot.engine.query.VectorQuery;
import dev.lancelot.engine.testing.ArrowStreams;
import dev.lancelot.engine.testing.ClusteredData;
import dev.lancelot.engine.vector.DistanceMetric;
import dev.lancelot.spark.JavaSerialized;
import dev.lancelot.spark.LanceKryoRegistrator;
import dev.lancelot.spark.write.LanceCommitMessage;
import dev.lancelot.spark.write.LanceDeltaCommitMessage;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.spark.SparkConf;
import org.apache.spark.serializer.JavaSerializer;
import org.apache.spark.serializer.KryoSerializer;
import org.apache.spark.serializer.SerializerInstance;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import scala.reflect.ClassTag;
import scala.reflect.ClassTag$;

/**
 * Every object that crosses Spark's configured serializer (task results, broadcast values, elements
 * of {@code parallelize}) comes back equal to the original through Spark's {@code KryoSerializer}
 * (strict: registration required, with {@link LanceKryoRegistrator}), through Kryo without
 * registrator and through Spark's {@code JavaSerializer}.
 */
class TravellingObjectsTest {
  static final int DIM = 8;
  static final ClassTag<Object> ANY = ClassTag$.MODULE$.apply(Object.class);

  /** What travels, by what it is. */
  static final Map<String, Object> TRAVELLING = new LinkedHashMap<>();

  @BeforeAll
  static void buildRealObjects(@TempDir Path tmp) throws Exception {
    String location = tmp.resolve("ds").toString();
    try (BufferAllocator allocator = new RootAllocator();
        VectorSchemaRoot rows = ClusteredData.generate(allocator, 0, 600, DIM, 4, 3);
        ArrowReader reader = ArrowStreams.readerOf(allocator, List.of(rows))) {
      Dataset.write(location, reader, WriteOptions.of(WriteMode.CREATE).withMaxRowsPerFile(300))
          .close();
    }
    try (Dataset ds = Dataset.open(location)) {
      List<DataFragment> fragments = DatasetInternals.snapshot(ds).fragments();
      List<FragmentMetadata> written = new ArrayList<>();
      for (DataFragment f : fragments) {
        written.add(DatasetInternals.fragmentMetadata(f));
      }
      TRAVELLING.put("write task result", new LanceCommitMessage(written));
      TRAVELLING.put("empty write task result", new LanceCommitMessage(List.of()));
      org.roaringbitmap.RoaringBitmap deleted =
          org.roaringbitmap.RoaringBitmap.bitmapOf(0, 7, 70_000);
      TRAVELLING.put(
          "row-level task result",
          new LanceDeltaCommitMessage(
              written,
              Map.of(0L, deleted, 5_000_000_000L, org.roaringbitmap.RoaringBitmap.bitmapOf(3))));
      TRAVELLING.put(
          "row-level task result, deletes only",
          new LanceDeltaCommitMessage(List.of(), Map.of(1L, deleted)));

      TrainedModel pq =
          VectorIndexBuilder.train(
              ds,
              "vector",
              VectorIndexSpec.of(IndexType.IVF_PQ, DistanceMetric.L2)
                  .withNumPartitions(2)
                  .withNumSubVectors(4)
                  .withSeed(3),
              fragments);
      TrainedModel sq =
          VectorIndexBuilder.train(
              ds,
              "vector",
              VectorIndexSpec.of(IndexType.IVF_HNSW_SQ, DistanceMetric.COSINE)
                  .withNumPartitions(2)
                  .withSeed(3),
              fragments);
      TrainedModel flat =
          VectorIndexBuilder.train(
              ds,
              "vector",
              VectorIndexSpec.of(IndexType.IVF_FLAT, DistanceMetric.DOT)
                  .withNumPartitions(2)
                  .withSeed(3),
              fragments);
      TRAVELLING.put("broadcast IVF_PQ model", JavaSerialized.of(pq));
      TRAVELLING.put("broadcast IVF_HNSW_SQ model", JavaSerialized.of(sq));
      TRAVELLING.put("broadcast IVF_FLAT model", JavaSerialized.of(flat));

      TRAVELLING.put("segment task input (fragment ids)", new long[] {0, 1});
      // what parallelize keeps of its elements: an array of them
      TRAVELLING.put("segment groups, as parallelized", new long[][] {{0, 1}, {2}});
      TRAVELLING.put("search unit numbers, as parallelized", new Integer[] {0, 1, 2});
      byte[] entry =
          VectorIndexBuilder.build(
                  ds,
                  "vector",
                  VectorIndexSpec.of(IndexType.IVF_HNSW_SQ, DistanceMetric.COSINE)
                      .withNumPartitions(2)
                      .withSeed(3),
                  fragments.subList(0, 2),
                  sq)
              .metadata()
              .toByteArray();
      TRAVELLING.put("segment task result (manifest entry)", entry);

      VectorQuery q = VectorQuery.builder("vector").vector(new float[8]).k(3).nprobes(1).build();
      var plan = DistributedSearch.plan(ds, q);
      UnitResult unit = DistributedSearch.runUnit(ds, plan, plan.units().get(0));
      TRAVELLING.put("search unit task result", JavaSerialized.of(unit));
      TRAVELLING.put(
          "query-frame candidates (shuffled)", new scala.Tuple2<>(7L, new byte[] {1, 2, 3}));
    }
  }

  static SparkConf kryo(boolean strict) {
    SparkConf conf = new SparkConf(false).set("spark.serializer", KryoSerializer.class.getName());
    if (strict) {
      conf.set("spark.kryo.registrationRequired", "true")
          .set("spark.kryo.registrator", LanceKryoRegistrator.class.getName());
    }
    return conf;
  }

  static void assertRoundTrips(SerializerInstance serializer) {
    for (Map.Entry<String, Object> e : TRAVELLING.entrySet()) {
      Object copy = serializer.deserialize(serializer.serialize(e.getValue(), ANY), ANY);
      assertThat(copy)
          .as(e.getKey())
          .isNotSameAs(e.getValue())
          .isExactlyInstanceOf(e.getValue().getClass());
      // field by field, arrays element by element (records compare arrays by identity)
      assertThat(copy).as(e.getKey()).usingRecursiveComparison().isEqualTo(e.getValue());
      if (copy instanceof LanceCommitMessage || copy instanceof LanceDeltaCommitMessage) {
        assertThat(copy).as(e.getKey()).isEqualTo(e.getValue());
      }
    }
  }

  @Test
  void everyTravellingObjectRoundTripsThroughStrictKryo() {
    assertRoundTrips(new KryoSerializer(kryo(true)).newInstance());
  }

  @Test
  void everyTravellingObjectRoundTripsThroughKryoWithoutRegistrator() {
    assertRoundTrips(new KryoSerializer(kryo(false)).newInstance());
  }

  @Test
  void everyTravellingObjectRoundTripsThroughJavaSerialization() {
    assertRoundTrips(new JavaSerializer(new SparkConf(false)).newInstance());
  }

  @Test
  void strictKryoRefusesAnEngineRecordShippedUnwrapped() {
    // what the wrapper is for: Kryo 4 cannot write a record, and registration would not help
    Object model = ((JavaSerialized<?>) TRAVELLING.get("broadcast IVF_PQ model")).get();
    SerializerInstance strict = new KryoSerializer(kryo(true)).newInstance();
    assertThatThrownBy(() -> strict.serialize(model, ANY))
        .hasStackTraceContaining("Class is not registered")
        .hasStackTraceContaining(TrainedModel.class.getName());
    SerializerInstance lenient = new KryoSerializer(kryo(false)).newInstance();
    assertThatThrownBy(() -> lenient.serialize(model, ANY))
        .hasStackTraceContaining("can't get field offset on a record class");
  }
}
