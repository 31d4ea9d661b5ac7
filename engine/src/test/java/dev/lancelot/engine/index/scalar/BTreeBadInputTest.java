package dev.lancelot.engine.index.scalar;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.CacheKind;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.LancelotException;
import dev.lancelot.engine.Session;
import dev.lancelot.engine.WriteMode;
import dev.lancelot.engine.index.IndexSegment;
import dev.lancelot.engine.internal.expr.eval.ColumnKind;
import dev.lancelot.engine.internal.format.IndexUuids;
import dev.lancelot.engine.internal.format.proto.TableProtos.IndexFile;
import dev.lancelot.engine.internal.format.proto.TableProtos.IndexMetadata;
import dev.lancelot.engine.internal.index.IndexInternals;
import dev.lancelot.engine.internal.index.scalar.btree.BTreeFiles;
import dev.lancelot.engine.internal.index.scalar.btree.BTreeSegmentReader;
import dev.lancelot.engine.internal.index.scalar.btree.BTreeWriter;
import dev.lancelot.engine.internal.index.scalar.btree.Condition;
import dev.lancelot.engine.internal.index.scalar.btree.IndexColumnData;
import dev.lancelot.engine.io.HadoopFileIO;
import dev.lancelot.engine.schema.LanceField;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/** Bad input gives errors that say what to change and name the file, never a wrong answer. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BTreeBadInputTest {
  private BufferAllocator allocator;

  @BeforeAll
  void setUp() {
    allocator = new RootAllocator();
  }

  @AfterAll
  void tearDown() {
    allocator.close();
  }

  @Test
  void unknownAndUnsupportedColumnsAndTakenNames(@TempDir Path tmp) {
    try (Dataset ds =
        BTreeTesting.write(allocator, tmp.resolve("ds"), 0, 50, 50, WriteMode.CREATE)) {
      assertThatThrownBy(() -> BTreeIndexBuilder.build(ds, BTreeBuildParams.of("nope")))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageStartingWith("Cannot create a BTree index on column \"nope\"")
          .hasMessageContaining("the dataset has no such column. Its columns are [i32, i64, u64,");
      assertThatThrownBy(() -> BTreeIndexBuilder.build(ds, BTreeBuildParams.of("vec")))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("Cannot create a BTree index on column \"vec\"")
          .hasMessageContaining("its type fixed_size_list:float:2 cannot be indexed by a BTree")
          .hasMessageContaining(
              "Index an integer, float, date, timestamp, bool, string or binary column");
      Dataset v = BTreeIndexBuilder.build(ds, BTreeBuildParams.of("i32"));
      assertThatThrownBy(
              () -> BTreeIndexBuilder.build(v, BTreeBuildParams.of("s").withName("i32_idx")))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("Cannot create index \"i32_idx\" on column s")
          .hasMessageContaining("an index with that name already exists (BTREE)")
          .hasMessageContaining("Replace it (replace=true, --replace) or choose another name.");
      Dataset replaced =
          BTreeIndexBuilder.build(
              v, BTreeBuildParams.of("s").withName("i32_idx").withReplace(true));
      assertThat(replaced.indexes().segments("i32_idx")).hasSize(1);
      assertThat(ScalarIndexQuery.plan(replaced, "s = 'a'").indexes()).containsExactly("i32_idx");
      assertThat(ScalarIndexQuery.plan(replaced, "i32 = 1").isExact()).isFalse();
      assertThatThrownBy(() -> BTreeBuildParams.of("x").withPageSize(0))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("page size must be at least 1");
    }
  }

  @Test
  void corruptOrMissingIndexFilesNameTheFile(@TempDir Path tmp) throws Exception {
    Path dir = tmp.resolve("ds");
    try (Dataset base = BTreeTesting.write(allocator, dir, 0, 500, 500, WriteMode.CREATE)) {
      Dataset ds = BTreeIndexBuilder.build(base, BTreeBuildParams.of("i32").withPageSize(100));
      Path index = dir.resolve(ds.indexes().segments("i32_idx").get(0).directory());
      Path pages = index.resolve(BTreeFiles.PAGES_FILE);
      Path lookup = index.resolve(BTreeFiles.LOOKUP_FILE);
      byte[] pageBytes = Files.readAllBytes(pages);
      byte[] lookupBytes = Files.readAllBytes(lookup);

      Files.write(pages, Arrays.copyOf(pageBytes, pageBytes.length - 10));
      assertCorrupt(ds, "page_data.lance");
      byte[] badMagic = pageBytes.clone();
      badMagic[badMagic.length - 1] = 'X';
      Files.write(pages, badMagic);
      assertCorrupt(ds, "page_data.lance");
      Files.write(pages, pageBytes);

      byte[] garbage = lookupBytes.clone();
      for (int i = 0; i < garbage.length - 8; i += 7) {
        garbage[i] ^= 0x5A;
      }
      Files.write(lookup, garbage);
      assertCorrupt(ds, "page_lookup.lance");
      Files.write(lookup, lookupBytes);

      Files.delete(pages);
      Session.shared().clear(CacheKind.SCALAR_INDEX);
      assertThatThrownBy(() -> ScalarIndexQuery.plan(ds, "i32 = 1").evaluate())
          .isInstanceOf(LancelotException.class)
          .hasMessageContaining(pages.getFileName().toString());
      Files.write(pages, pageBytes);
      Session.shared().clear(CacheKind.SCALAR_INDEX);
      assertThat(ScalarIndexQuery.plan(ds, "i32 = 1").evaluate().count())
          .isEqualTo(ds.countRows("i32 = 1"));
    }
  }

  private static void assertCorrupt(Dataset ds, String file) {
    Session.shared()
        .clear(CacheKind.SCALAR_INDEX); // the files were changed in place under the shared readers
    assertThatThrownBy(() -> ScalarIndexQuery.plan(ds, "i32 >= 0").evaluate())
        .isInstanceOf(ScalarIndexException.class)
        .hasMessageStartingWith("Cannot read BTree index \"i32_idx\" from ")
        .hasMessageContaining(file)
        .hasMessageContaining("rebuild the index (replace it) or drop it");
  }

  @Test
  void pagesThatContradictTheirLookupAreRefused(@TempDir Path tmp) {
    HadoopFileIO io = HadoopFileIO.local();
    String a = HadoopFileIO.qualify(tmp.resolve("a").toString());
    String b = HadoopFileIO.qualify(tmp.resolve("b").toString());
    writeInts(io, a, 0);
    writeInts(io, b, 1000);
    io.deleteRecursively(a + "/" + BTreeFiles.LOOKUP_FILE);
    try (var in = io.newInputFile(b + "/" + BTreeFiles.LOOKUP_FILE);
        var out = io.create(a + "/" + BTreeFiles.LOOKUP_FILE)) {
      out.write(in.read(0, (int) in.length()).array());
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    IndexSegment segment =
        IndexInternals.segment(
            IndexMetadata.newBuilder()
                .setName("x_idx")
                .setUuid(
                    dev.lancelot.engine.internal.format.proto.TableProtos.UUID
                        .newBuilder()
                        .setUuid(IndexUuids.uuidBytes(java.util.UUID.randomUUID())))
                .build());
    LanceField column =
        LanceField.fromArrow(
            new org.apache.arrow.vector.types.pojo.Field(
                "x",
                org.apache.arrow.vector.types.pojo.FieldType.nullable(new ArrowType.Int(32, true)),
                null));
    try (BTreeSegmentReader reader = BTreeSegmentReader.open(io, a, segment, column, allocator)) {
      assertThatThrownBy(() -> reader.search(List.of(new Condition.Nulls(true))))
          .isInstanceOf(ScalarIndexException.class)
          .hasMessageContaining(a + "/page_data.lance")
          .hasMessageContaining(
              "page 0 row 0 holds a value outside the page's [min, max] in page_lookup.lance");
    }
    IndexSegment ambiguous =
        IndexInternals.segment(
            IndexInternals.proto(segment).toBuilder()
                .addFiles(IndexFile.newBuilder().setPath("part_0_page_lookup.lance"))
                .addFiles(IndexFile.newBuilder().setPath("part_1_page_lookup.lance"))
                .addFiles(IndexFile.newBuilder().setPath("part_0_page_data.lance"))
                .build());
    assertThatThrownBy(() -> BTreeSegmentReader.open(io, a, ambiguous, column, allocator))
        .isInstanceOf(ScalarIndexException.class)
        .hasMessageContaining(
            "the manifest lists page lookup files [part_0_page_lookup.lance, part_1_page_lookup.lance]")
        .hasMessageContaining("Rebuild the index, or merge it with Lance.");
    LanceField strings =
        LanceField.fromArrow(
            new org.apache.arrow.vector.types.pojo.Field(
                "x",
                org.apache.arrow.vector.types.pojo.FieldType.nullable(ArrowType.Utf8.INSTANCE),
                null));
    assertThatThrownBy(() -> BTreeSegmentReader.open(io, a, segment, strings, allocator))
        .isInstanceOf(ScalarIndexException.class)
        .hasMessageContaining("column min has type int32 but the indexed column has type Utf8");
  }

  /** An int32 BTree over 300 rows with values {@code offset + row}. */
  private void writeInts(HadoopFileIO io, String directory, int offset) {
    IndexColumnData data = new IndexColumnData(ColumnKind.INT32, 300);
    try (IntVector values = new IntVector("x", allocator);
        UInt8Vector ids = new UInt8Vector("_rowaddr", allocator)) {
      values.allocateNew(300);
      ids.allocateNew(300);
      for (int i = 0; i < 300; i++) {
        values.set(i, offset + i);
        ids.set(i, i);
      }
      values.setValueCount(300);
      ids.setValueCount(300);
      data.append(values, ids, 300);
    }
    BTreeWriter.write(io, directory, new ArrowType.Int(32, true), data, 100, allocator);
  }
}
