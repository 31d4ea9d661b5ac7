package dev.lancelot.engine.expr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.CloseableIterator;
import dev.lancelot.engine.Scanner;
import dev.lancelot.engine.testing.ArrowStreams;
import dev.lancelot.engine.testing.LanceOracle;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeSet;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.impl.UnionListWriter;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.Text;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import org.lance.WriteParams;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;

/**
 * {@code array_has_any}, {@code array_has_all}, {@code array_contains} and {@code array_has} on
 * list columns (NULL lists, NULL elements, empty lists) select the rows lance-core 7.0.0's scan
 * with the same filter selects; bad uses fail with errors naming the problem.
 */
@Tag("oracle")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public class ArrayContainsOracleTest {
  public static final int ROWS = 900;
  private BufferAllocator allocator;

  public static final List<String> FILTERS =
      List.of(
          "array_has_any(tags, ['t1', 'u3'])",
          "array_has_all(tags, ['t1', 'u3'])",
          "array_has_all(tags, ['t1', 't1'])",
          "array_contains(tags, 't2')",
          "array_has(tags, 'nothing')",
          "NOT array_has_any(tags, ['t0'])",
          "array_has_any(tags, ['t0']) OR id < 10",
          "array_has_any(nums, [1, 1000000])",
          "array_has_all(nums, [2, 3])",
          "array_contains(nums, 4) AND id >= 450",
          "array_has_any(nums, [-5])");

  @BeforeAll
  void setUp() {
    allocator = new RootAllocator();
  }

  @AfterAll
  void tearDown() {
    allocator.close();
  }

  /** id; tags: ['t' + id % 3, 'u' + id % 5] with NULL lists, NULL elements and empty lists. */
  public static void write(BufferAllocator a, Path dir) {
    write(a, dir, 0, WriteParams.WriteMode.CREATE);
  }

  public static void write(BufferAllocator a, Path dir, int first, WriteParams.WriteMode mode) {
    Field tagItem = new Field("item", FieldType.nullable(ArrowType.Utf8.INSTANCE), null);
    Field numItem = new Field("item", FieldType.nullable(new ArrowType.Int(64, true)), null);
    Schema schema =
        new Schema(
            List.of(
                new Field("id", FieldType.nullable(new ArrowType.Int(64, true)), null),
                new Field("tags", FieldType.nullable(ArrowType.List.INSTANCE), List.of(tagItem)),
                new Field("nums", FieldType.nullable(ArrowType.List.INSTANCE), List.of(numItem))));
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, a)) {
      BigIntVector id = (BigIntVector) root.getVector("id");
      ListVector tags = (ListVector) root.getVector("tags");
      ListVector nums = (ListVector) root.getVector("nums");
      UnionListWriter w = tags.getWriter();
      UnionListWriter n = nums.getWriter();
      for (int r = 0; r < ROWS; r++) {
        int i = first + r;
        id.setSafe(r, i);
        w.setPosition(r);
        if (i % 11 == 5) {
          tags.setNull(r);
        } else {
          w.startList();
          if (i % 13 != 6) {
            w.writeVarChar(new Text("t" + (i % 3)));
            if (i % 17 == 2) {
              w.writeNull();
            }
            w.writeVarChar(new Text("u" + (i % 5)));
          }
          w.endList();
        }
        n.setPosition(r);
        if (i % 19 == 7) {
          nums.setNull(r);
        } else {
          n.startList();
          for (int k = 0; k < i % 4; k++) {
            n.writeBigInt((i + k) % 6);
          }
          n.endList();
        }
      }
      root.setRowCount(ROWS);
      Dataset.write()
          .allocator(a)
          .reader(ArrowStreams.readerOf(a, List.of(root)))
          .uri(dir.toString())
          .mode(mode)
          .maxRowsPerFile(300)
          .execute()
          .close();
    }
  }

  static TreeSet<Long> ours(Scanner scan) {
    TreeSet<Long> out = new TreeSet<>();
    try (CloseableIterator<VectorSchemaRoot> it =
        scan.columns(List.of()).withRowAddress(true).batches()) {
      while (it.hasNext()) {
        VectorSchemaRoot b = it.next();
        UInt8Vector v = (UInt8Vector) b.getVector("_rowaddr");
        for (int i = 0; i < b.getRowCount(); i++) {
          out.add(v.get(i));
        }
      }
    }
    return out;
  }

  static TreeSet<Long> lance(BufferAllocator a, Path dir, String filter, boolean useIndex) {
    TreeSet<Long> out = new TreeSet<>();
    try (Dataset ds = LanceOracle.open(a, dir);
        LanceScanner scanner =
            ds.newScan(
                new ScanOptions.Builder()
                    .columns(List.of("id"))
                    .filter(filter)
                    .withRowAddress(true)
                    .useScalarIndex(useIndex)
                    .build());
        ArrowReader reader = scanner.scanBatches()) {
      while (reader.loadNextBatch()) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        FieldVector v = root.getVector("_rowaddr");
        for (int i = 0; i < root.getRowCount(); i++) {
          out.add(((Number) v.getObject(i)).longValue());
        }
      }
    } catch (Exception e) {
      throw new RuntimeException("Lance scan with filter " + filter + " failed", e);
    }
    return out;
  }

  @Test
  void fullScansMatchLance(@TempDir Path dir) {
    write(allocator, dir);
    try (dev.lancelot.engine.Dataset ds = dev.lancelot.engine.Dataset.open(dir.toString())) {
      for (String filter : FILTERS) {
        TreeSet<Long> expected = lance(allocator, dir, filter, false);
        assertThat(ours(ds.newScan().filter(filter))).as(filter).isEqualTo(expected);
        Predicate parsed = FilterParser.parse(filter);
        assertThat(FilterParser.parse(parsed.toSql())).as(filter).isEqualTo(parsed);
      }
      assertThat(ours(ds.newScan().filter("array_has_any(tags, ['t1'])"))).isNotEmpty();
    }
  }

  /**
   * Label-list indexes lance-core builds answer the containment tests exactly (rows deleted before
   * and after the build, an unindexed appended fragment): the same rows as our full scan and
   * Lance's indexed scan, fewer rows read where selective; a negation is left to the scan; a
   * corrupt index file fails naming it.
   */
  @Test
  void labelListIndexesAnswerContainmentTests(@TempDir Path dir) throws java.io.IOException {
    write(allocator, dir);
    try (Dataset ds = LanceOracle.open(allocator, dir)) {
      ds.delete("id % 10 = 1");
    }
    for (String column : List.of("tags", "nums")) {
      try (Dataset ds = LanceOracle.open(allocator, dir)) {
        ds.createIndex(
            List.of(column),
            org.lance.index.IndexType.LABEL_LIST,
            java.util.Optional.of(column + "_labels"),
            org.lance.index.IndexParams.builder()
                .setScalarIndexParams(org.lance.index.scalar.ScalarIndexParams.create("labellist"))
                .build(),
            true);
      }
    }
    try (Dataset ds = LanceOracle.open(allocator, dir)) {
      ds.delete("id % 10 = 2");
    }
    write(allocator, dir, ROWS, WriteParams.WriteMode.APPEND);
    try (dev.lancelot.engine.Dataset ds = dev.lancelot.engine.Dataset.open(dir.toString())) {
      for (String filter : FILTERS) {
        TreeSet<Long> expected = lance(allocator, dir, filter, true);
        assertThat(lance(allocator, dir, filter, false)).as(filter).isEqualTo(expected);
        Scanner indexed = ds.newScan().filter(filter);
        assertThat(ours(indexed)).as("indexed: %s", filter).isEqualTo(expected);
        assertThat(ours(ds.newScan().filter(filter).useScalarIndex(false)))
            .as("full: %s", filter)
            .isEqualTo(expected);
        boolean negatedOrUnindexedOr = filter.startsWith("NOT") || filter.contains("OR");
        assertThat(indexed.indexUse().used()).as(filter).isEqualTo(!negatedOrUnindexedOr);
        if (!negatedOrUnindexedOr && !filter.contains("AND")) {
          assertThat(indexed.indexUse().exact()).as(filter).isTrue();
        }
      }
      String selective = "array_has_all(tags, ['t1', 'u3'])";
      dev.lancelot.engine.io.ReadCounters.Reading start = dev.lancelot.engine.io.ReadCounters.now();
      TreeSet<Long> hits = ours(ds.newScan().filter(selective));
      long scanned = start.since().rowsScanned();
      assertThat(hits).isNotEmpty();
      // the selected rows of the indexed fragments, and the appended fragments in full
      assertThat(scanned).isLessThanOrEqualTo(ROWS + hits.size());
      assertThat(dev.lancelot.engine.index.scalar.ScalarIndexQuery.plan(ds, selective).isExact())
          .isTrue();

      Path file =
          dir.resolve("_indices")
              .resolve(ds.indexes().segments("tags_labels").get(0).uuid().toString())
              .resolve("bitmap_page_lookup.lance");
      java.nio.file.Files.write(file, new byte[(int) java.nio.file.Files.size(file)]);
    }
    try (dev.lancelot.engine.Dataset ds = dev.lancelot.engine.Dataset.open(dir.toString())) {
      assertThatThrownBy(() -> ours(ds.newScan().filter("array_contains(tags, 't1')")))
          .isInstanceOf(dev.lancelot.engine.index.scalar.ScalarIndexException.class)
          .hasMessageContaining("label-list index \"tags_labels\"")
          .hasMessageContaining("bitmap_page_lookup.lance");
    }
  }

  @Test
  void badUsesFailNamingTheProblem(@TempDir Path dir) {
    write(allocator, dir);
    try (dev.lancelot.engine.Dataset ds = dev.lancelot.engine.Dataset.open(dir.toString())) {
      assertThatThrownBy(() -> ds.countRows("array_has_any(tags, 't1')"))
          .isInstanceOf(FilterParseException.class)
          .hasMessageContaining("expected a list of values such as ['a', 'b'] in array_has_any");
      assertThatThrownBy(() -> ds.countRows("array_has_all(tags, [])"))
          .isInstanceOf(FilterParseException.class)
          .hasMessageContaining("array_has_all needs at least one value");
      assertThatThrownBy(() -> ds.countRows("array_contains(tags, NULL)"))
          .isInstanceOf(FilterParseException.class)
          .hasMessageContaining("array_contains cannot search for NULL");
      assertThatThrownBy(() -> ds.countRows("array_contains(id, 1)"))
          .isInstanceOf(FilterBindException.class)
          .hasMessageContaining("array_contains applies to lists");
      assertThatThrownBy(() -> ds.countRows("array_contains(tags, 1)"))
          .isInstanceOf(FilterBindException.class)
          .hasMessageContaining("column tags");
      assertThat(ds.countRows("array_contains(tags, 't1')"))
          .isPositive()
          .isEqualTo(ds.countRows("array_has_any(tags, ['t1'])"));
    }
  }
}
