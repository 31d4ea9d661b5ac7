package dev.lancelot.engine.internal.file;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancelot.engine.io.HadoopFileIO;
import dev.lancelot.engine.io.InputFile;
import dev.lancelot.engine.schema.LanceSchema;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A dataset written by lance-core 7.0.0 ({@code Dataset.write()}) with the foundation columns,
 * large enough that the vector column spans two pages: our reader returns the same rows through the
 * manifest's field/column mapping, and takes and range scans read only what they need.
 */
@Tag("oracle")
class LanceDatasetFilesTest {
  static final int BATCHES = 8;
  static final int ROWS = 3000;

  @TempDir static Path dir;
  static BufferAllocator allocator;
  static Path dataFile;
  static int[] fields;
  static int[] columnIndices;

  @BeforeAll
  static void write() throws Exception {
    allocator = new RootAllocator();
    String uri = dir.resolve("ds").toString();
    try (org.apache.arrow.vector.ipc.ArrowReader source =
            FoundationData.reader(allocator, BATCHES, ROWS, 11);
        org.lance.Dataset ds =
            org.lance.Dataset.write().allocator(allocator).reader(source).uri(uri).execute()) {
      assertThat(ds.getLanceFileFormatVersion()).isEqualTo("2.1");
      List<org.lance.Fragment> frags = ds.getFragments();
      assertThat(frags).hasSize(1);
      org.lance.fragment.DataFile df = frags.get(0).metadata().getFiles().get(0);
      dataFile = dir.resolve("ds").resolve("data").resolve(df.getPath());
      fields = df.getFields();
      columnIndices = df.getColumnIndices();
      assertThat(df.getFileMajorVersion()).isEqualTo(2);
      assertThat(df.getFileMinorVersion()).isEqualTo(1);
    }
  }

  @AfterAll
  static void close() {
    allocator.close();
  }

  @Test
  void manifestRecordsLeafFieldIdsAndColumnIndices() {
    assertThat(fields).containsExactly(0, 1, 2, 3);
    assertThat(columnIndices).containsExactly(0, 1, 2, 3);
  }

  @Test
  void readsEveryRowThroughTheManifestMapping() throws Exception {
    HadoopFileIO io = HadoopFileIO.local();
    try (InputFile in = io.newInputFile(dataFile.toUri().toString())) {
      LanceFileReader reader = LanceFileReader.open(in);
      System.out.println(LanceFileInspector.describe(in));
      assertThat(reader.numRows()).isEqualTo((long) BATCHES * ROWS);
      assertThat(reader.metadata().column(3).pages()).as("vector pages").hasSizeGreaterThan(1);
      LanceSchema schema = reader.schema();
      assertThat(schema.leafColumnIndices())
          .containsExactly(
              java.util.Map.entry(0, 0),
              java.util.Map.entry(1, 1),
              java.util.Map.entry(2, 2),
              java.util.Map.entry(3, 3));
      FileProjection projection = FileProjection.fromDataFile(schema, fields, columnIndices);
      List<List<Object>> actual =
          List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
      try (LanceBatchReader batches = reader.read(projection, 4096, allocator)) {
        while (batches.loadNextBatch()) {
          VectorSchemaRoot root = batches.getVectorSchemaRoot();
          for (int c = 0; c < 4; c++) {
            actual.get(c).addAll(Values.of(root.getVector(c)));
          }
        }
      }
      for (int b = 0; b < BATCHES; b++) {
        try (VectorSchemaRoot expected =
            FoundationData.batch(allocator, (long) b * ROWS, ROWS, 11)) {
          for (int c = 0; c < 4; c++) {
            assertThat(actual.get(c).subList(b * ROWS, (b + 1) * ROWS))
                .as("column %d batch %d", c, b)
                .containsExactlyElementsOf(Values.of(expected.getVector(c)));
          }
        }
      }
    }
  }

  @Test
  void openingReadsOnlyTheTailOnceAndLanceChoseTheDocumentedEncodings() {
    HadoopFileIO io = new HadoopFileIO(new Configuration(), 0, 16 << 20);
    try (InputFile in = io.newInputFile(dataFile.toUri().toString())) {
      io.stats().reset();
      LanceFileReader reader = LanceFileReader.open(in);
      assertThat(io.stats().readRequests()).as("reads to open").isEqualTo(1);
      assertThat(io.stats().bytesRead()).isLessThanOrEqualTo(64 * 1024);
      var encodings = LanceFileInspector.encodings(in);
      assertThat(encodings.get("id"))
          .containsExactly("MiniBlock[values=InlineBitpacking(64), layers=all_valid_item]");
      assertThat(encodings.get("tenant_id"))
          .containsExactly("MiniBlock[values=InlineBitpacking(32), layers=all_valid_item]");
      assertThat(encodings.get("name"))
          .containsExactly(
              "MiniBlock[values=Fsst(Variable(Flat(32))), def=OutOfLineBitpacking(16 -> Flat(1)), layers=nullable_item]");
      assertThat(encodings.get("vec"))
          .containsExactly(
              "FullZip[fixed 4224 bits, values=FixedSizeList(128, validity,"
                  + " Flat(32)), rep bits 0, def bits 1, layers=nullable_item]");
      assertThat(reader.numColumns()).isEqualTo(4);
    }
  }

