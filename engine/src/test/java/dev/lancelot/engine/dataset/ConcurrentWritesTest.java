package dev.lancelot.engine.dataset;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.CommitConflictException;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.VersionInfo;
import dev.lancelot.engine.WriteMode;
import dev.lancelot.engine.WriteOptions;
import dev.lancelot.engine.testing.ArrowStreams;
import dev.lancelot.engine.testing.LanceOracle;
import dev.lancelot.engine.testing.StandardData;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.LongStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** F4 on the Dataset API: concurrent writers never lose data. */
@Tag("oracle")
class ConcurrentWritesTest {
  static BufferAllocator allocator;

  @BeforeAll
  static void setUp() {
    allocator = new RootAllocator();
  }

  @AfterAll
  static void tearDown() {
    allocator.close();
  }

  static Dataset write(Path dir, long firstId, int rows, WriteMode mode) {
    try (VectorSchemaRoot batch = StandardData.generate(allocator, firstId, rows, 8, 3);
        ArrowReader reader = ArrowStreams.readerOf(allocator, List.of(batch))) {
      return Dataset.write(dir.toString(), reader, WriteOptions.of(mode));
    } catch (java.io.IOException e) {
      throw new RuntimeException(e);
    }
  }

  @Test
  void fourThreadsAppendingConcurrentlyLoseNothing(@TempDir Path tmp) throws Exception {
    Path dir = tmp.resolve("ds");
    write(dir, 0, 100, WriteMode.CREATE).close();
    int threads = 4;
    int appends = 6;
    CyclicBarrier start = new CyclicBarrier(threads);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    List<Future<?>> futures = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int thread = t;
      futures.add(
          pool.submit(
              () -> {
                start.await();
                for (int i = 0; i < appends; i++) {
                  write(dir, 1000 + (thread * appends + i) * 100L, 100, WriteMode.APPEND).close();
                }
                return null;
              }));
    }
    for (Future<?> f : futures) {
      f.get();
    }
    pool.shutdown();
    try (Dataset ds = Dataset.open(dir.toString())) {
      int total = 1 + threads * appends;
      assertThat(ds.version()).isEqualTo(total);
      assertThat(ds.versions())
          .extracting(VersionInfo::version)
          .containsExactlyElementsOf(LongStream.rangeClosed(1, total).boxed().toList());
      assertThat(ds.countRows()).isEqualTo(total * 100L);
      List<Long> expected = new ArrayList<>(LongStream.range(0, 100).boxed().toList());
      for (int k = 0; k < threads * appends; k++) {
        LongStream.range(1000 + k * 100L, 1000 + k * 100L + 100).forEach(expected::add);
      }
      List<Long> ids = LanceOracle.longColumn(allocator, dir, "id", null);
      assertThat(ids).containsExactlyInAnyOrderElementsOf(expected);
    }
  }

  @Test
  void concurrentDeletesOfTheSameFragmentAreMergedNotLost(@TempDir Path tmp) throws Exception {
    Path dir = tmp.resolve("ds");
    write(dir, 0, 1000, WriteMode.CREATE).close();
    try (Dataset a = Dataset.open(dir.toString());
        Dataset b = Dataset.open(dir.toString())) {
      a.delete("id < 10");
      b.delete("id >= 990"); // planned against version 1, re-planned over the first delete
    }
    try (Dataset ds = Dataset.open(dir.toString())) {
      assertThat(ds.version()).isEqualTo(3);
      assertThat(ds.countRows()).isEqualTo(980);
      assertThat(LanceOracle.countRows(allocator, dir)).isEqualTo(980);
    }
    // The re-planned delete removed the deletion file of its first, superseded plan.
    try (var files = java.nio.file.Files.list(dir.resolve("_deletions"))) {
      assertThat(files.count()).isEqualTo(2);
    }
  }

  @Test
  void appendRacingAnOverwriteFailsWithAConflict(@TempDir Path tmp) throws Exception {
    Path dir = tmp.resolve("ds");
    write(dir, 0, 100, WriteMode.CREATE).close();
    try (Dataset stale = Dataset.open(dir.toString())) {
      write(dir, 500, 10, WriteMode.OVERWRITE).close();
      assertThatThrownBy(() -> stale.delete("id < 50"))
          .isInstanceOf(CommitConflictException.class)
          .hasMessageContaining("concurrent overwrite was committed as version 2");
    }
    try (Dataset ds = Dataset.open(dir.toString())) {
      assertThat(ds.countRows()).isEqualTo(10);
    }
  }
}
