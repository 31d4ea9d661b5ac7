package dev.lancelot.engine.index.scalar;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.CompactionOptions;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.LancelotException;
import dev.lancelot.engine.index.IndexSegment;
import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.testing.ArrowStreams;
import dev.lancelot.engine.testing.LanceOracle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.impl.UnionListWriter;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.Text;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.WriteParams;
import org.lance.index.IndexParams;
import org.lance.index.scalar.InvertedIndexParams;
import org.lance.index.scalar.ScalarIndexParams;

/**
 * Every scalar index kind lance-core 7.0.0 builds is listed with its own type (not {@code OTHER}),
 * filters on its column are answered correctly (from the bitmap index for {@code tenant_id},
 * narrowed by the zone-map and bloom-filter indexes for {@code id}, by reading the rows for the
 * others), building one is refused naming it, and compaction leaves the fragments it covers as they
 * are (so Lance keeps using it).
 */
@Tag("oracle")
class ScalarIndexKindsTest {
  static final int ROWS = 600;

  @Test
  void everyKindLanceBuildsIsListedWithItsType(@TempDir Path dir) {
    Map<String, IndexType> expected = new LinkedHashMap<>();
    try (BufferAllocator a = new RootAllocator()) {
      write(a, dir, 0, WriteParams.WriteMode.CREATE);
      build(a, dir, "tenant_id", "bitmap", org.lance.index.IndexType.BITMAP, null);
      expected.put("tenant_id_bitmap", IndexType.BITMAP);
      build(a, dir, "tags", "labellist", org.lance.index.IndexType.LABEL_LIST, null);
      expected.put("tags_labellist", IndexType.LABEL_LIST);
      build(a, dir, "name", "ngram", org.lance.index.IndexType.NGRAM, null);
      expected.put("name_ngram", IndexType.NGRAM);
      build(a, dir, "id", "zonemap", org.lance.index.IndexType.ZONEMAP, null);
      expected.put("id_zonemap", IndexType.ZONEMAP);
      build(a, dir, "id", "bloomfilter", org.lance.index.IndexType.BLOOM_FILTER, null);
      expected.put("id_bloomfilter", IndexType.BLOOM_FILTER);
      build(
          a,
          dir,
          "name",
          "inverted",
          org.lance.index.IndexType.INVERTED,
          InvertedIndexParams.builder()
              .baseTokenizer("simple")
              .language("English")
              .withPosition(false)
              .maxTokenLength(40)
              .lowerCase(true)
              .stem(false)
              .removeStopWords(false)
              .asciiFolding(false)
              .minNgramLength(3)
              .maxNgramLength(3)
              .prefixOnly(false)
              .skipMerge(false)
              .build());
      expected.put("name_inverted", IndexType.INVERTED);
      write(a, dir, ROWS, WriteParams.WriteMode.APPEND); // an unindexed fragment
      write(a, dir, 2 * ROWS, WriteParams.WriteMode.APPEND);
    }
    try (Dataset ds = Dataset.open(dir.toString())) {
      Map<String, IndexType> listed = new LinkedHashMap<>();
      for (String n : ds.indexes().names()) {
        listed.put(n, ds.indexes().segments(n).get(0).type());
      }
      assertThat(listed).isEqualTo(expected);
      for (IndexType t : expected.values()) {
        assertThat(t.isSupported()).isFalse();
        assertThat(t.isVector()).isFalse();
        assertThatThrownBy(() -> IndexType.parse(t.name()))
            .isInstanceOf(LancelotException.class)
            .hasMessageContaining(
                t.name()
                    + (t == IndexType.INVERTED
                        ? ": lancelot does not build it yet"
                        : ": it is a scalar index kind, built as one"));
      }
      // filters on the indexed columns are answered correctly (tenant_id through its bitmap)
      assertThat(ds.countRows("tenant_id = 3")).isEqualTo(3 * ROWS / 10);
      assertThat(ds.countRows("id < 100 OR id >= 1700")).isEqualTo(200);
      assertThat(ds.countRows("name = 'name-7'")).isEqualTo(9);

      List<Long> covered = new ArrayList<>();
      for (String n : expected.keySet()) {
        IndexSegment s = ds.indexes().segments(n).get(0);
        s.fragments().forEach((int f) -> covered.add((long) f));
      }
      var result = ds.compact(CompactionOptions.defaults());
      try (Dataset compacted = result.dataset()) {
        assertThat(result.committed()).isTrue(); // the two appended fragments merged
        assertThat(compacted.indexes().names()).containsExactlyElementsOf(expected.keySet());
        assertThat(compacted.fragments().stream().map(f -> f.id()).toList()).containsAll(covered);
        assertThat(compacted.countRows("tenant_id = 3")).isEqualTo(3 * ROWS / 10);
      }
    }
    try (BufferAllocator a = new RootAllocator();
        org.lance.Dataset lance = LanceOracle.open(a, dir)) {
      assertThat(lance.countRows()).isEqualTo(3 * ROWS);
      assertThat(lance.listIndexes()).containsExactlyInAnyOrderElementsOf(expected.keySet());
    }
  }

  private static void build(
      BufferAllocator a,
      Path dir,
      String column,
      String kind,
      org.lance.index.IndexType type,
      ScalarIndexParams params) {
    try (org.lance.Dataset ds = LanceOracle.open(a, dir)) {
      ds.createIndex(
          List.of(column),
          type,
          Optional.of(column + "_" + kind),
          IndexParams.builder()
              .setScalarIndexParams(params != null ? params : ScalarIndexParams.create(kind))
              .build(),
          true);
    }
  }

  /** ROWS rows from {@code first}: id, tenant_id = id % 10, name = name-(id % 200), tags. */
  private static void write(BufferAllocator a, Path dir, int first, WriteParams.WriteMode mode) {
    Field tagItem = new Field("item", FieldType.nullable(ArrowType.Utf8.INSTANCE), null);
    Schema schema =
        new Schema(
            List.of(
                new Field("id", FieldType.nullable(new ArrowType.Int(64, true)), null),
                new Field("tenant_id", FieldType.nullable(new ArrowType.Int(32, true)), null),
                new Field("name", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
                new Field("tags", FieldType.nullable(ArrowType.List.INSTANCE), List.of(tagItem))));
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, a)) {
      BigIntVector id = (BigIntVector) root.getVector("id");
      IntVector tenant = (IntVector) root.getVector("tenant_id");
      VarCharVector name = (VarCharVector) root.getVector("name");
      ListVector tags = (ListVector) root.getVector("tags");
      UnionListWriter w = tags.getWriter();
      for (int i = 0; i < ROWS; i++) {
        long v = first + i;
        id.setSafe(i, v);
        tenant.setSafe(i, (int) (v % 10));
        name.setSafe(i, ("name-" + (v % 200)).getBytes(StandardCharsets.UTF_8));
        w.setPosition(i);
        w.startList();
        w.writeVarChar(new Text("t" + (v % 3)));
        w.writeVarChar(new Text("u" + (v % 5)));
        w.endList();
      }
      root.setRowCount(ROWS);
      org.lance.Dataset.write()
          .allocator(a)
          .reader(ArrowStreams.readerOf(a, List.of(root)))
          .uri(dir.toString())
          .mode(mode)
          .execute()
          .close();
    }
  }
}
