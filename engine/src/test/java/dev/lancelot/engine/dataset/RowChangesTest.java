package dev.lancelot.engine.dataset;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.CommitConflictException;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.FragmentInfo;
import dev.lancelot.engine.FragmentMetadata;
import dev.lancelot.engine.VersionInfo;
import dev.lancelot.engine.WriteMode;
import dev.lancelot.engine.WriteOptions;
import dev.lancelot.engine.distributed.DistributedWrite;
import dev.lancelot.engine.testing.ArrowStreams;
import dev.lancelot.engine.testing.LanceOracle;
import dev.lancelot.engine.testing.StandardData;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
import org.roaringbitmap.RoaringBitmap;

/**
 * Row-level changes (what UPDATE and MERGE INTO commit) as Lance's Update: one version with
 * deletion files and new fragments that lance-core reads; F4 conflicts with writers that touched
 * the same fragments, rebases over the others.
 */
@Tag("oracle")
class RowChangesTest {
  static final int DIM = 8;
  static BufferAllocator allocator;

  @BeforeAll
  static void setUp() {
    allocator = new RootAllocator();
  }

  @AfterAll
  static void tearDown() {
    allocator.close();
  }

  /** Ids 0..999 in two fragments of 500 rows (ids 0..499 in fragment 0, 500..999 in fragment 1). */
  static Path create(Path tmp) {
    Path dir = tmp.resolve("ds");
    write(dir, 0, 1000, WriteOptions.of(WriteMode.CREATE).withMaxRowsPerFile(500)).close();
    return dir;
  }

  static Dataset write(Path dir, long firstId, int rows, WriteOptions options) {
    try (VectorSchemaRoot batch = StandardData.generate(allocator, firstId, rows, DIM, 3);
        ArrowReader reader = ArrowStreams.readerOf(allocator, List.of(batch))) {
      return Dataset.write(dir.toString(), reader, options);
    } catch (java.io.IOException e) {
      throw new RuntimeException(e);
    }
  }

  /** Uncommitted fragments holding ids [firstId, firstId + rows). */
  static List<FragmentMetadata> newRows(Dataset ds, long firstId, int rows) {
    try (VectorSchemaRoot batch = StandardData.generate(allocator, firstId, rows, DIM, 11)) {
      return DistributedWrite.writeFragments(
          ds.location(),
          null,
          ds.lanceSchema(),
          List.of(batch).iterator(),
          WriteOptions.of(WriteMode.APPEND));
    }
  }

  static Map<Long, RoaringBitmap> rows(long fragment, int from, int to) {
    RoaringBitmap b = new RoaringBitmap();
    b.add((long) from, (long) to);
    return Map.of(fragment, b);
  }

  static List<Long> ids(Path dir) {
    return LanceOracle.longColumn(allocator, dir, "id", null).stream().sorted().toList();
  }

  @Test
  void oneUpdateVersionWithDeletionFilesAndNewFragmentsThatLanceCoreReads(@TempDir Path tmp) {
    Path dir = create(tmp);
    try (Dataset v1 = Dataset.open(dir.toString())) {
      // ids 10..19 get new versions; fragment 1 loses every row (its ids move to a new fragment)
      Map<Long, RoaringBitmap> deletes = new java.util.HashMap<>(rows(0, 10, 20));
      deletes.putAll(rows(1, 0, 500));
      List<FragmentMetadata> added = new ArrayList<>(newRows(v1, 10, 10));
      added.addAll(newRows(v1, 500, 500));
      Dataset v2 = v1.commitRowChanges(deletes, added);
      assertThat(v2.version()).isEqualTo(2);
      assertThat(v2.countRows()).isEqualTo(1000);
      assertThat(v2.fragments()).extracting(FragmentInfo::id).containsExactly(0L, 2L, 3L);
      assertThat(v2.fragments().get(0).deletedRows()).isEqualTo(10);
      assertThat(v2.versions())
          .extracting(VersionInfo::operation)
          .containsExactly("overwrite", "update");
    }
    assertThat(LanceOracle.countRows(allocator, dir)).isEqualTo(1000);
    assertThat(ids(dir)).containsExactlyElementsOf(LongStream.range(0, 1000).boxed().toList());
    // lance-core reads the transaction as its own Update
    try (org.lance.Dataset lance = LanceOracle.open(allocator, dir);
        org.lance.Transaction txn = lance.readTransaction().orElseThrow()) {
      assertThat(txn.readVersion()).isEqualTo(1);
      org.lance.operation.Update update = (org.lance.operation.Update) txn.operation();
      assertThat(update.removedFragmentIds()).containsExactly(1L);
      assertThat(update.updatedFragments())
          .extracting(org.lance.FragmentMetadata::getId)
          .containsExactly(0);
      assertThat(update.updatedFragments().get(0).getNumDeletions()).isEqualTo(10);
      assertThat(update.newFragments())
          .extracting(org.lance.FragmentMetadata::getPhysicalRows)
          .containsExactly(10L, 500L);
      assertThat(update.fieldsModified()).isEmpty();
    }
    // the new versions of ids 10..19 carry the new data (another seed), read by lance-core
    try (Dataset ds = Dataset.open(dir.toString());
        VectorSchemaRoot expected = StandardData.generate(allocator, 10, 10, DIM, 11)) {
      List<List<Object>> lance =
          LanceOracle.rows(allocator, dir, List.of("id", "vector"), "id >= 10 AND id < 20");
      assertThat(lance)
          .containsExactlyInAnyOrderElementsOf(
              dev.lancelot.engine.testing.Rows.of(expected).stream()
                  .map(
                      r ->
                          List.of(r.get(0), r.get(StandardData.schema(DIM).getFields().size() - 1)))
                  .toList());
      assertThat(ds.countRows("id >= 10 AND id < 20")).isEqualTo(10);
    }
  }

