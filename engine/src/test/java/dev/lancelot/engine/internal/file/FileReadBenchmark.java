package dev.lancelot.engine.internal.file;

import dev.lancelot.engine.io.HadoopFileIO;
import dev.lancelot.engine.io.InputFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Decode throughput of {@link LanceFileReader} on a file lance-core writes with the foundation
 * columns (not a test; run with {@code main}). Prints MB/s of decoded Arrow data per column and
 * checks the row count it read. Usage: {@code FileReadBenchmark [rows] [iterations] [columns... |
 * plain]} ({@code plain}: a file of non-null vectors only).
 */
public final class FileReadBenchmark {
  private FileReadBenchmark() {}

  public static void main(String[] args) throws Exception {
    int rows = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
    int iterations = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    Path dir = Files.createTempDirectory("lance-bench");
    Path path = dir.resolve("bench.lance");
    try (BufferAllocator allocator = new RootAllocator()) {
      List<VectorSchemaRoot> batches = new ArrayList<>();
      boolean plainVectors = List.of(args).contains("plain");
      Shapes.Shape plain =
          Shapes.all().stream()
              .filter(x -> x.name().equals("fsl_f32_128"))
              .findFirst()
              .orElseThrow();
      for (int start = 0; start < rows; start += 10_000) {
        int n = Math.min(10_000, rows - start);
        batches.add(
            plainVectors
                ? Shapes.batch(plain, allocator, start, n)
                : FoundationData.batch(allocator, start, n, 3));
      }
      OracleFiles.write(path, allocator, null, batches);
      batches.forEach(VectorSchemaRoot::close);
      try (InputFile in = HadoopFileIO.local().newInputFile(path.toUri().toString())) {
        LanceFileReader reader = LanceFileReader.open(in);
        System.out.println(LanceFileInspector.describe(in));
        List<String> columns =
            plainVectors
                ? List.of("c")
                : args.length > 2
                    ? List.of(args).subList(2, args.length)
                    : List.of("id", "tenant_id", "name", "vec");
        for (String column : columns) {
          FileProjection p = FileProjection.ofNames(reader.schema(), List.of(column));
          double best = Double.MAX_VALUE;
          long bytes = 0;
          for (int it = 0; it < iterations; it++) {
            long t0 = System.nanoTime();
            long n = 0;
            bytes = 0;
            try (LanceBatchReader r = reader.read(p, 8192, allocator)) {
              while (r.loadNextBatch()) {
                VectorSchemaRoot root = r.getVectorSchemaRoot();
                n += root.getRowCount();
                bytes += root.getVector(0).getBufferSize();
              }
            }
            if (n != rows) {
              throw new AssertionError("read " + n + " rows, expected " + rows);
            }
            best = Math.min(best, (System.nanoTime() - t0) / 1e9);
          }
          System.out.printf(
              "%-10s %,d rows, %,d Arrow bytes, best %.3f s: %.0f MB/s, %.1f M rows/s%n",
              column, rows, bytes, best, bytes / best / 1e6, rows / best / 1e6);
        }
      }
    } finally {
      Files.deleteIfExists(path);
      Files.deleteIfExists(dir);
    }
  }
}
