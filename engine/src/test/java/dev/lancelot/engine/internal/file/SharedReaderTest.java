package dev.lancelot.engine.internal.file;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancelot.engine.io.HadoopFileIO;
import dev.lancelot.engine.io.InputFile;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One reader shared by threads: concurrent scans and takes return the same rows as a lone reader.
 */
@Tag("oracle")
class SharedReaderTest {
  @TempDir Path dir;

  @Test
  void concurrentScansAndTakes() throws Exception {
    Path path = dir.resolve("shared.lance");
    try (BufferAllocator allocator = new RootAllocator()) {
      List<VectorSchemaRoot> batches =
          List.of(
              FoundationData.batch(allocator, 0, 3000, 9),
              FoundationData.batch(allocator, 3000, 3000, 9));
      List<Object> names = new ArrayList<>();
      for (VectorSchemaRoot b : batches) {
        names.addAll(Values.of(b.getVector("name")));
      }
      OracleFiles.write(path, allocator, null, batches);
      batches.forEach(VectorSchemaRoot::close);
      try (InputFile in = HadoopFileIO.local().newInputFile(path.toUri().toString())) {
        LanceFileReader reader = LanceFileReader.open(in);
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
          List<Future<?>> futures = new ArrayList<>();
          for (int t = 0; t < 8; t++) {
            int seed = t;
            futures.add(
                pool.submit(
                    () -> {
                      try (BufferAllocator child =
                          allocator.newChildAllocator("t" + seed, 0, Long.MAX_VALUE)) {
                        if (seed % 2 == 0) {
                          List<Object> seen = new ArrayList<>();
                          try (LanceBatchReader r =
                              reader.read(new int[] {2, 0}, 0, reader.numRows(), 700, child)) {
                            while (r.loadNextBatch()) {
                              seen.addAll(Values.of(r.getVectorSchemaRoot().getVector(0)));
                            }
                          }
                          assertThat(seen).containsExactlyElementsOf(names);
                        } else {
                          long[] rows =
                              new Random(seed).longs(40, 0, reader.numRows()).sorted().toArray();
                          try (VectorSchemaRoot taken =
                              reader.take(new int[] {0, 2}, rows, child)) {
                            for (int i = 0; i < rows.length; i++) {
                              assertThat(taken.getVector(0).getObject(i)).isEqualTo(rows[i]);
                              assertThat(Values.normalize(taken.getVector(1).getObject(i)))
                                  .isEqualTo(names.get((int) rows[i]));
                            }
                          }
                        }
                      } catch (Exception e) {
                        throw new RuntimeException(e);
                      }
                      return null;
                    }));
          }
          for (Future<?> f : futures) {
            f.get();
          }
        } finally {
          pool.shutdown();
        }
      }
    }
  }
}