  @Test
  void lanceCoresMergeInsertIsReadAndItsUpdateTransactionJudgedForConflicts(@TempDir Path tmp)
      throws Exception {
    Path dir = tmp.resolve("ds");
    LanceOracle.write(allocator, dir, 0, 1000, DIM, 3, org.lance.WriteParams.WriteMode.CREATE, 500);
    try (Dataset stale = Dataset.open(dir.toString());
        Dataset staleToo = Dataset.open(dir.toString())) {
      // lance-core upserts ids 990..1009: updates 990..999 (fragment 1), inserts 1000..1009
      try (VectorSchemaRoot source = StandardData.generate(allocator, 990, 20, DIM, 11);
          ArrowReader reader = ArrowStreams.readerOf(allocator, List.of(source));
          org.apache.arrow.c.ArrowArrayStream stream =
              org.apache.arrow.c.ArrowArrayStream.allocateNew(allocator);
          org.lance.Dataset lance = LanceOracle.open(allocator, dir)) {
        org.apache.arrow.c.Data.exportArrayStream(allocator, reader, stream);
        lance
            .mergeInsert(
                new org.lance.merge.MergeInsertParams(List.of("id"))
                    .withMatchedUpdateAll()
                    .withNotMatched(org.lance.merge.MergeInsertParams.WhenNotMatched.InsertAll),
                stream)
            .dataset()
            .close();
      }
      try (Dataset latest = Dataset.open(dir.toString());
          VectorSchemaRoot source = StandardData.generate(allocator, 990, 20, DIM, 11)) {
        assertThat(latest.version()).isEqualTo(2);
        assertThat(latest.versions()).extracting(VersionInfo::operation).last().isEqualTo("update");
        assertThat(latest.countRows()).isEqualTo(1010);
        List<List<Object>> ours = new ArrayList<>();
        try (var batches = latest.newScan().filter("id >= 990").batches()) {
          while (batches.hasNext()) {
            ours.addAll(dev.lancelot.engine.testing.Rows.of(batches.next()));
          }
        }
        assertThat(ours)
            .containsExactlyInAnyOrderElementsOf(dev.lancelot.engine.testing.Rows.of(source));
      }
      // its transaction names the fragments it changed: fragment 1 conflicts, fragment 0 does not
      List<FragmentMetadata> added = newRows(stale, 500, 1);
      assertThatThrownBy(() -> stale.commitRowChanges(rows(1, 0, 1), added))
          .isInstanceOf(CommitConflictException.class)
          .hasMessageContaining("concurrent update was committed as version 2");
      DistributedWrite.abort(stale.location(), null, added);
      Dataset v3 = staleToo.commitRowChanges(rows(0, 0, 1), newRows(staleToo, 0, 1));
      assertThat(v3.version()).isEqualTo(3);
      assertThat(v3.countRows()).isEqualTo(1010);
    }
    assertThat(ids(dir)).containsExactlyElementsOf(LongStream.range(0, 1010).boxed().toList());
  }

