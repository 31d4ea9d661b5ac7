package dev.lancelot.engine.internal.file;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancelot.engine.internal.file.container.ColumnInfo;
import dev.lancelot.engine.internal.file.container.PageInfo;
import dev.lancelot.engine.io.HadoopFileIO;
import dev.lancelot.engine.io.InputFile;
import java.nio.file.Path;
import java.util.Arrays;
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
 * Taking 1,000 random rows of a 200,000-row data file written by lance-core 7.0.0 (the foundation
 * columns, about 100 MB) reads only what those rows need: far less than the file, never more than
 * the pages holding them, and for the full-zip vector column just the rows' own bytes.
 */
@Tag("oracle")
class RandomTakeBytesTest {
  static final int BATCHES = 25;
  static final int ROWS = 8000;
  static final int TAKE = 1000;

  @TempDir static Path dir;
  static BufferAllocator allocator;
  static Path dataFile;

  @BeforeAll
  static void write() throws Exception {
    allocator = new RootAllocator();
    String uri = dir.resolve("ds").toString();
    try (org.apache.arrow.vector.ipc.ArrowReader source =
            FoundationData.reader(allocator, BATCHES, ROWS, 5);
        org.lance.Dataset ds =
            org.lance.Dataset.write().allocator(allocator).reader(source).uri(uri).execute()) {
      List<org.lance.Fragment> frags = ds.getFragments();
      assertThat(frags).hasSize(1);
      dataFile =
          dir.resolve("ds")
              .resolve("data")
              .resolve(frags.get(0).metadata().getFiles().get(0).getPath());
    }
  }

  @AfterAll
  static void close() {
    allocator.close();
  }

  /** No gap coalescing, so the counters show exactly the ranges the reader asked for. */
  static HadoopFileIO exactIo() {
    return new HadoopFileIO(new Configuration(), 0, 16 << 20);
  }

  static long[] randomRows(long numRows) {
    return new Random(42).longs(TAKE * 2L, 0, numRows).distinct().limit(TAKE).sorted().toArray();
  }

  /** Buffer bytes of the pages of {@code column} that hold at least one of {@code rows}. */
  static long touchedPageBytes(ColumnInfo column, long[] rows) {
    long total = 0;
    for (PageInfo p : column.pages()) {
      int at = Arrays.binarySearch(rows, p.firstRow());
      int idx = at >= 0 ? at : -at - 1;
      if (idx < rows.length && rows[idx] < p.endRow()) {
        total += Arrays.stream(p.bufferSizes()).sum();
      }
    }
    return total;
  }

  @Test
  void takingAThousandRandomRowsReadsOnlyTheirPagesAndFarLessThanTheFile() {
    HadoopFileIO io = exactIo();
    try (InputFile in = io.newInputFile(dataFile.toUri().toString())) {
      LanceFileReader reader = LanceFileReader.open(in);
      assertThat(reader.numRows()).isEqualTo((long) BATCHES * ROWS);
      long[] rows = randomRows(reader.numRows());
      assertThat(rows).hasSize(TAKE);
      long fileSize = in.length();
      long touched = 0;
      for (ColumnInfo c : reader.metadata().columns()) {
        touched += touchedPageBytes(c, rows);
      }
      io.stats().reset();
      try (VectorSchemaRoot taken =
          reader.take(FileProjection.all(reader.schema()), rows, allocator)) {
        assertThat(taken.getRowCount()).isEqualTo(TAKE);
        for (int i = 0; i < TAKE; i++) {
          assertThat(taken.getVector("id").getObject(i)).isEqualTo(rows[i]);
        }
      }
      long read = io.stats().bytesRead();
      System.out.printf(
          "take of %,d random rows of %,d read %,d bytes in %d requests; the file has %,d bytes,"
              + " the pages holding the rows %,d%n",
          TAKE, reader.numRows(), read, io.stats().readRequests(), fileSize, touched);
      assertThat(read).as("bytes read by the take").isLessThan(fileSize / 20);
      assertThat(read).as("bytes read vs the pages holding the rows").isLessThanOrEqualTo(touched);
    }
  }

  @Test
  void takingVectorsReadsJustTheRowsFromFullZipPages() {
    HadoopFileIO io = exactIo();
    try (InputFile in = io.newInputFile(dataFile.toUri().toString())) {
      LanceFileReader reader = LanceFileReader.open(in);
      long[] rows = randomRows(reader.numRows());
      ColumnInfo vec = reader.metadata().column(3);
      String layout = LanceFileInspector.encodings(in).get("vec").get(0);
      assertThat(layout).startsWith("FullZip[fixed 4224 bits");
      int rowBytes = 1 + 4224 / 8; // a control byte (the row's definition level), then the value
      io.stats().reset();
      try (VectorSchemaRoot taken =
          reader.take(FileProjection.ofNames(reader.schema(), List.of("vec")), rows, allocator)) {
        assertThat(taken.getRowCount()).isEqualTo(TAKE);
      }
      long read = io.stats().bytesRead();
      System.out.printf(
          "vector take of %,d rows read %,d bytes (%d per row) of a %,d-byte column%n",
          TAKE, read, read / TAKE, vec.dataBytes());
      assertThat(read).as("bytes read by the vector take").isEqualTo((long) TAKE * rowBytes);
    }
  }
}
