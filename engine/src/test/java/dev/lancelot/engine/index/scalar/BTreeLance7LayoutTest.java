package dev.lancelot.engine.index.scalar;

import static dev.lancelot.engine.index.scalar.BTreeTesting.indexAddresses;
import static dev.lancelot.engine.index.scalar.BTreeTesting.scanAddresses;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lancelot.engine.index.IndexSegment;
import dev.lancelot.engine.internal.expr.eval.ColumnKind;
import dev.lancelot.engine.internal.file.FileProjection;
import dev.lancelot.engine.internal.file.LanceBatchReader;
import dev.lancelot.engine.internal.file.LanceFileReader;
import dev.lancelot.engine.internal.format.proto.TableProtos.IndexFile;
import dev.lancelot.engine.internal.index.IndexInternals;
import dev.lancelot.engine.internal.index.scalar.btree.ValueCodec;
import dev.lancelot.engine.io.HadoopFileIO;
import dev.lancelot.engine.io.InputFile;
import dev.lancelot.engine.schema.LanceField;
import dev.lancelot.engine.testing.ArrowStreams;
import dev.lancelot.engine.testing.LanceOracle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import org.lance.index.IndexParams;
import org.lance.index.IndexType;
import org.lance.index.scalar.ScalarIndexParams;
import org.roaringbitmap.RoaringBitmap;

/**
 * The facts {@code BTreeFiles} documents, checked on BTrees lance-core 7.0.0 builds over every
 * indexable kind (with NULLs, NaN, -0.0, extremes, non-ASCII strings), and that our builder writes
 * the same pages from the same data; our lookups on all of Lance's indexes equal our scans.
 */
