package dev.lancelot.engine.internal.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.io.HadoopFileIO;
import dev.lancelot.engine.io.InputFile;
import dev.lancelot.engine.schema.LanceSchema;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Float32 vectors read straight from plain full-zip pages equal the vectors the Arrow read path
 * decodes, row for row and bit for bit: with and without null rows, in chunks that do not divide
 * pages, windows smaller than a page, and through memory maps whose region boundaries cut rows
 * apart; for files written by lancelot and by lance-core 7.0.0. The same for reads of selected rows
 * ({@link VectorPages#scanRows}): none, one, runs and gaps across pages, all; and the same for
 * narrow vectors in mini-block pages, which their page reader decodes into the chunk.
 */
@Tag("oracle")
class VectorPagesTest {
  static final int ROWS = 5000;
  static final int DIM = 67; // 268-byte values: full-zip pages (mini-block below 128 bytes)
  static final int NARROW = 6; // 24-byte values: mini-block pages, decoded by their page reader
  static final long SEED = 20261203L;

  @TempDir static Path dir;
  static BufferAllocator allocator;
  static Path ours;
  static Path lance;

  @BeforeAll
  static void write() {
    allocator = new RootAllocator();
    ours = dir.resolve("ours.lance");
    lance = dir.resolve("lance.lance");
    try (VectorSchemaRoot batch = batch()) {
      LanceSchema schema = LanceSchema.fromArrow(batch.getSchema());
      try (LanceFileWriter w =
          LanceFileWriter.create(
              HadoopFileIO.local().create(ours.toUri().toString()),
              schema,
              WriterOptions.defaults().withMaxPageBytes(64 * 1024))) {
        w.write(batch);
        w.finish();
      }
      OracleFiles.write(lance, allocator, null, List.of(batch));
    }
  }

  @AfterAll
  static void close() {
    allocator.close();
  }

  /** id, "nulls" (every 7th row null, nullable items), "dense" (no nulls, non-nullable items). */
  static VectorSchemaRoot batch() {
    Field item =
        new Field(
            "item",
            FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)),
            null);
    Field dense =
        new Field(
            "item",
            FieldType.notNullable(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)),
            null);
    Schema schema =
        new Schema(
            List.of(
                new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
                new Field(
                    "nulls", FieldType.nullable(new ArrowType.FixedSizeList(DIM)), List.of(item)),
                new Field(
                    "dense",
                    FieldType.notNullable(new ArrowType.FixedSizeList(DIM)),
                    List.of(dense)),
                new Field(
                    "narrow",
                    FieldType.nullable(new ArrowType.FixedSizeList(NARROW)),
                    List.of(item))));
    VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
    Random r = new Random(SEED);
    BigIntVector id = (BigIntVector) root.getVector("id");
    FixedSizeListVector nulls = (FixedSizeListVector) root.getVector("nulls");
    FixedSizeListVector denseVec = (FixedSizeListVector) root.getVector("dense");
    FixedSizeListVector narrow = (FixedSizeListVector) root.getVector("narrow");
    narrow.allocateNew();
    Float4Vector av = (Float4Vector) narrow.getDataVector();
    av.allocateNew(ROWS * NARROW);
    id.allocateNew(ROWS);
    nulls.allocateNew();
    denseVec.allocateNew();
    Float4Vector nv = (Float4Vector) nulls.getDataVector();
    Float4Vector dv = (Float4Vector) denseVec.getDataVector();
    nv.allocateNew(ROWS * DIM);
    dv.allocateNew(ROWS * DIM);
    for (int i = 0; i < ROWS; i++) {
      id.set(i, i);
      if (i % 7 == 3) {
        nulls.setNull(i);
      } else {
        nulls.setNotNull(i);
      }
      denseVec.setNotNull(i);
      if (i % 5 == 1) {
        narrow.setNull(i);
      } else {
        narrow.setNotNull(i);
      }
      for (int d = 0; d < NARROW; d++) {
        av.set(i * NARROW + d, i % 5 == 1 ? 0f : (float) r.nextGaussian());
      }
      for (int d = 0; d < DIM; d++) {
        nv.set(i * DIM + d, i % 7 == 3 ? 0f : (float) r.nextGaussian());
        dv.set(i * DIM + d, d == 0 && i == 17 ? -0.0f : (float) r.nextGaussian() * 1e-30f);
      }
    }
    id.setValueCount(ROWS);
    nv.setValueCount(ROWS * DIM);
    dv.setValueCount(ROWS * DIM);
    nulls.setValueCount(ROWS);
    denseVec.setValueCount(ROWS);
    av.setValueCount(ROWS * NARROW);
    narrow.setValueCount(ROWS);
    root.setRowCount(ROWS);
    return root;
  }

  static Configuration conf(boolean mmap, long regionBytes) {
    Configuration conf = new Configuration(false);
    conf.setBoolean(HadoopFileIO.MMAP, mmap);
    conf.setLong(HadoopFileIO.MMAP_REGION_BYTES, regionBytes);
    conf.setLong(HadoopFileIO.MMAP_MIN_FILE_BYTES, 0);
    return conf;
  }

  /** Rows [start, end) of a column read through Arrow: float bits per row, null rows as null. */
  static List<int[]> viaArrow(LanceFileReader reader, String column, long start, long end)
      throws Exception {
    List<int[]> out = new ArrayList<>();
    try (LanceBatchReader batches =
        reader.read(
            FileProjection.ofNames(reader.schema(), List.of(column)), start, end, 333, allocator)) {
      while (batches.loadNextBatch()) {
        FixedSizeListVector v = (FixedSizeListVector) batches.getVectorSchemaRoot().getVector(0);
        Float4Vector data = (Float4Vector) v.getDataVector();
        int dim = v.getListSize();
        for (int i = 0; i < v.getValueCount(); i++) {
          if (v.isNull(i)) {
            out.add(null);
            continue;
          }
          int[] bits = new int[dim];
          for (int d = 0; d < dim; d++) {
            bits[d] = Float.floatToRawIntBits(data.get(i * dim + d));
          }
          out.add(bits);
        }
      }
    }
    return out;
  }

  static List<int[]> direct(VectorPages pages, long start, long end, int chunkRows) {
    List<int[]> out = new ArrayList<>();
    long[] next = {start};
    pages.scan(
        start,
        end,
        chunkRows,
        (firstRow, n, chunk) -> {
          boolean[] nulls = chunk.nulls();
          float[] vectors = chunk.floats();
          assertThat(firstRow).isEqualTo(next[0]);
          assertThat(n).isBetween(1, chunkRows);
          next[0] += n;
          for (int i = 0; i < n; i++) {
            if (nulls != null && nulls[i]) {
              out.add(null);
              continue;
            }
            int dim = pages.dimension();
            int[] bits = new int[dim];
            for (int d = 0; d < dim; d++) {
              bits[d] = Float.floatToRawIntBits(vectors[i * dim + d]);
            }
            out.add(bits);
          }
        });
    assertThat(next[0]).isEqualTo(end);
    return out;
  }

  @Test
  void directReadsEqualArrowReadsWhateverTheBufferBoundaries() throws Exception {
    for (Path file : new Path[] {ours, lance}) {
      // maps off (positioned reads), one region, and regions of 4099 bytes: rows straddle region
      // ends
      for (Configuration conf :
          new Configuration[] {conf(false, 1 << 30), conf(true, 1 << 30), conf(true, 4099)}) {
        try (HadoopFileIO io = new HadoopFileIO(conf);
            InputFile in = io.newInputFile(file.toUri().toString())) {
          LanceFileReader reader = LanceFileReader.open(in);
          for (String column : new String[] {"nulls", "dense", "narrow"}) {
            FileProjection p = FileProjection.ofNames(reader.schema(), List.of(column));
            assertThat(reader.metadata().column(p.columns(0)[0]).pages().size())
                .as("%s %s", file, column)
                .isGreaterThan(file == ours ? 1 : 0);
            // windows of about 1,000 bytes: many per page, rarely a multiple of the chunk
            for (VectorPages pages :
                new VectorPages[] {reader.vectorPages(p), reader.vectorPages(p, 1000)}) {
              assertThat(pages)
                  .as("%s column %s is read directly", file.getFileName(), column)
                  .isNotNull();
              assertThat(pages.allPlain())
                  .as("%s %s", file.getFileName(), column)
                  .isEqualTo(!column.equals("narrow"));
              for (long[] range : new long[][] {{0, ROWS}, {123, 4321}, {4999, 5000}, {7, 7}}) {
                List<int[]> want = viaArrow(reader, column, range[0], range[1]);
                for (int chunk : new int[] {1, 37, 4096}) {
                  assertThat(direct(pages, range[0], range[1], chunk))
                      .as(
                          "%s %s rows [%d, %d) chunk %d",
                          file.getFileName(), column, range[0], range[1], chunk)
                      .containsExactlyElementsOf(want);
                }
              }
            }
          }
        }
      }
    }
  }

  static List<int[]> directRows(VectorPages pages, long[] rows, int chunkRows) {
    List<int[]> out = new ArrayList<>();
    int[] next = {0};
    pages.scanRows(
        rows,
        rows.length,
        chunkRows,
        (from, n, chunk) -> {
          boolean[] nulls = chunk.nulls();
          float[] vectors = chunk.floats();
          assertThat(from).isEqualTo(next[0]);
          assertThat(n).isBetween(1, chunkRows);
          next[0] += n;
          for (int i = 0; i < n; i++) {
            if (nulls != null && nulls[i]) {
              out.add(null);
              continue;
            }
            int dim = pages.dimension();
            int[] bits = new int[dim];
            for (int d = 0; d < dim; d++) {
              bits[d] = Float.floatToRawIntBits(vectors[i * dim + d]);
            }
            out.add(bits);
          }
        });
    assertThat(next[0]).isEqualTo(rows.length);
    return out;
  }

  /** Selections: none, one row, the last row, runs and gaps crossing pages, every row. */
  static List<long[]> selections() {
    Random r = new Random(SEED + 1);
    List<Long> scattered = new ArrayList<>();
    for (long row = 0; row < ROWS; row++) {
      // runs of a few rows separated by gaps of a few rows, and single rows
      if ((row / 5) % 3 == 0 || r.nextInt(10) == 0) {
        scattered.add(row);
      }
    }
    return List.of(
        new long[0],
        new long[] {2345},
        new long[] {ROWS - 1},
        new long[] {0, 1, 2, 3, ROWS - 2, ROWS - 1},
        scattered.stream().mapToLong(Long::longValue).toArray(),
        java.util.stream.LongStream.range(0, ROWS).toArray());
  }

  @Test
  void selectedRowsEqualArrowReadsWhateverTheBufferBoundaries() throws Exception {
    for (Path file : new Path[] {ours, lance}) {
      for (Configuration conf :
          new Configuration[] {conf(false, 1 << 30), conf(true, 1 << 30), conf(true, 4099)}) {
        try (HadoopFileIO io = new HadoopFileIO(conf);
            InputFile in = io.newInputFile(file.toUri().toString())) {
          LanceFileReader reader = LanceFileReader.open(in);
          for (String column : new String[] {"nulls", "dense", "narrow"}) {
            FileProjection p = FileProjection.ofNames(reader.schema(), List.of(column));
            List<int[]> all = viaArrow(reader, column, 0, ROWS);
            for (VectorPages pages :
                new VectorPages[] {reader.vectorPages(p), reader.vectorPages(p, 1000)}) {
              for (long[] rows : selections()) {
                List<int[]> want = new ArrayList<>();
                for (long row : rows) {
                  want.add(all.get((int) row));
                }
                for (int chunk : new int[] {1, 37, 4096}) {
                  assertThat(directRows(pages, rows, chunk))
                      .as("%s %s %d rows chunk %d", file.getFileName(), column, rows.length, chunk)
                      .containsExactlyElementsOf(want);
                }
              }
            }
          }
        }
      }
    }
  }

  @Test
  void selectedRowsMustBeAscendingDistinctAndInTheFile() throws Exception {
    try (HadoopFileIO io = HadoopFileIO.local();
        InputFile in = io.newInputFile(ours.toUri().toString())) {
      LanceFileReader reader = LanceFileReader.open(in);
      VectorPages pages =
          reader.vectorPages(FileProjection.ofNames(reader.schema(), List.of("dense")));
      assertThatThrownBy(() -> pages.scanRows(new long[] {3, 3}, 2, 16, (a, b, c) -> {}))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("row 3 (position 1)");
      assertThatThrownBy(() -> pages.scanRows(new long[] {5, 4}, 2, 16, (a, b, c) -> {}))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("ascending");
      assertThatThrownBy(() -> pages.scanRows(new long[] {ROWS}, 1, 16, (a, b, c) -> {}))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("row 5000");
    }
  }

  @Test
  void otherColumnsAndBadRangesAreRefused() throws Exception {
    try (HadoopFileIO io = HadoopFileIO.local();
        InputFile in = io.newInputFile(ours.toUri().toString())) {
      LanceFileReader reader = LanceFileReader.open(in);
      assertThat(reader.vectorPages(FileProjection.ofNames(reader.schema(), List.of("id"))))
          .isNull();
      assertThat(
              reader.vectorPages(FileProjection.ofNames(reader.schema(), List.of("id", "dense"))))
          .isNull();
      VectorPages pages =
          reader.vectorPages(FileProjection.ofNames(reader.schema(), List.of("dense")));
      assertThatThrownBy(() -> pages.scan(10, ROWS + 1, 16, (a, b, c) -> {}))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("[10, 5001)");
    }
  }
}
