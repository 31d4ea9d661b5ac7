package dev.lancelot.engine.internal.file;

import dev.lancelot.engine.io.HadoopFileIO;
import dev.lancelot.engine.io.InputFile;
import dev.lancelot.engine.schema.LanceSchema;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Bytes per column of one data file written by lancelot's {@link LanceFileWriter} and by lance-core
 * 7.0.0's file writer from the same mixed table, in file formats 2.1 and 2.2 (not a test; run with
 * {@code main}, see docs/benchmarks.md "File size"). Also times each writer (one run, batches of
 * 10,000 rows, generation excluded) and checks that lance-core reads lancelot's files back with the
 * same row count and the same {@code id} checksum.
 *
 * <p>Usage: {@code FileSizeBenchmark [rows] [dir]}.
 */
public final class FileSizeBenchmark {
  private static final int BATCH = 10_000;
  private static final String[] CATEGORIES = {
    "books", "music", "garden", "toys", "sports", "kitchen", "health", "auto", "games", "office"
  };
  private static final String[] WORDS = {
    "lance", "file", "column", "page", "chunk", "value", "spark", "vector", "index", "scan",
    "write", "read", "format", "table", "fragment", "version", "manifest", "row", "level", "bit"
  };

  private FileSizeBenchmark() {}

  static Schema schema() {
    FieldType utf8 = FieldType.nullable(ArrowType.Utf8.INSTANCE);
    return new Schema(
        List.of(
            new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
            new Field("tenant", FieldType.notNullable(new ArrowType.Int(32, true)), null),
            new Field(
                "ts",
                FieldType.notNullable(new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC")),
                null),
            new Field("category", utf8, null),
            new Field("user", utf8, null),
            new Field("text", utf8, null),
            new Field(
                "score",
                FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
                null),
            new Field("qty", FieldType.nullable(new ArrowType.Int(32, true)), null),
            new Field(
                "tags",
                FieldType.nullable(ArrowType.List.INSTANCE),
                List.of(new Field("item", utf8, null))),
            new Field(
                "vector",
                FieldType.nullable(new ArrowType.FixedSizeList(128)),
                List.of(
                    new Field(
                        "item",
                        FieldType.nullable(
                            new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)),
                        null)))));
  }

  static VectorSchemaRoot batch(BufferAllocator allocator, long first, int n, Random r) {
    VectorSchemaRoot root = VectorSchemaRoot.create(schema(), allocator);
    root.allocateNew();
    BigIntVector id = (BigIntVector) root.getVector("id");
    IntVector tenant = (IntVector) root.getVector("tenant");
    TimeStampMicroTZVector ts = (TimeStampMicroTZVector) root.getVector("ts");
    VarCharVector category = (VarCharVector) root.getVector("category");
    VarCharVector user = (VarCharVector) root.getVector("user");
    VarCharVector text = (VarCharVector) root.getVector("text");
    Float8Vector score = (Float8Vector) root.getVector("score");
    IntVector qty = (IntVector) root.getVector("qty");
    ListVector tags = (ListVector) root.getVector("tags");
    VarCharVector tagItems = (VarCharVector) tags.getDataVector();
    FixedSizeListVector vector = (FixedSizeListVector) root.getVector("vector");
    Float4Vector floats = (Float4Vector) vector.getDataVector();
    int tagCount = 0;
    for (int i = 0; i < n; i++) {
      long row = first + i;
      id.setSafe(i, row);
      // skewed: half the rows in tenant 0, then geometrically fewer
      tenant.setSafe(i, Math.min(99, (int) (-Math.log(1 - r.nextDouble()) * 8)));
      ts.setSafe(i, 1_700_000_000_000_000L + row * 1_000_000L + r.nextInt(1_000_000));
      category.setSafe(
          i, CATEGORIES[r.nextInt(CATEGORIES.length)].getBytes(StandardCharsets.UTF_8));
      user.setSafe(i, ("user-" + Long.toHexString(r.nextLong())).getBytes(StandardCharsets.UTF_8));
      StringBuilder sb = new StringBuilder();
      int words = 20 + r.nextInt(30);
      for (int w = 0; w < words; w++) {
        sb.append(w == 0 ? "" : " ").append(WORDS[r.nextInt(WORDS.length)]);
      }
      text.setSafe(i, sb.toString().getBytes(StandardCharsets.UTF_8));
      if (r.nextInt(10) == 0) {
        score.setNull(i);
      } else {
        score.setSafe(i, Math.round(r.nextGaussian() * 10_000) / 100.0);
      }
      if (r.nextInt(5) == 0) {
        qty.setNull(i);
      } else {
        qty.setSafe(i, r.nextInt(50));
      }
      tags.startNewValue(i);
      int k = r.nextInt(5);
      for (int t = 0; t < k; t++) {
        tagItems.setSafe(
            tagCount++, WORDS[r.nextInt(WORDS.length)].getBytes(StandardCharsets.UTF_8));
      }
      tags.endValue(i, k);
      vector.setNotNull(i);
      for (int d = 0; d < 128; d++) {
        floats.setSafe(i * 128 + d, (float) r.nextGaussian());
      }
    }
    tagItems.setValueCount(tagCount);
    floats.setValueCount(n * 128);
    for (FieldVector v : root.getFieldVectors()) {
      v.setValueCount(n);
    }
    root.setRowCount(n);
    return root;
  }

