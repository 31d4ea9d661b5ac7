package dev.lancelot.engine.dataset;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.CompactionOptions;
import dev.lancelot.engine.CompactionResult;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.FragmentMetadata;
import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.distributed.CompactionPlan;
import dev.lancelot.engine.distributed.CompactionTask;
import dev.lancelot.engine.distributed.DistributedWrite;
import dev.lancelot.engine.distributed.RewrittenGroup;
import dev.lancelot.engine.internal.DatasetInternals;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFile;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFragment;
import dev.lancelot.engine.schema.LanceSchema;
import dev.lancelot.engine.testing.LanceOracle;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Compaction and column backfills naming a target base (decision D68), against lance-core 7.0.0:
 * the rewritten fragments' and the added columns' data files go under the base with its id, as an
 * append's do; lance-core reads the result row for row and compacts it further itself; an unknown
 * base is refused before anything is written. Lance's own compaction and backfill take no target
 * and write at the root, which the first test shows on a copy.
 */
@Tag("oracle")
class TargetBaseMaintenanceOracleTest {
  private static final List<String> ALL = List.of("id", "tenant_id", "name", "vector", "twice");

  @BeforeAll
  static void setUp() {
    BasePathsOracleTest.setUp();
  }

  @AfterAll
  static void tearDown() {
    BasePathsOracleTest.tearDown();
  }

  private static List<DataFile> files(Dataset ds) {
    return DatasetInternals.snapshot(ds).fragments().stream()
        .flatMap(f -> f.getFilesList().stream())
        .toList();
  }

  private static Set<String> paths(List<DataFile> files) {
    return files.stream().map(DataFile::getPath).collect(Collectors.toSet());
  }

  static VectorSchemaRoot twice(long fragment, VectorSchemaRoot in, BufferAllocator allocator) {
    BigIntVector id = (BigIntVector) in.getVector("id");
    BigIntVector out = new BigIntVector("twice", allocator);
    int n = in.getRowCount();
    out.allocateNew(n);
    for (int i = 0; i < n; i++) {
      out.set(i, id.get(i) * 2);
    }
    out.setValueCount(n);
    return new VectorSchemaRoot(List.of(out.getField()), List.of(out), n);
  }

  private static final List<Field> TWICE =
      List.of(Field.nullable("twice", new ArrowType.Int(64, true)));

  @Test
  void compactionWritesTheRewrittenFragmentsUnderTheNamedBase(@TempDir Path tmp)
      throws IOException {
    Path ds = BasePathsOracleTest.lanceMultiBase(tmp); // b1 (dataset root), b2 (directory)
    Path copy = tmp.resolve("copy");
    BasePathsOracleTest.copyTree(ds, copy);
    List<String> rootBefore = TargetBaseWriteOracleTest.files(ds.resolve("data"));
    List<String> b1Before = TargetBaseWriteOracleTest.files(tmp.resolve("b1/data"));
    List<List<Object>> rowsBefore =
        LanceOracle.rows(BasePathsOracleTest.allocator, ds, BasePathsOracleTest.COLUMNS, null);
    try (Dataset d = Dataset.open(ds.toString())) {
      CompactionResult r =
          d.compact(
              CompactionOptions.defaults().withTargetRowsPerFragment(500).withTargetBase("b1"));
      assertThat(r.committed()).isTrue();
      Dataset after = r.dataset();
      List<DataFile> added = new ArrayList<>(files(after));
      added.removeIf(f -> paths(files(d)).contains(f.getPath()));
      assertThat(added).hasSize(r.fragmentsAdded()).isNotEmpty();
      assertThat(added).allMatch(f -> f.hasBaseId() && f.getBaseId() == 1);
      assertThat(TargetBaseWriteOracleTest.files(tmp.resolve("b1/data")))
          .hasSize(b1Before.size() + added.size())
          .containsAll(paths(added));
      assertThat(TargetBaseWriteOracleTest.files(ds.resolve("data"))).isEqualTo(rootBefore);
      BasePathsOracleTest.assertReadsAsLance(after, ds);
      assertThat(
              LanceOracle.rows(
                  BasePathsOracleTest.allocator, ds, BasePathsOracleTest.COLUMNS, null))
          .isEqualTo(rowsBefore);
      after.close();
    }
    // lance-core compacts our result further (it writes its own files at the root) and reads on
    BasePathsOracleTest.lanceWrite(
        ds, 5000, 30, org.lance.WriteParams.WriteMode.APPEND, null, null);
    try (org.lance.Dataset lance = LanceOracle.open(BasePathsOracleTest.allocator, ds)) {
      lance.compact();
    }
    try (Dataset d = Dataset.open(ds.toString())) {
      BasePathsOracleTest.assertReadsAsLance(d, ds);
    }
    // Lance's compaction of the copy takes no target: its files go to the copy's root
    List<String> copyRoot = TargetBaseWriteOracleTest.files(copy.resolve("data"));
    List<String> b1Now = TargetBaseWriteOracleTest.files(tmp.resolve("b1/data"));
    try (org.lance.Dataset lance = LanceOracle.open(BasePathsOracleTest.allocator, copy)) {
      lance.compact();
    }
    assertThat(TargetBaseWriteOracleTest.files(copy.resolve("data")).size())
        .isGreaterThan(copyRoot.size());
    assertThat(TargetBaseWriteOracleTest.files(tmp.resolve("b1/data"))).isEqualTo(b1Now);
  }

