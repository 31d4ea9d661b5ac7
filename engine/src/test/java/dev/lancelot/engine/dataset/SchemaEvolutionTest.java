package dev.lancelot.engine.dataset;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.CloseableIterator;
import dev.lancelot.engine.CommitConflictException;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.FragmentMetadata;
import dev.lancelot.engine.LancelotException;
import dev.lancelot.engine.VersionInfo;
import dev.lancelot.engine.WriteMode;
import dev.lancelot.engine.WriteOptions;
import dev.lancelot.engine.distributed.DistributedWrite;
import dev.lancelot.engine.testing.ArrowStreams;
import dev.lancelot.engine.testing.LanceOracle;
import dev.lancelot.engine.testing.Rows;
import dev.lancelot.engine.testing.StandardData;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.roaringbitmap.RoaringBitmap;

/**
 * Schema evolution as Lance 7 does it: added columns (read as nulls, or backfilled into a new data
 * file per fragment) commit a {@code Merge}, dropped and renamed columns a {@code Project};
 * lance-core reads what lancelot commits and lancelot reads what lance-core's addColumns,
 * alterColumns and dropColumns commit.
 */
class SchemaEvolutionTest {
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

  /** Ids 0..999 in two fragments of 500 rows. */
  static Path create(Path tmp) {
    Path dir = tmp.resolve("ds");
    try (VectorSchemaRoot batch = StandardData.generate(allocator, 0, 1000, DIM, 3);
        ArrowReader reader = ArrowStreams.readerOf(allocator, List.of(batch))) {
      Dataset.write(
              dir.toString(), reader, WriteOptions.of(WriteMode.CREATE).withMaxRowsPerFile(500))
          .close();
    } catch (IOException e) {
      throw new RuntimeException(e);
    }
    return dir;
  }

  static List<List<Object>> lancelotRows(Path dir, String... columns) {
    List<List<Object>> out = new ArrayList<>();
    try (Dataset ds = Dataset.open(dir.toString());
        CloseableIterator<VectorSchemaRoot> it = ds.newScan().columns(columns).batches()) {
      while (it.hasNext()) {
        try (VectorSchemaRoot root = it.next()) {
          out.addAll(Rows.of(root));
        }
      }
    } catch (Exception e) {
      throw new RuntimeException(e);
    }
    return out;
  }

  static Field nullable(String name, ArrowType type) {
    return new Field(name, FieldType.nullable(type), null);
  }