  public static void main(String[] args) throws Exception {
    int rows = args.length > 0 ? Integer.parseInt(args[0]) : 300_000;
    Path dir = args.length > 1 ? Path.of(args[1]) : Files.createTempDirectory("lance-file-size");
    Files.createDirectories(dir);
    HadoopFileIO io = HadoopFileIO.local();
    try (BufferAllocator allocator = new RootAllocator()) {
      LanceSchema schema = LanceSchema.fromArrow(schema());
      String[] versions = {"2.1", "2.2"};
      Path[] ours = new Path[2];
      Path[] theirs = new Path[2];
      LanceFileWriter[] ourWriters = new LanceFileWriter[2];
      org.lance.file.LanceFileWriter[] lanceWriters = new org.lance.file.LanceFileWriter[2];
      long[] ourNanos = new long[2];
      long[] lanceNanos = new long[2];
      for (int v = 0; v < 2; v++) {
        ours[v] = dir.resolve("lancelot-" + versions[v] + ".lance");
        theirs[v] = dir.resolve("lance-" + versions[v] + ".lance");
        Files.deleteIfExists(ours[v]);
        Files.deleteIfExists(theirs[v]);
        ourWriters[v] =
            LanceFileWriter.create(
                io.create(ours[v].toUri().toString()),
                schema,
                WriterOptions.defaults().withVersion(v == 0 ? FileVersion.V2_1 : FileVersion.V2_2));
        lanceWriters[v] =
            org.lance.file.LanceFileWriter.open(
                theirs[v].toString(), allocator, null, Optional.of(versions[v]), Map.of());
      }
      Random r = new Random(42);
      long idSum = 0;
      for (long first = 0; first < rows; first += BATCH) {
        int n = (int) Math.min(BATCH, rows - first);
        try (VectorSchemaRoot b = batch(allocator, first, n, r)) {
          for (int i = 0; i < n; i++) {
            idSum += first + i;
          }
          for (int v = 0; v < 2; v++) {
            long t0 = System.nanoTime();
            ourWriters[v].write(b);
            long t1 = System.nanoTime();
            lanceWriters[v].write(b);
            long t2 = System.nanoTime();
            ourNanos[v] += t1 - t0;
            lanceNanos[v] += t2 - t1;
          }
        }
      }
      for (int v = 0; v < 2; v++) {
        long t0 = System.nanoTime();
        ourWriters[v].finish();
        long t1 = System.nanoTime();
        lanceWriters[v].close();
        long t2 = System.nanoTime();
        ourNanos[v] += t1 - t0;
        lanceNanos[v] += t2 - t1;
      }
      System.out.printf("%,d rows, files in %s%n", rows, dir);
      for (int v = 0; v < 2; v++) {
        check(ours[v], allocator, rows, idSum);
        report(versions[v], ours[v], theirs[v], io, ourNanos[v], lanceNanos[v]);
      }
    }
  }

  /** lance-core reads lancelot's file: every row, the same id checksum. */
  private static void check(Path path, BufferAllocator allocator, long rows, long idSum) {
    long[] seen = new long[2];
    OracleFiles.read(
        path,
        allocator,
        List.of("id"),
        8192,
        root -> {
          BigIntVector id = (BigIntVector) root.getVector("id");
          for (int i = 0; i < root.getRowCount(); i++) {
            seen[0]++;
            seen[1] += id.get(i);
          }
        });
    if (seen[0] != rows || seen[1] != idSum) {
      throw new AssertionError(
          "lance-core read " + seen[0] + " rows (id sum " + seen[1] + ") from " + path);
    }
  }

  private static void report(
      String version, Path ours, Path theirs, HadoopFileIO io, long ourNanos, long lanceNanos)
      throws Exception {
    try (InputFile a = io.newInputFile(ours.toUri().toString());
        InputFile b = io.newInputFile(theirs.toUri().toString())) {
      LanceFileReader ra = LanceFileReader.open(a);
      LanceFileReader rb = LanceFileReader.open(b);
      Map<String, List<String>> ea = LanceFileInspector.encodings(a);
      Map<String, List<String>> eb = LanceFileInspector.encodings(b);
      System.out.printf(
          "%nformat %s: file %,d vs %,d bytes (%.2fx); write %.0f ms vs %.0f ms%n",
          version,
          Files.size(ours),
          Files.size(theirs),
          (double) Files.size(ours) / Files.size(theirs),
          ourNanos / 1e6,
          lanceNanos / 1e6);
      System.out.println(
          "| column | lancelot bytes | lance-core bytes | ratio | lancelot encoding | lance-core encoding |");
      System.out.println("|---|---:|---:|---:|---|---|");
      List<String> names = new ArrayList<>(ea.keySet());
      for (int c = 0; c < names.size(); c++) {
        String name = names.get(c);
        long x = ra.metadata().column(c).dataBytes();
        long y = rb.metadata().column(c).dataBytes();
        System.out.printf(
            "| %s | %,d | %,d | %.2f | %s | %s |%n",
            name, x, y, (double) x / y, first(ea.get(name)), first(eb.get(name)));
      }
    }
  }

  private static String first(List<String> pages) {
    return pages.isEmpty() ? "" : pages.get(0) + (pages.size() > 1 ? " …" : "");
  }
}