  @Test
  void nothingToChangeCommitsNothing(@TempDir Path tmp) {
    Path dir = create(tmp);
    try (Dataset v1 = Dataset.open(dir.toString())) {
      assertThat(v1.commitRowChanges(Map.of(), List.of()).version()).isEqualTo(1);
    }
  }

  @Test
  void aConcurrentDeleteOfTheSameFragmentFailsTheUpdateAndLosesNothing(@TempDir Path tmp)
      throws Exception {
    Path dir = create(tmp);
    try (Dataset stale = Dataset.open(dir.toString());
        Dataset other = Dataset.open(dir.toString())) {
      other.delete("id < 5"); // version 2 touches fragment 0
      List<FragmentMetadata> added = newRows(stale, 100, 10);
      assertThatThrownBy(() -> stale.commitRowChanges(rows(0, 100, 110), added))
          .isInstanceOf(CommitConflictException.class)
          .hasMessageContaining("Cannot commit update")
          .hasMessageContaining("concurrent delete was committed as version 2")
          .hasMessageContaining("Retry the operation");
      DistributedWrite.abort(stale.location(), null, added);
    }
    try (Dataset ds = Dataset.open(dir.toString())) {
      assertThat(ds.version()).isEqualTo(2);
      assertThat(ds.countRows()).isEqualTo(995);
    }
    assertThat(ids(dir)).containsExactlyElementsOf(LongStream.range(5, 1000).boxed().toList());
    // the failed update's deletion file was removed; only the delete's remains
    try (var files = Files.list(dir.resolve("_deletions"))) {
      assertThat(files.count()).isEqualTo(1);
    }
  }

  @Test
  void aConcurrentUpdateOfTheSameFragmentFailsIt(@TempDir Path tmp) {
    Path dir = create(tmp);
    try (Dataset first = Dataset.open(dir.toString());
        Dataset second = Dataset.open(dir.toString())) {
      first.commitRowChanges(rows(1, 0, 3), newRows(first, 500, 3));
      List<FragmentMetadata> added = newRows(second, 503, 1);
      assertThatThrownBy(() -> second.commitRowChanges(rows(1, 3, 4), added))
          .isInstanceOf(CommitConflictException.class)
          .hasMessageContaining("concurrent update was committed as version 2");
      DistributedWrite.abort(second.location(), null, added);
    }
    assertThat(ids(dir)).containsExactlyElementsOf(LongStream.range(0, 1000).boxed().toList());
  }

  @Test
  void aConcurrentAppendOrChangeOfOtherFragmentsIsRebasedOver(@TempDir Path tmp) {
    Path dir = create(tmp);
    try (Dataset stale = Dataset.open(dir.toString());
        Dataset other = Dataset.open(dir.toString())) {
      write(dir, 1000, 100, WriteOptions.of(WriteMode.APPEND)).close(); // version 2: fragment 2
      other.delete(
          "id >= 990"); // version 3: planned on version 1, re-planned; touches fragment 1 only
      Dataset v4 = stale.commitRowChanges(rows(0, 0, 10), newRows(stale, 0, 10)); // fragment 0
      assertThat(v4.version()).isEqualTo(4);
      assertThat(v4.fragments()).extracting(FragmentInfo::id).containsExactly(0L, 1L, 2L, 3L);
      assertThat(v4.countRows()).isEqualTo(1090);
    }
    List<Long> expected = new ArrayList<>(LongStream.range(0, 990).boxed().toList());
    LongStream.range(1000, 1100).forEach(expected::add);
    assertThat(ids(dir)).containsExactlyElementsOf(expected);
  }

  @Test
  void rowsOutsideTheReadVersionAreRefused(@TempDir Path tmp) {
    Path dir = create(tmp);
    try (Dataset v1 = Dataset.open(dir.toString())) {
      assertThatThrownBy(() -> v1.commitRowChanges(rows(7, 0, 1), List.of()))
          .hasMessageContaining("fragment 7")
          .hasMessageContaining("no such fragment");
      assertThatThrownBy(() -> v1.commitRowChanges(rows(0, 499, 501), List.of()))
          .hasMessageContaining("Cannot delete row 500 of fragment 0")
          .hasMessageContaining("it has 500 rows");
      assertThat(v1.checkoutLatest().version()).isEqualTo(1);
    }
  }
}