@Tag("oracle")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BTreeLance7LayoutTest {
  private static final int ROWS = 9000;
  private static final List<String> COLUMNS =
      List.of("i32", "i64", "u64", "f64", "f32", "s", "bin", "d", "ts", "flag");
  private BufferAllocator allocator;
  private Path dir;
  private long versionBeforeFirstIndex;

  @BeforeAll
  void setUp(@TempDir Path tmp) throws Exception {
    allocator = new RootAllocator();
    dir = tmp.resolve("ds");
    try (VectorSchemaRoot batch = BTreeTesting.mixed(allocator, 0, ROWS, 5);
        ArrowReader reader = ArrowStreams.readerOf(allocator, List.of(batch))) {
      Dataset.write()
          .allocator(allocator)
          .reader(reader)
          .uri(dir.toString())
          .maxRowsPerFile(4000)
          .execute()
          .close();
    }
    try (Dataset ds = LanceOracle.open(allocator, dir)) {
      ds.delete("i32 = 7");
      versionBeforeFirstIndex = ds.version();
      for (String c : COLUMNS) {
        IndexParams p =
            IndexParams.builder().setScalarIndexParams(ScalarIndexParams.create("btree")).build();
        ds.createIndex(List.of(c), IndexType.BTREE, Optional.of(c + "_idx"), p, true);
      }
    }
  }

  @AfterAll
  void tearDown() {
    allocator.close();
  }

  @Test
  void ourLookupsOnLanceIndexesOfEveryKindMatchOurScan() {
    try (dev.lancelot.engine.Dataset ours = dev.lancelot.engine.Dataset.open(dir.toString())) {
      for (String filter : BTreeRoundTripTest.FILTERS) {
        ScalarIndexQuery q = ScalarIndexQuery.plan(ours, filter);
        assertThat(q.isExact()).as(q.explain()).isTrue();
        assertThat(indexAddresses(ours, filter)).as(filter).isEqualTo(scanAddresses(ours, filter));
      }
    }
  }

  @Test
  void manifestEntriesAreAsDocumented() throws java.io.IOException {
    try (dev.lancelot.engine.Dataset ours = dev.lancelot.engine.Dataset.open(dir.toString())) {
      IndexSegment first = ours.indexes().segments("i32_idx").get(0);
      assertThat(first.type()).isEqualTo(dev.lancelot.engine.index.IndexType.BTREE);
      assertThat(IndexInternals.proto(first).getIndexDetails().getTypeUrl())
          .isEqualTo("/lance.table.BTreeIndexDetails");
      assertThat(IndexInternals.proto(first).getIndexDetails().getValue().isEmpty()).isTrue();
      assertThat(IndexInternals.proto(first).getIndexVersion()).isZero();
      assertThat(first.datasetVersion()).isEqualTo(versionBeforeFirstIndex);
      assertThat(first.fragments()).isEqualTo(RoaringBitmap.bitmapOf(0, 1, 2));
      assertThat(IndexInternals.proto(first).getFilesList())
          .extracting(IndexFile::getPath)
          .containsExactly("page_lookup.lance", "page_data.lance");
      for (IndexFile f : IndexInternals.proto(first).getFilesList()) {
        assertThat(Files.size(dir.resolve(first.directory()).resolve(f.getPath())))
            .isEqualTo(f.getSizeBytes());
      }
    }
  }

  @Test
  void lanceFilesHaveTheDocumentedLayout() {
    for (String column : List.of("i32", "f64", "s", "u64", "flag")) {
      try (dev.lancelot.engine.Dataset ours = dev.lancelot.engine.Dataset.open(dir.toString())) {
        LanceField field = ours.field(column);
        ColumnKind kind = ColumnKind.of(field.arrowType());
        IndexSegment seg = ours.indexes().segments(column + "_idx").get(0);
        Table lookup = read(dir.resolve(seg.directory()).resolve("page_lookup.lance"), kind);
        Table pages = read(dir.resolve(seg.directory()).resolve("page_data.lance"), kind);

        assertThat(lookup.names).containsExactly("min", "max", "null_count", "page_idx");
        assertThat(lookup.types)
            .containsExactly(field.logicalType(), field.logicalType(), "uint32", "uint32");
        assertThat(lookup.nullable).containsExactly(true, true, false, false);
        assertThat(lookup.metadata)
            .containsEntry("batch_size", "4096")
            .containsEntry("range_partitioned", "false");
        assertThat(pages.names).containsExactly("values", "ids");
        assertThat(pages.types).containsExactly(field.logicalType(), "uint64");
        assertThat(pages.nullable).containsExactly(true, false);

        long live = ours.countRows();
        assertThat(pages.rows).as("deleted rows are not indexed").isEqualTo(live);
        int pageCount = (int) ((live + 4095) / 4096);
        assertThat(lookup.rows).isEqualTo(pageCount);

        Sorted sorted = pages.decoded.get(0);
        assertThat(sorted.nullsFirstThenAscending()).as(column).isTrue();
        for (int p = 0; p < pageCount; p++) {
          int from = p * 4096;
          int to = (int) Math.min(live, from + 4096L);
          assertThat(lookup.u32(3, p)).isEqualTo(p);
          assertThat(lookup.u32(2, p)).isEqualTo(sorted.nullsIn(from, to));
          assertThat(lookup.isNull(0, p)).isEqualTo(sorted.isNull(from));
          assertThat(lookup.isNull(1, p)).isEqualTo(sorted.isNull(to - 1));
          if (!sorted.isNull(from)) {
            assertThat(lookup.decoded.get(0).value(p)).isEqualTo(sorted.value(from));
          }
          if (!sorted.isNull(to - 1)) {
            assertThat(lookup.decoded.get(1).value(p)).isEqualTo(sorted.value(to - 1));
          }
        }
        // ids are row addresses of rows holding those values
        long[] ids = new long[300];
        for (int i = 0; i < ids.length; i++) {
          ids[i] = pages.u64(1, (int) ((long) i * (live - 1) / (ids.length - 1)));
        }
        try (VectorSchemaRoot taken = ours.take(ids, List.of(column))) {
          assertThat(taken.getRowCount()).isEqualTo(ids.length);
          Sorted fromRows = Sorted.ofVector(taken.getVector(0), kind, ids.length, null);
          for (int i = 0; i < ids.length; i++) {
            int row = (int) ((long) i * (live - 1) / (ids.length - 1));
            assertThat(fromRows.isNull(i)).isEqualTo(sorted.isNull(row));
            if (!sorted.isNull(row)) {
              assertThat(fromRows.value(i))
                  .as("%s row %d", column, row)
                  .isEqualTo(sorted.value(row));
            }
          }
        }
      }
    }
  }

  @Test
  void ourBuilderWritesTheSamePagesAsLance() {
    for (String column : List.of("f64", "s", "i32")) {
      try (dev.lancelot.engine.Dataset ours = dev.lancelot.engine.Dataset.open(dir.toString())) {
        dev.lancelot.engine.Dataset v =
            BTreeIndexBuilder.build(ours, BTreeBuildParams.of(column).withName(column + "_ours"));
        ColumnKind kind = ColumnKind.of(ours.field(column).arrowType());
        Path lance = dir.resolve(v.indexes().segments(column + "_idx").get(0).directory());
        Path mine = dir.resolve(v.indexes().segments(column + "_ours").get(0).directory());
        Table lanceLookup = read(lance.resolve("page_lookup.lance"), kind);
        Table myLookup = read(mine.resolve("page_lookup.lance"), kind);
        assertThat(myLookup.names).isEqualTo(lanceLookup.names);
        assertThat(myLookup.types).isEqualTo(lanceLookup.types);
        assertThat(myLookup.nullable).isEqualTo(lanceLookup.nullable);
        assertThat(myLookup.metadata).isEqualTo(lanceLookup.metadata);
        assertThat(myLookup.cells()).isEqualTo(lanceLookup.cells());
        Table lancePages = read(lance.resolve("page_data.lance"), kind);
        Table myPages = read(mine.resolve("page_data.lance"), kind);
        assertThat(myPages.names).isEqualTo(lancePages.names);
        assertThat(myPages.types).isEqualTo(lancePages.types);
        assertThat(myPages.nullable).isEqualTo(lancePages.nullable);
        assertThat(myPages.column(0))
            .as("values in the same order")
            .isEqualTo(lancePages.column(0));
        // equal values may list their row addresses in another order; the pairs are the same
        assertThat(myPages.decoded.get(0).pairs()).isEqualTo(lancePages.decoded.get(0).pairs());
      }
    }
  }

  // ---------------------------------------------------------------- reading raw index files

  /**
   * A whole small Lance file read with our reader: cells normalized for equality, value columns
   * decoded.
   */
  private static final class Table {
    final List<String> names = new ArrayList<>();
    final List<String> types = new ArrayList<>();
    final List<Boolean> nullable = new ArrayList<>();
    final List<List<Object>> values = new ArrayList<>();
    final List<Sorted> decoded = new ArrayList<>();
    Map<String, String> metadata;
    long rows;

    List<Object> column(int c) {
      return values.get(c);
    }

    List<List<Object>> cells() {
      return values;
    }

    boolean isNull(int c, int row) {
      return values.get(c).get(row) == null;
    }

    long u32(int c, int row) {
      return ((Number) values.get(c).get(row)).longValue();
    }

    long u64(int c, int row) {
      return ((Number) values.get(c).get(row)).longValue();
    }
  }

  /** Reads {@code file} in one batch; columns of the indexed type are decoded as {@code kind}. */
  private Table read(Path file, ColumnKind kind) {
    Table t = new Table();
    try (InputFile in = HadoopFileIO.local().newInputFile(HadoopFileIO.qualify(file.toString()))) {
      LanceFileReader reader = LanceFileReader.open(in);
      for (LanceField f : reader.schema().fields()) {
        t.names.add(f.name());
        t.types.add(f.logicalType());
        t.nullable.add(f.nullable());
        t.values.add(new ArrayList<>());
      }
      t.metadata = reader.schema().metadata();
      t.rows = reader.numRows();
      int n = (int) t.rows;
      try (LanceBatchReader batches =
          reader.read(FileProjection.all(reader.schema()), 0, n, Math.max(1, n), allocator)) {
        while (batches.loadNextBatch()) {
          VectorSchemaRoot root = batches.getVectorSchemaRoot();
          FieldVector ids = t.names.contains("ids") ? root.getVector("ids") : null;
          for (int c = 0; c < root.getFieldVectors().size(); c++) {
            FieldVector v = root.getVector(c);
            for (int i = 0; i < root.getRowCount(); i++) {
              t.values.get(c).add(normalize(v.getObject(i)));
            }
            boolean valueColumn =
                t.names.get(c).equals("values")
                    || t.names.get(c).equals("min")
                    || t.names.get(c).equals("max");
            t.decoded.add(valueColumn ? Sorted.ofVector(v, kind, n, ids) : null);
          }
        }
      }
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return t;
  }

  /** Floats by bits (NaN payloads and -0.0 matter), bytes by content, numbers as longs. */
  private static Object normalize(Object o) {
    if (o == null) {
      return null;
    } else if (o instanceof byte[] b) {
      return Arrays.toString(b);
    } else if (o instanceof Double d) {
      return "f64:" + Long.toHexString(Double.doubleToRawLongBits(d));
    } else if (o instanceof Float f) {
      return "f32:" + Integer.toHexString(Float.floatToRawIntBits(f));
    } else if (o instanceof Number n) {
      return n.longValue();
    }
    return o.toString();
  }

  /** Values of a column in our comparable form, with their ids when the file has them. */
  private record Sorted(boolean[] nulls, long[] keys, byte[][] bytes, long[] ids) {
    static Sorted ofVector(FieldVector v, ColumnKind kind, int rows, FieldVector idVector) {
      boolean[] nulls = ValueCodec.nulls(v, rows);
      long[] ids = null;
      if (idVector != null) {
        ids = new long[rows];
        for (int i = 0; i < rows; i++) {
          ids[i] = ((Number) idVector.getObject(i)).longValue();
        }
      }
      return ValueCodec.usesKeys(kind)
          ? new Sorted(nulls, ValueCodec.keys(v, kind, rows), null, ids)
          : new Sorted(nulls, null, ValueCodec.bytes(v, kind, rows), ids);
    }

    boolean isNull(int row) {
      return nulls[row];
    }

    Object value(int row) {
      return keys != null ? (Object) keys[row] : Arrays.toString(bytes[row]);
    }

    int nullsIn(int from, int to) {
      int n = 0;
      for (int i = from; i < to; i++) {
        n += nulls[i] ? 1 : 0;
      }
      return n;
    }

    boolean nullsFirstThenAscending() {
      for (int i = 1; i < nulls.length; i++) {
        if (nulls[i] && !nulls[i - 1]) {
          return false;
        }
        if (!nulls[i] && !nulls[i - 1]) {
          int c =
              keys != null
                  ? Long.compare(keys[i - 1], keys[i])
                  : Arrays.compareUnsigned(bytes[i - 1], bytes[i]);
          if (c > 0) {
            return false;
          }
        }
      }
      return true;
    }

    List<String> pairs() {
      List<String> out = new ArrayList<>();
      for (int i = 0; i < nulls.length; i++) {
        out.add((nulls[i] ? "null" : value(i)) + "@" + ids[i]);
      }
      out.sort(null);
      return out;
    }
  }
}