  /** The distributed form: the plan carries the target, each task writes under the base. */
  @Test
  void distributedCompactionTakesTheTargetBaseAndAFailedCommitDeletesItsFiles(@TempDir Path tmp)
      throws IOException {
    Path ds = BasePathsOracleTest.lanceMultiBase(tmp);
    Path b2 = tmp.resolve("b2files");
    List<String> b2Before = TargetBaseWriteOracleTest.files(b2);
    CompactionOptions options =
        CompactionOptions.defaults()
            .withTargetRowsPerFragment(400)
            .withTargetBase(b2.toString()); // a plain base, by its path
    try (Dataset d = Dataset.open(ds.toString())) {
      CompactionPlan plan = CompactionPlan.fromBytes(CompactionPlan.plan(d, options).toBytes());
      assertThat(plan.isEmpty()).isFalse();
      List<RewrittenGroup> rewritten = new ArrayList<>();
      for (CompactionTask t : plan.tasks()) {
        rewritten.add(
            RewrittenGroup.fromBytes(CompactionTask.fromBytes(t.toBytes()).run(d).toBytes()));
      }
      List<String> written = TargetBaseWriteOracleTest.files(b2);
      assertThat(written.size()).isGreaterThan(b2Before.size());
      // a commit that fails (here: on another version) deletes the files written under the base
      try (Dataset older =
          Dataset.open(
              ds.toString(),
              dev.lancelot.engine.OpenOptions.defaults().withVersion(d.version() - 1))) {
        assertThatThrownBy(() -> plan.commit(older, rewritten))
            .isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("run on version");
      }
      assertThat(TargetBaseWriteOracleTest.files(b2)).isEqualTo(b2Before);
      List<RewrittenGroup> again = new ArrayList<>();
      for (CompactionTask t : plan.tasks()) {
        again.add(t.run(d));
      }
      try (Dataset after = plan.commit(d, again).dataset()) {
        List<DataFile> added = new ArrayList<>(files(after));
        added.removeIf(f -> paths(files(d)).contains(f.getPath()));
        assertThat(added).isNotEmpty().allMatch(f -> f.hasBaseId() && f.getBaseId() == 2);
        BasePathsOracleTest.assertReadsAsLance(after, ds);
      }
    }
  }