  /** The backfill {@code score = id * 0.5, label = "row-" + id} from column id. */
  static VectorSchemaRoot scoreAndLabel(long fragmentId, VectorSchemaRoot in, BufferAllocator a) {
    BigIntVector id = (BigIntVector) in.getVector("id");
    Float8Vector score = new Float8Vector("score", a);
    VarCharVector label = new VarCharVector("label", a);
    int n = in.getRowCount();
    score.allocateNew(n);
    label.allocateNew(n);
    for (int i = 0; i < n; i++) {
      score.set(i, id.get(i) * 0.5);
      label.setSafe(i, ("row-" + id.get(i)).getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }
    score.setValueCount(n);
    label.setValueCount(n);
    return new VectorSchemaRoot(
        List.of(score.getField(), label.getField()), List.of(score, label), n);
  }

  static final List<Field> SCORE_AND_LABEL =
      List.of(
          nullable("score", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
          nullable("label", ArrowType.Utf8.INSTANCE));

  @Test
  void backfilledColumnsGetOneDataFilePerFragmentThatLanceCoreReads(@TempDir Path tmp) {
    Path dir = create(tmp);
    try (Dataset v1 = Dataset.open(dir.toString())) {
      Dataset v2 =
          v1.delete("id >= 100 AND id < 110"); // deleted rows are backfilled too, and stay deleted
      Dataset v3 =
          v2.addColumns(SCORE_AND_LABEL, List.of("id"), SchemaEvolutionTest::scoreAndLabel);
      assertThat(v3.version()).isEqualTo(3);
      assertThat(v3.lanceSchema().names())
          .containsExactly("id", "tenant_id", "name", "vector", "score", "label");
      assertThat(v3.fragments()).allSatisfy(f -> assertThat(f.dataFiles()).hasSize(2));
      assertThat(v3.countRows()).isEqualTo(990);
      assertThat(v3.versions())
          .extracting(VersionInfo::operation)
          .containsExactly("overwrite", "delete", "merge");
      // field ids follow the highest one in use
      assertThat(v3.field("score").id()).isEqualTo(v1.lanceSchema().maxFieldId() + 1);
    }
    List<List<Object>> expected = new ArrayList<>();
    for (long id = 0; id < 1000; id++) {
      if (id < 100 || id >= 110) {
        expected.add(List.of(id, id * 0.5, "row-" + id));
      }
    }
    assertThat(lancelotRows(dir, "id", "score", "label")).isEqualTo(expected);
    assertThat(LanceOracle.rows(allocator, dir, List.of("id", "score", "label"), null))
        .isEqualTo(expected);
    assertThat(
            LanceOracle.rows(allocator, dir, List.of("id"), "score >= 400 AND label LIKE 'row-9%'"))
        .isEqualTo(lancelotRowsWhere(dir, "score >= 400 AND label LIKE 'row-9%'"));
    try (org.lance.Dataset lance = LanceOracle.open(allocator, dir);
        org.lance.Transaction txn = lance.readTransaction().orElseThrow()) {
      assertThat(txn.operation()).isInstanceOf(org.lance.operation.Merge.class);
      assertThat(((org.lance.operation.Merge) txn.operation()).fragments())
          .allSatisfy(f -> assertThat(f.getFiles()).hasSize(2));
    }
    // lance-core builds an index on the new column and lancelot uses it
    LanceOracle.createBTree(allocator, dir, "score");
    try (Dataset latest = Dataset.open(dir.toString())) {
      assertThat(latest.indexes().names()).contains("score_idx");
      assertThat(latest.countRows("score < 10")).isEqualTo(20);
    }
  }

  static List<List<Object>> lancelotRowsWhere(Path dir, String filter) {
    List<List<Object>> out = new ArrayList<>();
    try (Dataset ds = Dataset.open(dir.toString());
        CloseableIterator<VectorSchemaRoot> it =
            ds.newScan().columns("id").filter(filter).batches()) {
      while (it.hasNext()) {
        try (VectorSchemaRoot root = it.next()) {
          out.addAll(Rows.of(root));
        }
      }
    } catch (Exception e) {
      throw new RuntimeException(e);
    }
    return out;
  }

  @Test
  void nullColumnsChangeOnlyTheSchemaAndReadAsNullsInBothEngines(@TempDir Path tmp)
      throws Exception {
    Path dir = create(tmp);
    long filesBefore;
    try (Stream<Path> files = Files.list(dir.resolve("data"))) {
      filesBefore = files.count();
    }
    try (Dataset v1 = Dataset.open(dir.toString())) {
      Field vec =
          new Field(
              "embedding",
              FieldType.nullable(new ArrowType.FixedSizeList(4)),
              List.of(
                  new Field(
                      "item",
                      FieldType.nullable(
                          new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)),
                      null)));
      Dataset v2 = v1.addColumns(List.of(nullable("note", ArrowType.Utf8.INSTANCE), vec));
      assertThat(v2.lanceSchema().names()).endsWith("note", "embedding");
      assertThat(v2.fragments()).allSatisfy(f -> assertThat(f.dataFiles()).hasSize(1));
      try (VectorSchemaRoot taken =
          v2.take(new long[] {3, (1L << 32) | 7}, List.of("id", "note", "embedding"))) {
        assertThat(Rows.of(taken))
            .containsExactly(Arrays.asList(3L, null, null), Arrays.asList(507L, null, null));
      }
    }
    try (Stream<Path> files = Files.list(dir.resolve("data"))) {
      assertThat(files.count()).isEqualTo(filesBefore);
    }
    List<List<Object>> lancelot = lancelotRows(dir, "id", "note", "embedding");
    assertThat(lancelot)
        .hasSize(1000)
        .allSatisfy(r -> assertThat(r.subList(1, 3)).containsOnlyNulls());
    assertThat(LanceOracle.rows(allocator, dir, List.of("id", "note", "embedding"), null))
        .isEqualTo(lancelot);
    try (org.lance.Dataset lance = LanceOracle.open(allocator, dir)) {
      assertThat(lance.getSchema().findField("embedding").getType())
          .isEqualTo(new ArrowType.FixedSizeList(4));
    }
  }

  @Test
  void renameKeepsIndexesAndDropRemovesThemAsLanceDoes(@TempDir Path tmp) {
    Path dir = create(tmp);
    LanceOracle.createBTree(allocator, dir, "tenant_id");
    long tenantThree = LanceOracle.rows(allocator, dir, List.of("id"), "tenant_id = 3").size();
    try (Dataset ds = Dataset.open(dir.toString())) {
      Dataset renamed = ds.renameColumn("tenant_id", "tenant");
      assertThat(renamed.lanceSchema().names()).containsExactly("id", "tenant", "name", "vector");
      assertThat(renamed.field("tenant").id()).isEqualTo(ds.field("tenant_id").id());
      assertThat(renamed.indexes().names()).containsExactly("tenant_id_idx");
      assertThat(renamed.countRows("tenant = 3")).isEqualTo(tenantThree);
      Dataset dropped = renamed.dropColumns(List.of("name"));
      assertThat(dropped.lanceSchema().names()).containsExactly("id", "tenant", "vector");
      assertThat(dropped.versions())
          .extracting(VersionInfo::operation)
          .endsWith("project", "project");
      // a column added under a dropped name gets a new field id: the old values are never read
      // again
      Dataset again = dropped.addColumns(List.of(nullable("name", ArrowType.Utf8.INSTANCE)));
      assertThat(again.field("name").id()).isGreaterThan(ds.lanceSchema().maxFieldId());
      assertThat(lancelotRows(dir, "name"))
          .hasSize(1000)
          .allSatisfy(r -> assertThat(r.get(0)).isNull());
      Dataset withoutTenant = again.dropColumns(List.of("tenant"));
      assertThat(withoutTenant.indexes().names()).isEmpty();
    }
    try (org.lance.Dataset lance = LanceOracle.open(allocator, dir)) {
      assertThat(lance.getSchema().getFields())
          .extracting(Field::getName)
          .containsExactly("id", "vector", "name");
      assertThat(lance.listIndexes()).isEmpty();
    }
    assertThat(LanceOracle.rows(allocator, dir, List.of("name"), null))
        .hasSize(1000)
        .allSatisfy(r -> assertThat(r.get(0)).isNull());
    assertThat(LanceOracle.rows(allocator, dir, List.of("id"), null))
        .isEqualTo(lancelotRows(dir, "id"));
  }

  @Test
  void lancelotReadsLanceCoreSchemaChanges(@TempDir Path tmp) {
    Path dir = tmp.resolve("lance");
    LanceOracle.write(allocator, dir, 0, 1000, DIM, 5, org.lance.WriteParams.WriteMode.CREATE, 400);
    LanceOracle.createBTree(allocator, dir, "tenant_id");
    LanceOracle.createBTree(allocator, dir, "id");
    try (org.lance.Dataset lance = LanceOracle.open(allocator, dir)) {
      lance.addColumns(
          new org.lance.schema.SqlExpressions.Builder().withExpression("twice", "id * 2").build(),
          Optional.empty());
      lance.addColumns(List.of(nullable("extra", new ArrowType.Int(32, true))));
      lance.alterColumns(
          List.of(new org.lance.schema.ColumnAlteration.Builder("name").rename("label").build()));
      lance.dropColumns(List.of("tenant_id"));
    }
    List<String> columns = List.of("id", "label", "vector", "twice", "extra");
    try (Dataset ds = Dataset.open(dir.toString())) {
      assertThat(ds.lanceSchema().names()).containsExactlyElementsOf(columns);
      // as Lance: the index on the dropped column went with it, the other one stays
      assertThat(ds.indexes().names()).containsExactly("id_idx");
      assertThat(ds.countRows("twice % 4 = 2 AND extra IS NULL")).isEqualTo(500);
    }
    assertThat(lancelotRows(dir, columns.toArray(String[]::new)))
        .isEqualTo(LanceOracle.rows(allocator, dir, columns, null));
    // and lancelot appends to it (the added columns have values in the new rows)
    try (Dataset ds = Dataset.open(dir.toString())) {
      Dataset renamed = ds.renameColumn("label", "name").dropColumns(List.of("twice", "extra"));
      assertThat(renamed.lanceSchema().names()).containsExactly("id", "name", "vector");
      try (VectorSchemaRoot more = StandardData.generate(allocator, 1000, 10, DIM, 9);
          VectorSchemaRoot noTenant = withoutColumn(more, "tenant_id");
          ArrowReader reader = ArrowStreams.readerOf(allocator, List.of(noTenant))) {
        renamed.append(reader).close();
      } catch (IOException e) {
        throw new RuntimeException(e);
      }
    }
    assertThat(LanceOracle.countRows(allocator, dir)).isEqualTo(1010);
    assertThat(LanceOracle.rows(allocator, dir, List.of("id", "name"), null))
        .isEqualTo(lancelotRows(dir, "id", "name"));
  }

  static VectorSchemaRoot withoutColumn(VectorSchemaRoot root, String column) {
    List<org.apache.arrow.vector.FieldVector> kept = new ArrayList<>();
    for (org.apache.arrow.vector.FieldVector v : root.getFieldVectors()) {
      if (!v.getName().equals(column)) {
        kept.add(v);
      }
    }
    return new VectorSchemaRoot(
        kept.stream().map(org.apache.arrow.vector.FieldVector::getField).toList(),
        kept,
        root.getRowCount()) {
      @Override
      public void close() {
        // the vectors belong to the original root
      }
    };
  }

  @Test
  void addingColumnsConflictsWithAConcurrentAppendAndDropRebasesOverIt(@TempDir Path tmp)
      throws Exception {
    Path dir = create(tmp);
    try (Dataset v1 = Dataset.open(dir.toString())) {
      try (VectorSchemaRoot more = StandardData.generate(allocator, 1000, 10, DIM, 9);
          ArrowReader reader = ArrowStreams.readerOf(allocator, List.of(more))) {
        v1.append(reader).close(); // version 2, by "another writer"
      }
      assertThatThrownBy(
              () ->
                  v1.addColumns(SCORE_AND_LABEL, List.of("id"), SchemaEvolutionTest::scoreAndLabel))
          .isInstanceOf(CommitConflictException.class)
          .hasMessageContaining("Cannot commit merge to " + v1.location())
          .hasMessageContaining("a concurrent append was committed as version 2 ")
          .hasMessageContaining("after this operation read version 1");
      try (Stream<Path> files = Files.list(dir.resolve("data"))) {
        assertThat(files.count()).as("the backfill's files are deleted").isEqualTo(3);
      }
      // dropping a column is metadata only: it rebases over the append
      Dataset dropped = v1.dropColumns(List.of("name"));
      assertThat(dropped.version()).isEqualTo(3);
      assertThat(dropped.countRows()).isEqualTo(1010);
      assertThat(dropped.lanceSchema().names()).containsExactly("id", "tenant_id", "vector");
      // an append planned before a column addition cannot rebase over it
      Dataset added = dropped.addColumns(List.of(nullable("note", ArrowType.Utf8.INSTANCE)));
      List<FragmentMetadata> stale;
      try (VectorSchemaRoot more = StandardData.generate(allocator, 2000, 10, DIM, 9);
          VectorSchemaRoot noName = withoutColumn(more, "name")) {
        stale =
            DistributedWrite.writeFragments(
                dir.toString(),
                null,
                dropped.lanceSchema(),
                List.of(noName).iterator(),
                WriteOptions.of(WriteMode.APPEND));
      }
      assertThatThrownBy(
              () ->
                  DistributedWrite.commit(
                      dir.toString(),
                      null,
                      dropped.lanceSchema(),
                      stale,
                      WriteMode.APPEND,
                      dropped.version()))
          .isInstanceOf(CommitConflictException.class)
          .hasMessageContaining("a concurrent merge was committed as version " + added.version());
    }
  }

  @Test
  void rowChangesRebaseOverARenameAndFailAfterAColumnAddition(@TempDir Path tmp) {
    Path dir = create(tmp);
    try (Dataset v1 = Dataset.open(dir.toString())) {
      RoaringBitmap first = new RoaringBitmap();
      first.add(0L, 10L);
      v1.renameColumn("name", "label").close(); // version 2, by "another writer"
      Dataset v3 = v1.commitRowChanges(java.util.Map.of(0L, first), List.of());
      assertThat(v3.version()).isEqualTo(3);
      assertThat(v3.countRows()).isEqualTo(990);
      assertThat(v3.lanceSchema().names()).contains("label");
      v3.addColumns(List.of(nullable("note", ArrowType.Utf8.INSTANCE))).close(); // version 4
      RoaringBitmap second = new RoaringBitmap();
      second.add(0L, 5L);
      assertThatThrownBy(() -> v3.commitRowChanges(java.util.Map.of(1L, second), List.of()))
          .isInstanceOf(CommitConflictException.class)
          .hasMessageContaining("a concurrent merge was committed as version 4");
    }
    assertThat(LanceOracle.countRows(allocator, dir)).isEqualTo(990);
  }

  @Test
  void badChangesAreRefusedNamingTheColumn(@TempDir Path tmp) {
    Path dir = create(tmp);
    try (Dataset ds = Dataset.open(dir.toString())) {
      assertThatThrownBy(() -> ds.addColumns(List.of(nullable("id", new ArrowType.Int(64, true)))))
          .isInstanceOf(LancelotException.class)
          .hasMessageContaining("column \"id\" already exists");
      assertThatThrownBy(
              () ->
                  ds.addColumns(
                      List.of(
                          new Field(
                              "n", FieldType.notNullable(new ArrowType.Int(32, true)), null))))
          .hasMessageContaining("column \"n\" is NOT NULL but would have no value");
      assertThatThrownBy(() -> ds.dropColumns(List.of("nope")))
          .hasMessageContaining(
              "there is no column \"nope\". The dataset's columns are [id, tenant_id, name, vector]");
      assertThatThrownBy(() -> ds.dropColumns(List.of("id", "tenant_id", "name", "vector")))
          .hasMessageContaining("a dataset keeps at least one column");
      assertThatThrownBy(() -> ds.renameColumn("id", "name"))
          .hasMessageContaining(
              "Cannot rename column \"id\" of "
                  + ds.location()
                  + " to \"name\": a column \"name\" "
                  + "already exists");
      assertThatThrownBy(
              () ->
                  ds.addColumns(
                      SCORE_AND_LABEL,
                      List.of("id"),
                      (f, in, a) -> {
                        VectorSchemaRoot full = scoreAndLabel(f, in, a);
                        full.setRowCount(in.getRowCount() - 1);
                        return full;
                      }))
          .hasMessageContaining(
              "the backfill returned 499 rows for a batch of 500 rows of fragment 0");
    }
    try (Dataset latest = Dataset.open(dir.toString())) {
      assertThat(latest.version()).isEqualTo(1);
    }
  }

  @Test
  void tableConfigIsLanceCoresConfigBothWays(@TempDir Path tmp) {
    Path dir = create(tmp);
    try (Dataset ds = Dataset.open(dir.toString())) {
      Dataset set =
          ds.updateConfig(
              java.util.Map.of(
                  "emb.arrow.fixed-size-list.size",
                  Optional.of("4"),
                  "team",
                  Optional.of("search")));
      assertThat(set.config())
          .containsEntry("team", "search")
          .containsEntry("emb.arrow.fixed-size-list.size", "4");
      assertThat(set.versions()).extracting(VersionInfo::operation).endsWith("update config");
    }
    try (org.lance.Dataset lance = LanceOracle.open(allocator, dir)) {
      assertThat(lance.getConfig()).containsEntry("team", "search");
      // lance-core's Java updateConfig replaces the whole config
      lance.updateConfig(
          java.util.Map.of("owner", "ml", "team", "search", "emb.arrow.fixed-size-list.size", "4"));
      lance.deleteConfigKeys(java.util.Set.of("team"));
    }
    try (Dataset ds = Dataset.open(dir.toString())) {
      assertThat(ds.config())
          .containsEntry("owner", "ml")
          .doesNotContainKey("team")
          .containsEntry("emb.arrow.fixed-size-list.size", "4");
      Dataset removed = ds.updateConfig(java.util.Map.of("owner", Optional.empty()));
      assertThat(removed.config())
          .doesNotContainKey("owner")
          .containsKey("emb.arrow.fixed-size-list.size");
    }
    try (org.lance.Dataset lance = LanceOracle.open(allocator, dir)) {
      assertThat(lance.getConfig()).doesNotContainKey("owner");
    }
  }
}
