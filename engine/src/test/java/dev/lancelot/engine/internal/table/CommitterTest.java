package dev.lancelot.engine.internal.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.CommitConflictException;
import dev.lancelot.engine.internal.format.ManifestFile;
import dev.lancelot.engine.internal.format.ManifestNaming;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFragment;
import dev.lancelot.engine.io.HadoopFileIO;
import dev.lancelot.engine.testing.LanceOracle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.WriteParams;

/** F4: atomic commits, concurrent appenders, conflicts and crashed writers. */
@Tag("oracle")
class CommitterTest {
  static BufferAllocator allocator;
  static final HadoopFileIO io = HadoopFileIO.local();

  @BeforeAll
  static void setUp() {
    allocator = new RootAllocator();
  }

  @AfterAll
  static void tearDown() {
    allocator.close();
  }

  static Snapshot latest(Path dir) {
    DatasetPaths paths = DatasetPaths.of(dir.toString());
    VersionLog.Entry e = VersionLog.latest(io, paths).orElseThrow();
    return new Snapshot(paths, e, ManifestFile.read(io.newInputFile(e.location())));
  }

  @Test
  void concurrentAppendersAllSucceedWithConsecutiveVersions(@TempDir Path dir) throws Exception {
    LanceOracle.write(allocator, dir, 0, 100, 4, 7, WriteParams.WriteMode.CREATE, 1000);
    Snapshot base = latest(dir);
    DataFragment template = base.fragments().get(0);
    int threads = 4;
    int appendsPerThread = 5;
    List<DataFragment> pending = new ArrayList<>();
    for (int i = 0; i < threads * appendsPerThread; i++) {
      pending.add(TableFormatOracleTest.copyDataFile(dir, template));
    }
    CyclicBarrier start = new CyclicBarrier(threads);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    List<Future<List<Long>>> results = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int thread = t;
      results.add(
          pool.submit(
              () -> {
                start.await();
                List<Long> committed = new ArrayList<>();
                for (int i = 0; i < appendsPerThread; i++) {
                  // Every append reads the version it saw at the start: maximal contention.
                  Committer c = new Committer(io, base.paths(), ManifestNaming.V2);
                  committed.add(
                      c.commit(
                              base,
                              new Operation.Append(
                                  List.of(pending.get(thread * appendsPerThread + i))))
                          .version());
                }
                return committed;
              }));
    }
    List<Long> versions = new ArrayList<>();
    for (Future<List<Long>> f : results) {
      versions.addAll(f.get());
    }
    pool.shutdown();

    assertThat(versions).hasSize(threads * appendsPerThread).doesNotHaveDuplicates();
    List<VersionLog.Entry> log = VersionLog.list(io, base.paths());
    assertThat(log)
        .extracting(VersionLog.Entry::version)
        .containsExactlyElementsOf(java.util.stream.LongStream.rangeClosed(1, 21).boxed().toList());
    Snapshot last = latest(dir);
    assertThat(last.fragments()).hasSize(21);
    assertThat(last.fragments()).extracting(DataFragment::getId).doesNotHaveDuplicates();
    assertThat(last.countRows()).isEqualTo(21 * 100);
    assertThat(LanceOracle.countRows(allocator, dir)).isEqualTo(21 * 100);
    // Every data file committed exactly once.
    assertThat(last.fragments()).extracting(f -> f.getFiles(0).getPath()).doesNotHaveDuplicates();
    // No leftover temporary manifests.
    try (var files = Files.list(dir.resolve("_versions"))) {
      assertThat(files.map(p -> p.getFileName().toString()).filter(n -> n.startsWith(".")))
          .isEmpty();
    }
  }

  @Test
  void appendConflictsWithConcurrentOverwrite(@TempDir Path dir) throws Exception {
    LanceOracle.write(allocator, dir, 0, 100, 4, 8, WriteParams.WriteMode.CREATE, 1000);
    Snapshot base = latest(dir);
    DataFragment copy = TableFormatOracleTest.copyDataFile(dir, base.fragments().get(0));
    LanceOracle.write(allocator, dir, 500, 10, 4, 8, WriteParams.WriteMode.OVERWRITE, 1000);

    Committer c = new Committer(io, base.paths(), ManifestNaming.V2);
    assertThatThrownBy(() -> c.commit(base, new Operation.Append(List.of(copy))))
        .isInstanceOf(CommitConflictException.class)
        .hasMessageContaining("Cannot commit append")
        .hasMessageContaining("concurrent overwrite was committed as version 2")
        .hasMessageContaining("Retry");
    assertThat(latest(dir).version()).isEqualTo(2);
    assertThat(LanceOracle.countRows(allocator, dir)).isEqualTo(10);
  }

  @Test
  void appendRebasesOverConcurrentDeleteAndLanceAppend(@TempDir Path dir) throws Exception {
    LanceOracle.write(allocator, dir, 0, 100, 4, 9, WriteParams.WriteMode.CREATE, 1000);
    Snapshot base = latest(dir);
    DataFragment copy = TableFormatOracleTest.copyDataFile(dir, base.fragments().get(0));
    LanceOracle.write(allocator, dir, 100, 10, 4, 9, WriteParams.WriteMode.APPEND, 1000);
    try (var ds = LanceOracle.open(allocator, dir)) {
      ds.delete("id < 5");
    }
    Snapshot v4 =
        new Committer(io, base.paths(), ManifestNaming.V2)
            .commit(base, new Operation.Append(List.of(copy)));
    assertThat(v4.version()).isEqualTo(4);
    assertThat(v4.fragments()).extracting(DataFragment::getId).containsExactly(0L, 1L, 2L);
    assertThat(v4.fragment(0).orElseThrow().hasDeletionFile()).isTrue();
    assertThat(LanceOracle.countRows(allocator, dir)).isEqualTo(100 - 5 + 10 + 100);
  }

  @Test
  void aWriterThatDiesBeforeCommittingLeavesTheLastVersionReadable(@TempDir Path dir)
      throws Exception {
    LanceOracle.write(allocator, dir, 0, 100, 4, 10, WriteParams.WriteMode.CREATE, 1000);
    Snapshot base = latest(dir);
    // The "dead" writer wrote a data file, a transaction file and a half-written temp manifest.
    TableFormatOracleTest.copyDataFile(dir, base.fragments().get(0));
    Files.write(
        dir.resolve("_transactions/1-00000000-dead-beef-0000-000000000000.txn"), new byte[] {8, 1});
    Files.write(
        dir.resolve("_versions/.18446744073709551613.manifest.1234.tmp"), new byte[] {1, 2, 3});

    assertThat(latest(dir).version()).isEqualTo(1);
    assertThat(LanceOracle.countRows(allocator, dir)).isEqualTo(100);
    DataFragment copy = TableFormatOracleTest.copyDataFile(dir, base.fragments().get(0));
    Snapshot v2 =
        new Committer(io, base.paths(), ManifestNaming.V2)
            .commit(base, new Operation.Append(List.of(copy)));
    assertThat(v2.version()).isEqualTo(2);
    assertThat(LanceOracle.countRows(allocator, dir)).isEqualTo(200);
  }
}
