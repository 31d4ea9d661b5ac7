package dev.lancelot.engine.index.scalar;

import static dev.lancelot.engine.index.scalar.BTreeTesting.indexAddresses;
import static dev.lancelot.engine.index.scalar.BTreeTesting.scanAddresses;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.LancelotException;
import dev.lancelot.engine.WriteMode;
import dev.lancelot.engine.WriteOptions;
import dev.lancelot.engine.distributed.ScalarIndexBuild;
import dev.lancelot.engine.distributed.ScalarIndexBuildTask;
import dev.lancelot.engine.distributed.WrittenSegment;
import dev.lancelot.engine.index.IndexSegment;
import dev.lancelot.engine.testing.ArrowStreams;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.roaringbitmap.RoaringBitmap;

/**
 * BTree builds run as tasks through the public distributed API, every task and segment through its
 * bytes and run on a dataset from {@link Dataset#openCached}, in shuffled order: the segments
 * answer every filter as a scan does, one group writes the single-process build's files, and bad
 * requests are refused before any task runs.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DistributedBTreeBuildTest {
  private static final Configuration CONF = new Configuration();
  private BufferAllocator allocator;

  @BeforeAll
  void setUp() {
    allocator = new RootAllocator();
  }

  @AfterAll
  void tearDown() {
    allocator.close();
  }

  /** Runs the tasks remotely, as a cluster would: bytes in, bytes out, in shuffled order. */
  private static ScalarIndexBuild.TaskRunner remote(List<List<Long>> ran) {
    return tasks -> {
      List<byte[]> shipped = new ArrayList<>();
      tasks.forEach(t -> shipped.add(t.toBytes()));
      List<Integer> order = new ArrayList<>();
      for (int i = 0; i < shipped.size(); i++) {
        order.add(i);
      }
      Collections.shuffle(order, new java.util.Random(7));
      byte[][] results = new byte[shipped.size()][];
      for (int i : order) {
        ScalarIndexBuildTask task = ScalarIndexBuildTask.fromBytes(shipped.get(i));
        Dataset at = Dataset.openCached(task.location(), task.version(), CONF);
        results[i] = task.run(at).toBytes();
      }
      List<WrittenSegment> out = new ArrayList<>();
      for (byte[] r : results) {
        out.add(WrittenSegment.fromBytes(r));
      }
      tasks.forEach(t -> ran.add(t.fragments()));
      return out;
    };
  }

  private Dataset writeFragments(Path dir, int fragments, int rowsPerFragment) {
    try (VectorSchemaRoot batch = BTreeTesting.mixed(allocator, 0, fragments * rowsPerFragment, 3);
        ArrowReader reader = ArrowStreams.readerOf(allocator, List.of(batch))) {
      return Dataset.write(
          dir.toUri().toString(),
          reader,
          WriteOptions.of(WriteMode.CREATE).withMaxRowsPerFile(rowsPerFragment));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  void segmentsWrittenByTasksAnswerEveryFilterAsAScanDoes(@TempDir Path dir) {
    List<List<Long>> ran = new ArrayList<>();
    try (Dataset written = writeFragments(dir, 4, 500);
        Dataset deleted = written.delete("i32 % 5 = 1");
        Dataset byI64 =
            ScalarIndexBuild.create(deleted, BTreeBuildParams.of("i64"), 900, remote(ran));
        Dataset byS =
            ScalarIndexBuild.create(
                byI64, BTreeBuildParams.of("s").withPageSize(64), 2_000, remote(ran))) {
      // ~400 live rows a fragment: two fragments a group at 900, all four at 2,000
      assertThat(ran).containsExactly(List.of(0L, 1L), List.of(2L, 3L), List.of(0L, 1L, 2L, 3L));
      List<IndexSegment> segments = byS.indexes().segments("i64_idx");
      assertThat(segments).hasSize(2);
      assertThat(byS.indexes().segments("s_idx")).hasSize(1);
      BTreeIndexStatistics stats = BTreeIndexStatistics.of(byS, "i64_idx");
      assertThat(stats.segments()).isEqualTo(2);
      assertThat(stats.rowsIndexed()).isEqualTo(byS.countRows());
      assertThat(stats.fragmentsCovered()).isEqualTo(RoaringBitmap.bitmapOf(0, 1, 2, 3));
      for (String filter :
          List.of(
              "i64 = 7",
              "i64 < 0",
              "i64 >= 100",
              "i64 BETWEEN -50 AND 50",
              "i64 IN (1, 2, 3, 1000000)",
              "i64 IS NULL",
              "i64 IS NOT NULL",
              "NOT (i64 < 10)",
              "s = 'abc'",
              "s >= 'user-1'",
              "s IS NULL",
              "s IN ('', 'é', 'zz')",
              "i64 > 3 AND s < 'b'",
              "i64 = 0 OR s = 'B'")) {
        assertThat(indexAddresses(byS, filter)).as(filter).isEqualTo(scanAddresses(byS, filter));
      }
    }
  }

  @Test
  void optimizeAddsSegmentsOverTheAppendedFragmentsOnly(@TempDir Path dir) throws Exception {
    List<List<Long>> ran = new ArrayList<>();
    try (Dataset ds = writeFragments(dir, 2, 500);
        Dataset built =
            ScalarIndexBuild.create(
                ds, BTreeBuildParams.of("i64").withPageSize(64), 2_000, remote(ran))) {
      IndexSegment first = built.indexes().segments("i64_idx").get(0);
      try (VectorSchemaRoot batch = BTreeTesting.mixed(allocator, 1000, 1000, 4);
          ArrowReader reader = ArrowStreams.readerOf(allocator, List.of(batch));
          Dataset appended =
              Dataset.write(
                  dir.toUri().toString(),
                  reader,
                  WriteOptions.of(WriteMode.APPEND).withMaxRowsPerFile(500));
          Dataset deleted = appended.delete("i32 % 7 = 2");
          Dataset optimized = ScalarIndexBuild.optimize(deleted, "i64_idx", 450, remote(ran))) {
        assertThat(ran)
            .as("the build, then one task per appended fragment")
            .containsExactly(List.of(0L, 1L), List.of(2L), List.of(3L));
        assertThat(optimized.version()).isEqualTo(deleted.version() + 1);
        List<IndexSegment> segments = optimized.indexes().segments("i64_idx");
        assertThat(segments).hasSize(3);
        assertThat(segments.get(0).uuid()).as("the built segment is kept").isEqualTo(first.uuid());
        assertThat(optimized.indexes().unindexedFragments("i64_idx")).isEmpty();
        BTreeIndexStatistics stats = BTreeIndexStatistics.of(optimized, "i64_idx");
        assertThat(stats.pageSize()).as("the index's page size").isEqualTo(64);
        for (String filter :
            List.of(
                "i64 = 7", "i64 < 0", "i64 BETWEEN -50 AND 50", "i64 IS NULL", "NOT (i64 < 10)")) {
          assertThat(indexAddresses(optimized, filter))
              .as(filter)
              .isEqualTo(scanAddresses(optimized, filter))
              .isEqualTo(LanceBTreeScans.scan(allocator, dir, filter, true, "i64").addresses());
        }
        // nothing unindexed: the same dataset, no version
        assertThat(ScalarIndexBuild.optimize(optimized, "i64_idx", 450, remote(ran)))
            .isSameAs(optimized);
        assertThatThrownBy(() -> ScalarIndexBuild.optimize(optimized, "i64_idz", 450, remote(ran)))
            .isInstanceOf(InvalidInputException.class)
            .hasMessageContaining("Cannot optimize index \"i64_idz\"")
            .hasMessageContaining("did you mean \"i64_idx\"");
        assertThat(ran).hasSize(3);
      }
    }
  }

  @Test
  void oneGroupWritesTheFilesOfTheSingleProcessBuild(@TempDir Path dir) throws Exception {
    List<List<Long>> ran = new ArrayList<>();
    try (Dataset ds = writeFragments(dir, 3, 300);
        Dataset local = BTreeIndexBuilder.build(ds, BTreeBuildParams.of("f64").withName("local"));
        Dataset both =
            ScalarIndexBuild.create(
                local, BTreeBuildParams.of("f64").withName("tasks"), Long.MAX_VALUE, remote(ran))) {
      assertThat(ran).containsExactly(List.of(0L, 1L, 2L));
      Path indices = dir.resolve("_indices");
      for (String file : List.of("page_data.lance", "page_lookup.lance")) {
        byte[] a =
            Files.readAllBytes(
                indices
                    .resolve(both.indexes().segments("local").get(0).uuid().toString())
                    .resolve(file));
        byte[] b =
            Files.readAllBytes(
                indices
                    .resolve(both.indexes().segments("tasks").get(0).uuid().toString())
                    .resolve(file));
        assertThat(b).as(file).isEqualTo(a);
      }
    }
  }

  @Test
  void anEmptyVersionGetsOneEmptySegment(@TempDir Path dir) {
    try (Dataset ds = writeFragments(dir, 1, 10);
        Dataset empty = ds.delete("true");
        Dataset indexed =
            ScalarIndexBuild.create(
                empty, BTreeBuildParams.of("i32"), 100, remote(new ArrayList<>()))) {
      assertThat(BTreeIndexStatistics.of(indexed, "i32_idx").rowsIndexed()).isZero();
      assertThat(indexAddresses(indexed, "i32 = 1")).isEmpty();
    }
  }

  @Test
  void badRequestsAreRefusedBeforeAnyTaskRuns(@TempDir Path dir) {
    AtomicInteger runs = new AtomicInteger();
    ScalarIndexBuild.TaskRunner counting =
        tasks -> {
          runs.incrementAndGet();
          throw new AssertionError("no task should run");
        };
    try (Dataset ds = writeFragments(dir, 2, 50);
        Dataset indexed =
            ScalarIndexBuild.create(
                ds, BTreeBuildParams.of("i32"), 100, remote(new ArrayList<>()))) {
      assertThatThrownBy(
              () -> ScalarIndexBuild.create(indexed, BTreeBuildParams.of("i32"), 0, counting))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("rows per segment must be at least 1");
      assertThatThrownBy(
              () -> ScalarIndexBuild.create(indexed, BTreeBuildParams.of("i32"), 100, counting))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("already exists");
      assertThatThrownBy(
              () -> ScalarIndexBuild.create(indexed, BTreeBuildParams.of("vec"), 100, counting))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("cannot be indexed by a BTree");
      assertThatThrownBy(
              () -> ScalarIndexBuild.create(indexed, BTreeBuildParams.of("nope"), 100, counting))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("no such column");
      assertThatThrownBy(() -> ScalarIndexBuildTask.fromBytes(new byte[] {13, 1, 0}))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("scalar index build task");
      assertThat(runs).hasValue(0);
      // replacing drops the old segments in the same version
      try (Dataset replaced =
          ScalarIndexBuild.create(
              indexed,
              BTreeBuildParams.of("i32").withReplace(true),
              50,
              remote(new ArrayList<>()))) {
        assertThat(replaced.indexes().segments("i32_idx")).hasSize(2);
        assertThat(indexAddresses(replaced, "i32 > 3"))
            .isEqualTo(scanAddresses(replaced, "i32 > 3"));
      }
    }
  }

  @Test
  void aFailedTaskCommitsNothing(@TempDir Path dir) {
    try (Dataset ds = writeFragments(dir, 2, 50)) {
      long before = ds.version();
      assertThatThrownBy(
              () ->
                  ScalarIndexBuild.create(
                      ds,
                      BTreeBuildParams.of("i32"),
                      50,
                      tasks -> {
                        throw new LancelotException("executor lost");
                      }))
          .hasMessageContaining("executor lost");
      try (Dataset latest = Dataset.open(dir.toUri().toString())) {
        assertThat(latest.version()).isEqualTo(before);
        assertThat(latest.indexes().segments("i32_idx")).isEmpty();
      }
    }
  }
}
