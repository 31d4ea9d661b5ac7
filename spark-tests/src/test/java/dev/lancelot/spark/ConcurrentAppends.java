package dev.lancelot.spark;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancelot.engine.CloseableIterator;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.OpenOptions;
import dev.lancelot.engine.VersionInfo;
import dev.lancelot.engine.WriteMode;
import dev.lancelot.engine.WriteOptions;
import dev.lancelot.engine.testing.ArrowStreams;
import dev.lancelot.engine.testing.StandardData;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.hadoop.conf.Configuration;

/**
 * F4 on any store: {@value #THREADS} threads append to one dataset at the same time, each {@value
 * #APPENDS} times; every row must be there exactly once and the versions must be 1..{@code 1 +
 * THREADS × APPENDS} with none missing (a losing writer rebases and retries).
 */
final class ConcurrentAppends {
  static final int THREADS = 8;
  static final int APPENDS = 2;
  static final int ROWS = 20;

  private ConcurrentAppends() {}

  /**
   * How many times each concurrency test repeats its check on a fresh dataset: system property
   * {@code lancelot.test.concurrency.rounds}, default 1 (e.g. {@code
   * -Dlancelot.test.concurrency.rounds=20} on the Maven command line to look for rare losses).
   */
  static int rounds() {
    return Integer.getInteger("lancelot.test.concurrency.rounds", 1);
  }

  static void runAndCheck(String location, Configuration conf) throws Exception {
    try (BufferAllocator allocator = new RootAllocator()) {
      write(allocator, location, conf, 0, WriteMode.CREATE);
      appendConcurrently(allocator, location, conf, 0, THREADS);
    }
    check(location, conf);
  }

  /**
   * {@code threads} writers (numbers {@code firstWriter}, {@code firstWriter + 1}, ...) appending
   * {@value #APPENDS} times each, all at once; returns when all are done, failing if one failed.
   */
  private static void appendConcurrently(
      BufferAllocator allocator, String location, Configuration conf, int firstWriter, int threads)
      throws Exception {
    CyclicBarrier start = new CyclicBarrier(threads);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    List<Future<?>> futures = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int writer = firstWriter + t;
      futures.add(
          pool.submit(
              () -> {
                start.await();
                for (int i = 0; i < APPENDS; i++) {
                  write(
                      allocator,
                      location,
                      conf,
                      1000 + (writer * APPENDS + i) * (long) ROWS,
                      WriteMode.APPEND);
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
  }

  /**
   * Every row of the create and of all {@value #THREADS} writers present once; versions 1..n, none
   * lost.
   */
  private static void check(String location, Configuration conf) {
    int total = 1 + THREADS * APPENDS;
    List<Long> expected = new ArrayList<>(LongStream.range(0, ROWS).boxed().toList());
    for (int k = 0; k < THREADS * APPENDS; k++) {
      LongStream.range(1000 + k * (long) ROWS, 1000 + (k + 1) * (long) ROWS).forEach(expected::add);
    }
    try (Dataset ds = Dataset.open(location, OpenOptions.defaults().withHadoopConf(conf))) {
      assertThat(ds.version()).isEqualTo(total);
      assertThat(ds.versions())
          .extracting(VersionInfo::version)
          .containsExactlyElementsOf(LongStream.rangeClosed(1, total).boxed().toList());
      assertThat(ids(ds)).containsExactlyInAnyOrderElementsOf(expected);
    }
  }

  /**
   * The same {@value #THREADS} writers spread over {@code processes} JVMs (this test classpath,
   * {@link #main}), {@code THREADS / processes} threads each, all appending at once; then the same
   * checks as {@link #runAndCheck}. {@code settings} are the Hadoop settings of the child JVMs.
   */
  static void runInProcessesAndCheck(
      String location, Configuration conf, int processes, String[][] settings) throws Exception {
    try (BufferAllocator allocator = new RootAllocator()) {
      write(allocator, location, conf, 0, WriteMode.CREATE);
    }
    String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<Process> running = new ArrayList<>();
    List<Path> logs = new ArrayList<>();
    for (int p = 0; p < processes; p++) {
      List<String> cmd =
          new ArrayList<>(
              List.of(
                  javaBin,
                  "-Xmx256m",
                  "--add-opens=java.base/java.nio=ALL-UNNAMED",
                  "-cp",
                  System.getProperty("java.class.path"),
                  ConcurrentAppends.class.getName(),
                  location,
                  Integer.toString(p),
                  Integer.toString(THREADS / processes)));
      for (String[] kv : settings) {
        cmd.add(kv[0] + "=" + kv[1]);
      }
      Path log = Files.createTempFile("concurrent-appends-" + p, ".log");
      logs.add(log);
      running.add(
          new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start());
    }
    for (int p = 0; p < processes; p++) {
      Process proc = running.get(p);
      if (!proc.waitFor(120, TimeUnit.SECONDS)) {
        proc.destroyForcibly();
      }
      Path log = logs.get(p);
      assertThat(proc.exitValue()).as(() -> readQuietly(log)).isZero();
    }
    check(location, conf);
  }

  private static String readQuietly(Path log) {
    try {
      return Files.readString(log);
    } catch (IOException e) {
      return e.toString();
    }
  }

  /** One writer process: {@code location processIndex threads key=value...}. */
  public static void main(String[] args) throws Exception {
    String location = args[0];
    int process = Integer.parseInt(args[1]);
    int threads = Integer.parseInt(args[2]);
    Configuration conf = new Configuration();
    for (int i = 3; i < args.length; i++) {
      int eq = args[i].indexOf('=');
      conf.set(args[i].substring(0, eq), args[i].substring(eq + 1));
    }
    try (BufferAllocator allocator = new RootAllocator()) {
      appendConcurrently(allocator, location, conf, process * threads, threads);
    }
    System.exit(0);
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

  private static void write(
      BufferAllocator allocator,
      String location,
      Configuration conf,
      long firstId,
      WriteMode mode) {
    try (VectorSchemaRoot batch = StandardData.generate(allocator, firstId, ROWS, 4, 3);
        ArrowReader reader = ArrowStreams.readerOf(allocator, List.of(batch))) {
      Dataset.write(
              location, reader, WriteOptions.of(mode), OpenOptions.defaults().withHadoopConf(conf))
          .close();
    } catch (IOException e) {
      throw new RuntimeException(e);
    }
  }
}