  @Test
  void randomTakeReadsOnlyTheNeededChunksAndValues() {
    HadoopFileIO io = new HadoopFileIO(new Configuration(), 0, 16 << 20);
    try (InputFile in = io.newInputFile(dataFile.toUri().toString())) {
      LanceFileReader reader = LanceFileReader.open(in);
      long fileSize = in.length();
      long[] rows = new Random(3).longs(20, 0, reader.numRows()).sorted().toArray();
      io.stats().reset();
      try (VectorSchemaRoot taken =
          reader.take(FileProjection.all(reader.schema()), rows, allocator)) {
        assertThat(taken.getRowCount()).isEqualTo(20);
        for (int i = 0; i < rows.length; i++) {
          assertThat(taken.getVector("id").getObject(i)).isEqualTo(rows[i]);
        }
      }
      long read = io.stats().bytesRead();
      System.out.printf("take of 20 rows read %d bytes of a %d-byte file%n", read, fileSize);
      assertThat(read).as("bytes read by take").isLessThan(fileSize / 50);
    }
  }

  /** Counts positioned-read calls (each may cover many coalesced ranges). */
  static final class CountingInputFile implements InputFile {
    final InputFile delegate;
    int calls;

    CountingInputFile(InputFile delegate) {
      this.delegate = delegate;
    }

    @Override
    public String location() {
      return delegate.location();
    }

    @Override
    public long length() {
      return delegate.length();
    }

    @Override
    public java.nio.ByteBuffer read(long position, int length) {
      calls++;
      return delegate.read(position, length);
    }

    @Override
    public List<java.nio.ByteBuffer> readRanges(List<dev.lancelot.engine.io.ByteRange> ranges) {
      calls++;
      return delegate.readRanges(ranges);
    }

    @Override
    public void close() {
      delegate.close();
    }
  }

  @Test
  void takeAcrossColumnsAndPagesNeedsAtMostThreeRoundsOfIo() {
    try (CountingInputFile in =
        new CountingInputFile(HadoopFileIO.local().newInputFile(dataFile.toUri().toString()))) {
      LanceFileReader reader = LanceFileReader.open(in);
      long[] rows = {1, 2, 3, 17_999, 18_000, 23_999};
      in.calls = 0;
      try (VectorSchemaRoot taken =
          reader.take(FileProjection.all(reader.schema()), rows, allocator)) {
        assertThat(taken.getRowCount()).isEqualTo(rows.length);
        assertThat(taken.getVector("id").getObject(5)).isEqualTo(23_999L);
      }
      assertThat(in.calls)
          .as("read calls of a take over 4 columns and 2 vector pages")
          .isLessThanOrEqualTo(2);
    }
  }

  @Test
  void rangeScanReadsOnlyOverlappingPages() throws Exception {
    HadoopFileIO io = new HadoopFileIO(new Configuration(), 0, 16 << 20);
    try (InputFile in = io.newInputFile(dataFile.toUri().toString())) {
      LanceFileReader reader = LanceFileReader.open(in);
      var vecPages = reader.metadata().column(3).pages();
      var last = vecPages.get(vecPages.size() - 1);
      io.stats().reset();
      FileProjection vec = FileProjection.ofNames(reader.schema(), List.of("vec"));
      long rows = 0;
      long reported;
      try (LanceBatchReader batches =
          reader.read(vec, last.firstRow(), last.endRow(), 1000, allocator)) {
        while (batches.loadNextBatch()) {
          rows += batches.getVectorSchemaRoot().getRowCount();
        }
        reported = batches.bytesRead();
      }
      assertThat(rows).isEqualTo(last.numRows());
      long pageBytes = java.util.Arrays.stream(last.bufferSizes()).sum();
      assertThat(io.stats().bytesRead()).isEqualTo(pageBytes);
      assertThat(reported).isEqualTo(pageBytes);
    }
  }
}
