package dev.lancelot.spark;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.OpenOptions;
import dev.lancelot.engine.VersionInfo;
import dev.lancelot.engine.WriteMode;
import dev.lancelot.engine.WriteOptions;
import dev.lancelot.engine.testing.ArrowStreams;
import dev.lancelot.engine.testing.StandardData;
import dev.lancelot.engine.scan.CloseableIterator;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.LongStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.hadoop.conf.Configuration;

/**
 * F4 on any store: {@value #THREADS} threads append to one dataset at the same time, each
 * {@value #APPENDS} times; every row must be there exactly once and the versions must be
 * 1..{@code 1 + THREADS × APPENDS} with none missing (a losing writer rebases and retries).
 */
final class ConcurrentAppends {
  static final int THREADS = 8;
  static final int APPENDS = 2;
  static final int ROWS = 20;

  private ConcurrentAppends() {}

  static void runAndCheck(String location, Configuration conf) throws Exception {
    try (BufferAllocator allocator = new RootAllocator()) {
      write(allocator, location, conf, 0, WriteMode.CREATE);
      CyclicBarrier start = new CyclicBarrier(THREADS);
      ExecutorService pool = Executors.newFixedThreadPool(THREADS);
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        int thread = t;
        futures.add(pool.submit(() -> {
          start.await();
          for (int i = 0; i < APPENDS; i++) {
            write(allocator, location, conf, 1000 + (thread * APPENDS + i) * (long) ROWS, WriteMode.APPEND);
          }
          return null;
        }));
      }
      try {
        for (Future<?> f : futures) {
          f.get();
        }
      } finally {
        pool.shutdownNow();
      }
      int total = 1 + THREADS * APPENDS;
      List<Long> expected = new ArrayList<>(LongStream.range(0, ROWS).boxed().toList());
      for (int k = 0; k < THREADS * APPENDS; k++) {
        LongStream.range(1000 + k * (long) ROWS, 1000 + (k + 1) * (long) ROWS).forEach(expected::add);
      }
      try (Dataset ds = Dataset.open(location, OpenOptions.defaults().withHadoopConf(conf))) {
        assertThat(ds.version()).isEqualTo(total);
        assertThat(ds.versions()).extracting(VersionInfo::version)
            .containsExactlyElementsOf(LongStream.rangeClosed(1, total).boxed().toList());
        assertThat(ids(ds)).containsExactlyInAnyOrderElementsOf(expected);
      }
    }
  }

  static List<Long> ids(Dataset ds) {
    List<Long> out = new ArrayList<>();
    try (CloseableIterator<VectorSchemaRoot> batches = ds.newScan().columns("id").batches()) {
      while (batches.hasNext()) {
        VectorSchemaRoot root = batches.next();
        BigIntVector id = (BigIntVector) root.getVector("id");
        for (int i = 0; i < root.getRowCount(); i++) {
          out.add(id.get(i));
        }
      }
    }
    return out;
  }

  private static void write(BufferAllocator allocator, String location, Configuration conf, long firstId,
      WriteMode mode) {
    try (VectorSchemaRoot batch = StandardData.generate(allocator, firstId, ROWS, 4, 3);
         ArrowReader reader = ArrowStreams.readerOf(allocator, List.of(batch))) {
      Dataset.write(location, reader, WriteOptions.of(mode), OpenOptions.defaults().withHadoopConf(conf)).close();
    } catch (java.io.IOException e) {
      throw new RuntimeException(e);
    }
  }
}