  @Test
  void backfillsWriteTheAddedColumnsUnderTheNamedBase(@TempDir Path tmp) throws IOException {
    Path ds = BasePathsOracleTest.lanceMultiBase(tmp);
    List<String> rootBefore = TargetBaseWriteOracleTest.files(ds.resolve("data"));
    List<String> b2Before = TargetBaseWriteOracleTest.files(tmp.resolve("b2files"));
    try (Dataset d = Dataset.open(ds.toString());
        Dataset after =
            d.addColumns(TWICE, List.of("id"), TargetBaseMaintenanceOracleTest::twice, "b2")) {
      List<DataFragment> fragments = DatasetInternals.snapshot(after).fragments();
      for (DataFragment f : fragments) {
        DataFile last = f.getFiles(f.getFilesCount() - 1);
        assertThat(last.hasBaseId() && last.getBaseId() == 2).as("fragment %d", f.getId()).isTrue();
      }
      assertThat(TargetBaseWriteOracleTest.files(tmp.resolve("b2files")))
          .hasSize(b2Before.size() + fragments.size());
      assertThat(TargetBaseWriteOracleTest.files(ds.resolve("data"))).isEqualTo(rootBefore);
      assertThat(BasePathsOracleTest.scan(after, ALL, null))
          .isEqualTo(LanceOracle.rows(BasePathsOracleTest.allocator, ds, ALL, null));
      for (List<Object> row :
          LanceOracle.rows(BasePathsOracleTest.allocator, ds, List.of("id", "twice"), null)) {
        assertThat(row.get(1)).isEqualTo((Long) row.get(0) * 2);
      }
      // lance-core compacts the fragments whose columns live under two bases
      try (org.lance.Dataset lance = LanceOracle.open(BasePathsOracleTest.allocator, ds)) {
        lance.compact();
      }
      try (Dataset compacted = Dataset.open(ds.toString())) {
        assertThat(BasePathsOracleTest.scan(compacted, ALL, null))
            .isEqualTo(LanceOracle.rows(BasePathsOracleTest.allocator, ds, ALL, null));
      }
    }
  }

  @Test
  void distributedBackfillsTakeTheTargetBaseAndAbortDeletesUnderIt(@TempDir Path tmp)
      throws IOException {
    Path ds = BasePathsOracleTest.lanceMultiBase(tmp);
    org.apache.hadoop.conf.Configuration conf = new org.apache.hadoop.conf.Configuration();
    List<String> b1Before = TargetBaseWriteOracleTest.files(tmp.resolve("b1/data"));
    try (Dataset d = Dataset.open(ds.toString())) {
      LanceSchema added = d.planAddedColumns(TWICE);
      List<FragmentMetadata> written = new ArrayList<>();
      for (DataFragment f : DatasetInternals.snapshot(d).fragments()) {
        written.add(
            DistributedWrite.writeAddedColumns(
                ds.toString(),
                conf,
                d.version(),
                added,
                f.getId(),
                (id, in, allocator) -> {
                  BigIntVector out = new BigIntVector("twice", allocator);
                  out.allocateNew(in.getRowCount());
                  for (int i = 0; i < in.getRowCount(); i++) {
                    out.set(i, id);
                  }
                  out.setValueCount(in.getRowCount());
                  return new VectorSchemaRoot(
                      List.of(out.getField()), List.of(out), in.getRowCount());
                },
                "b1"));
      }
      assertThat(TargetBaseWriteOracleTest.files(tmp.resolve("b1/data")))
          .hasSize(b1Before.size() + written.size());
      DistributedWrite.abort(ds.toString(), conf, written);
      assertThat(TargetBaseWriteOracleTest.files(tmp.resolve("b1/data"))).isEqualTo(b1Before);
    }
  }

  @Test
  void anUnknownBaseIsRefusedBeforeAnythingIsWritten(@TempDir Path tmp) throws IOException {
    Path ds = BasePathsOracleTest.lanceMultiBase(tmp);
    List<String> before = TargetBaseWriteOracleTest.files(tmp);
    try (Dataset d = Dataset.open(ds.toString())) {
      long version = d.version();
      assertThatThrownBy(() -> d.compact(CompactionOptions.defaults().withTargetBase("nope")))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("Cannot compact")
          .hasMessageContaining("to base \"nope\"")
          .hasMessageContaining("the dataset's bases are [");
      assertThatThrownBy(
              () ->
                  d.addColumns(
                      TWICE, List.of("id"), TargetBaseMaintenanceOracleTest::twice, "../b1"))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("Cannot add columns")
          .hasMessageContaining("to base \"../b1\"");
      assertThat(TargetBaseWriteOracleTest.files(tmp)).isEqualTo(before);
      try (Dataset latest = Dataset.open(ds.toString())) {
        assertThat(latest.version()).isEqualTo(version);
      }
    }
    // a dataset without bases
    Path plain = tmp.resolve("plain");
    TargetBaseWriteOracleTest.write(
            plain, 0, 10, dev.lancelot.engine.WriteOptions.of(dev.lancelot.engine.WriteMode.CREATE))
        .close();
    try (Dataset d = Dataset.open(plain.toString())) {
      assertThatThrownBy(() -> d.compact(CompactionOptions.defaults().withTargetBase("b1")))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("the dataset registers no base paths");
    }
  }
}
