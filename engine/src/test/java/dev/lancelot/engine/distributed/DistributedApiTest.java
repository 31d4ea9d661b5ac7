package dev.lancelot.engine.distributed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.FragmentMetadata;
import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.Scanner;
import dev.lancelot.engine.WriteMode;
import dev.lancelot.engine.WriteOptions;
import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.index.vector.VectorIndexSpec;
import dev.lancelot.engine.query.VectorQuery;
import dev.lancelot.engine.query.VectorSearch;
import dev.lancelot.engine.query.VectorSearchResult;
import dev.lancelot.engine.schema.LanceSchema;
import dev.lancelot.engine.testing.ClusteredData;
import dev.lancelot.engine.vector.DistanceMetric;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A whole distributed write, index build, scan, vector search and compaction run through the public
 * distributed API alone, without Spark: every piece that would cross a process boundary goes
 * through its bytes, tasks run in shuffled order on datasets from {@link Dataset#openCached}, and
 * the answers equal the local engine's.
 */
class DistributedApiTest {
  static final int DIM = 16;
  static final Configuration CONF = new Configuration();
  static BufferAllocator allocator;
  @TempDir static Path dir;
  static String location;

  @BeforeAll
  static void writeAndIndex() {
    allocator = new RootAllocator();
    location = dir.resolve("items.lance").toUri().toString();
    // Three write tasks create the dataset, the coordinator commits them as one version.
    LanceSchema schema = newSchema();
    long created = commit(writeTasks(schema, 0, 3, 700), WriteMode.CREATE, 0);
    assertThat(created).isEqualTo(1);
    try (Dataset ds = Dataset.open(location)) {
      assertThat(ds.countRows()).isEqualTo(2100);
      assertThat(ds.fragments()).hasSize(3);
      // The index: one task per fragment (rows per segment 700), model and tasks shipped as bytes.
      List<String> ran = Collections.synchronizedList(new ArrayList<>());
      try (Dataset indexed =
          IndexBuild.create(
              ds,
              "vector",
              VectorIndexSpec.of(IndexType.IVF_PQ, DistanceMetric.L2)
                  .withNumPartitions(4)
                  .withNumSubVectors(4),
              700,
              (model, tasks) -> {
                byte[] shippedModel = model.toBytes();
                List<WrittenSegment> out = new ArrayList<>();
                for (IndexBuildTask task : tasks) {
                  IndexBuildTask remote = IndexBuildTask.fromBytes(task.toBytes());
                  ran.add(remote.fragments().toString());
                  Dataset at = Dataset.openCached(remote.location(), remote.version(), CONF);
                  WrittenSegment s = remote.run(at, IndexModel.fromBytes(shippedModel));
                  out.add(WrittenSegment.fromBytes(s.toBytes()));
                }
                return out;
              })) {
        assertThat(ran).containsExactly("[0]", "[1]", "[2]");
        assertThat(indexed.indexes().segments("vector_idx")).hasSize(3);
        // An append after the index: an unindexed fragment, searched flat.
        LanceSchema target = indexed.lanceSchema();
        assertThat(commit(writeTasks(target, 2100, 1, 300), WriteMode.APPEND, indexed.version()))
            .isEqualTo(indexed.version() + 1);
      }
    }
  }

  @AfterAll
  static void close() {
    allocator.close();
  }

  /** Each task writes {@code rows} rows with its own writer; the fragments come back as bytes. */
  static List<byte[]> writeTasks(LanceSchema schema, long firstId, int tasks, int rows) {
    byte[] shippedSchema = DistributedWrite.schemaToBytes(schema);
    List<byte[]> out = new ArrayList<>();
    for (int t = 0; t < tasks; t++) {
      LanceSchema target = DistributedWrite.schemaFromBytes(shippedSchema);
      try (FragmentWriter w =
              DistributedWrite.newFragmentWriter(
                  location, CONF, target, WriteOptions.of(WriteMode.APPEND));
          VectorSchemaRoot batch =
              ClusteredData.generate(allocator, firstId + (long) t * rows, rows, DIM, 8, 3)) {
        w.write(batch);
        for (FragmentMetadata f : w.finish()) {
          out.add(f.toBytes());
        }
      }
    }
    return out;
  }

  static LanceSchema newSchema() {
    try (VectorSchemaRoot one = ClusteredData.generate(allocator, 0, 1, DIM, 8, 3)) {
      return LanceSchema.fromArrow(one.getSchema());
    }
  }

  static long commit(List<byte[]> shipped, WriteMode mode, long readVersion) {
    List<FragmentMetadata> fragments = new ArrayList<>();
    shipped.forEach(b -> fragments.add(FragmentMetadata.fromBytes(b)));
    LanceSchema schema;
    try (Dataset latest = readVersion > 0 ? Dataset.open(location) : null) {
      schema = latest != null ? latest.lanceSchema() : newSchema();
    }
    try (Dataset committed =
        DistributedWrite.commit(location, CONF, schema, fragments, mode, readVersion)) {
      return committed.version();
    }
  }

  @Test
  void aSearchRunAsTasksAnswersExactlyAsTheLocalEngine() {
    try (Dataset ds = Dataset.open(location)) {
      float[] q = ClusteredData.centers(8, DIM, 3)[5];
      VectorQuery query =
          VectorQuery.builder("vector")
              .vector(q)
              .k(10)
              .nprobes(2)
              .refineFactor(3)
              .filter("tenant_id < 50")
              .prefilter(true)
              .columns("id", "tenant_id")
              .build();
      VectorSearchPlan plan =
          VectorSearchPlan.fromBytes(VectorSearchPlan.plan(ds, query).toBytes());
      assertThat(plan.taskCount()).isEqualTo(4); // three segments, one unindexed fragment
      assertThat(plan.tasks().stream().filter(SearchTask::isIndexSegment)).hasSize(3);
      List<SearchTask> tasks = new ArrayList<>(plan.tasks());
      Collections.shuffle(tasks, new Random(7));
      List<TaskResult> results = new ArrayList<>();
      for (SearchTask t : tasks) {
        SearchTask remote = SearchTask.fromBytes(t.toBytes());
        assertThat(remote.files(ds)).isNotEmpty();
        Dataset at = Dataset.openCached(remote.location(), remote.version(), CONF);
        results.add(TaskResult.fromBytes(remote.run(at).toBytes()));
      }
      try (VectorSearchResult distributed = plan.finish(ds, results, System.nanoTime());
          VectorSearchResult local = VectorSearch.search(ds, query)) {
        assertThat(distributed.rowCount()).isEqualTo(10);
        assertThat(rows(distributed.rows())).isEqualTo(rows(local.rows()));
        assertThat(distributed.unitStats()).hasSize(4);
        assertThat(plan.resultSchema(ds)).isEqualTo(distributed.rows().getSchema());
      }
    }
  }

  @Test
  void aQueryFrameGetsEachQuerysGlobalTopK() {
    try (Dataset ds = Dataset.open(location)) {
      VectorQuery params =
          VectorQuery.builder("vector").k(5).nprobes(2).columns("id").buildParameters();
      VectorSearchPlan plan = VectorSearchPlan.plan(ds, params);
      float[][] centers = ClusteredData.centers(8, DIM, 3);
      float[][] block = {centers[0], centers[3], centers[6]};
      List<List<QueryCandidates>> perQuery = new ArrayList<>();
      for (int i = 0; i < block.length; i++) {
        perQuery.add(new ArrayList<>());
      }
      for (SearchTask t : plan.tasks()) {
        TaskResult r = t.run(Dataset.openCached(location, ds.version(), CONF), block);
        for (int i = 0; i < block.length; i++) {
          perQuery.get(i).add(QueryCandidates.fromBytes(r.candidates(i, false).toBytes()));
        }
      }
      try (VectorSchemaRoot merged = plan.mergeQueries(ds, perQuery)) {
        assertThat(merged.getSchema()).isEqualTo(plan.resultSchema(ds));
        IntVector queryIndex = (IntVector) merged.getVector(0);
        for (int i = 0; i < block.length; i++) {
          List<String> mine = new ArrayList<>();
          for (String row : rows(merged)) {
            if (row.startsWith(i + "|")) {
              mine.add(row.substring(row.indexOf('|') + 1));
            }
          }
          VectorQuery one = params.toBuilder().vector(block[i]).build();
          try (VectorSearchResult local = VectorSearch.search(ds, one)) {
            assertThat(mine).as("query %d", i).isEqualTo(rows(local.rows()));
          }
        }
        assertThat(queryIndex.getValueCount()).isEqualTo(15);
      }
    }
  }

  @Test
  void scanTasksCoverEveryRowAndTheStatisticsAgree() {
    List<byte[]> taskBytes = new ArrayList<>();
    byte[] planBytes;
    long expectedIdSum = 0;
    long expectedRows = 0;
    try (Dataset ds = Dataset.open(location)) {
      ScanPlan plan =
          ScanPlan.plan(
              ds.newScan().columns("id").filter("id >= 100").withRowAddress(true).batchSize(300),
              500);
      DatasetStatistics stats = plan.statistics();
      assertThat(stats.exactLiveRows()).hasValue(2400);
      assertThat(stats.dataFileBytes(List.of("id")).getAsLong()).isPositive();
      assertThat(plan.tasks()).hasSizeGreaterThan(ds.fragments().size()); // ranges of 500 rows
      plan.tasks().forEach(t -> taskBytes.add(ScanPlan.taskToBytes(t)));
      planBytes = plan.toBytes();
      try (var batches = ds.newScan().columns("id").filter("id >= 100").batches()) {
        while (batches.hasNext()) {
          BigIntVector ids = (BigIntVector) batches.next().getVector("id");
          expectedRows += ids.getValueCount();
          for (int i = 0; i < ids.getValueCount(); i++) {
            expectedIdSum += ids.get(i);
          }
        }
      }
    }
    // a worker: the shared part and one task at a time, from bytes, on a dataset of its own
    ScanPlan worker = ScanPlan.fromBytes(planBytes);
    assertThatThrownBy(worker::tasks).isInstanceOf(IllegalStateException.class);
    long rows = 0;
    long idSum = 0;
    try (Dataset ds = Dataset.open(location);
        var allocator = new RootAllocator()) {
      for (byte[] bytes : taskBytes) {
        try (var batches = worker.execute(ds, ScanPlan.taskFromBytes(bytes), allocator)) {
          while (batches.hasNext()) {
            var batch = batches.next();
            assertThat(batch.getRowCount()).isLessThanOrEqualTo(300);
            assertThat(batch.getSchema().getFields())
                .extracting(f -> f.getName())
                .containsExactly("id", Scanner.ROW_ADDRESS);
            BigIntVector ids = (BigIntVector) batch.getVector("id");
            for (int i = 0; i < batch.getRowCount(); i++) {
              idSum += ids.get(i);
            }
            rows += batch.getRowCount();
          }
        }
      }
    }
    assertThat(expectedRows).isBetween(1L, 2399L); // the filter keeps some rows, not all
    assertThat(rows).isEqualTo(expectedRows);
    assertThat(idSum).isEqualTo(expectedIdSum);
    assertThatThrownBy(() -> ScanPlan.taskFromBytes(planBytes))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("another kind");
    assertThatThrownBy(() -> ScanPlan.taskFromBytes(Arrays.copyOf(taskBytes.get(0), 10)))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("expected 26 bytes");
  }

  @Test
  void bytesOfOneKindAreRefusedAsAnother() {
    try (Dataset ds = Dataset.open(location)) {
      VectorSearchPlan plan =
          VectorSearchPlan.plan(
              ds, VectorQuery.builder("vector").vector(new float[DIM]).k(1).build());
      byte[] task = plan.tasks().get(0).toBytes();
      assertThatThrownBy(() -> VectorSearchPlan.fromBytes(task))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("another kind");
      assertThatThrownBy(() -> TaskResult.fromBytes(new byte[] {3}))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("too short");
      assertThatThrownBy(() -> FragmentMetadata.fromBytes(new byte[] {1, 2, 3}))
          .isInstanceOf(InvalidInputException.class);
    }
  }

  @Test
  void aTaskRunOnAnotherVersionIsRefused() {
    try (Dataset ds = Dataset.open(location)) {
      SearchTask task =
          VectorSearchPlan.plan(
                  ds, VectorQuery.builder("vector").vector(new float[DIM]).k(1).build())
              .tasks()
              .get(0);
      try (Dataset older = ds.checkout(ds.version() - 1)) {
        assertThatThrownBy(() -> task.run(older)).hasMessageContaining("run on version");
      }
    }
  }

  @Test
  void aCompactionRunAsTasksEqualsTheLocalOne() throws Exception {
    // Two copies of the same history: small fragments, an index, deleted rows.
    String local = dir.resolve("compact-local.lance").toUri().toString();
    String remote = dir.resolve("compact-remote.lance").toUri().toString();
    for (String at : List.of(local, remote)) {
      for (int f = 0; f < 4; f++) {
        try (VectorSchemaRoot batch = ClusteredData.generate(allocator, f * 200L, 200, DIM, 8, 3);
            var reader =
                dev.lancelot.engine.testing.ArrowStreams.readerOf(allocator, List.of(batch))) {
          Dataset.write(at, reader, WriteOptions.of(f == 0 ? WriteMode.CREATE : WriteMode.APPEND))
              .close();
        }
      }
      try (Dataset ds = Dataset.open(at);
          Dataset indexed =
              dev.lancelot.engine.index.vector.VectorIndexes.create(
                  ds,
                  "vector",
                  VectorIndexSpec.of(IndexType.IVF_PQ, DistanceMetric.L2)
                      .withNumPartitions(2)
                      .withNumSubVectors(4));
          Dataset deleted = indexed.delete("id % 7 = 0")) {
        assertThat(deleted.countRows()).isEqualTo(800 - 115);
      }
    }
    dev.lancelot.engine.CompactionOptions options =
        dev.lancelot.engine.CompactionOptions.defaults().withTargetRowsPerFragment(300);
    try (Dataset ds = Dataset.open(local);
        Dataset compacted = ds.compact(options).dataset();
        Dataset before = Dataset.open(remote)) {
      CompactionPlan plan =
          CompactionPlan.fromBytes(CompactionPlan.plan(before, options).toBytes());
      assertThat(plan.isEmpty()).isFalse();
      List<CompactionTask> tasks = new ArrayList<>(plan.tasks());
      Collections.reverse(tasks);
      List<RewrittenGroup> rewritten = new ArrayList<>();
      for (CompactionTask t : tasks) {
        CompactionTask shipped = CompactionTask.fromBytes(t.toBytes());
        Dataset at = Dataset.openCached(shipped.location(), shipped.version(), CONF);
        rewritten.add(RewrittenGroup.fromBytes(shipped.run(at).toBytes()));
      }
      var result = plan.commit(before, rewritten);
      try (Dataset after = result.dataset()) {
        assertThat(result.committed()).isTrue();
        assertThat(after.fragments().size()).isEqualTo(compacted.fragments().size());
        assertThat(after.countRows()).isEqualTo(compacted.countRows());
        assertThat(ids(after)).isEqualTo(ids(compacted));
        VectorQuery q =
            VectorQuery.builder("vector")
                .vector(ClusteredData.centers(8, DIM, 3)[2])
                .k(10)
                .nprobes(1)
                .columns("id")
                .build();
        try (VectorSearchResult a = VectorSearch.search(after, q);
            VectorSearchResult b = VectorSearch.search(compacted, q)) {
          assertThat(rows(a.rows())).isEqualTo(rows(b.rows()));
          assertThat(a.explain()).contains("ann-");
        }
      }
      assertThatThrownBy(() -> plan.commit(before, rewritten.subList(0, 0)))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("was not rewritten");
    }
  }

  static List<Long> ids(Dataset ds) {
    List<Long> out = new ArrayList<>();
    try (var batches = ds.newScan().columns("id").batches()) {
      while (batches.hasNext()) {
        BigIntVector v = (BigIntVector) batches.next().getVector("id");
        for (int i = 0; i < v.getValueCount(); i++) {
          out.add(v.get(i));
        }
      }
    }
    return out;
  }

  /** Rows as "id|distance" (with a leading "query_index|" when present), in result order. */
  static List<String> rows(VectorSchemaRoot root) {
    List<String> out = new ArrayList<>();
    BigIntVector id = (BigIntVector) root.getVector("id");
    Float4Vector d = (Float4Vector) root.getVector("_distance");
    IntVector qi = (IntVector) root.getVector("query_index");
    for (int i = 0; i < root.getRowCount(); i++) {
      out.add((qi == null ? "" : qi.get(i) + "|") + id.get(i) + "|" + d.get(i));
    }
    return out;
  }
}
