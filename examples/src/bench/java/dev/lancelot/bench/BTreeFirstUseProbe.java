package dev.lancelot.bench;

import dev.lancelot.engine.CloseableIterator;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.WriteMode;
import dev.lancelot.engine.WriteOptions;
import dev.lancelot.engine.index.scalar.BTreeBuildParams;
import dev.lancelot.engine.index.scalar.BTreeIndexBuilder;
import dev.lancelot.engine.internal.DatasetInternals;
import dev.lancelot.engine.internal.expr.eval.ColumnKind;
import dev.lancelot.engine.internal.index.scalar.btree.BTreeFiles;
import dev.lancelot.engine.internal.index.scalar.btree.BTreeWriter;
import dev.lancelot.engine.internal.index.scalar.btree.IndexColumnData;
import dev.lancelot.engine.internal.scan.FragmentScan;
import dev.lancelot.engine.schema.LanceField;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.slf4j.LoggerFactory;

/**
 * Where lancelot's BTree build on {@code tenant_id} spends its time, build by build in one JVM: the
 * first build against the later ones. Each build runs on a fresh copy of the source dataset of a
 * set of {@link DataSets} (prepared by an earlier run of a vector benchmark); per phase it prints
 * the wall time and the classes loaded and JIT compilation time added meanwhile, and per build the
 * wall time, the main thread's CPU time and the process's CPU time.
 *
 * <p>{@code phases}: opening the dataset, the column scan into {@link IndexColumnData}, the writing
 * of both index files ({@link BTreeWriter}, with the sort), without the commit (the steps of {@link
 * BTreeIndexBuilder}, timed apart). {@code full}: opening, then {@link BTreeIndexBuilder#build}
 * with its commit. {@code warm} sets what the JVM has done before the first build: {@code none};
 * {@code shared} (logging, Hadoop's local file system, Arrow's allocator and schema classes and the
 * protobuf runtime loaded, as in a Spark executor); {@code engine} (also lancelot's reader and
 * writer used: two other columns of the set read, a small dataset written).
 *
 * <p>Usage: {@code BTreeFirstUseProbe <workdir> [builds=3] [mode=phases|full] [warm=none] [--data
 * <name>]} (lancelot only; with the bench profile, {@code -Dbench.jvm="-Xint"} shows the cost of
 * code not compiled yet).
 */
public final class BTreeFirstUseProbe {
  private static final String COLUMN = BuildTimingBenchmark.BTREE_COLUMN;

  private long lapStart;
  private long lapClasses;
  private long lapJit;
  private final List<String> laps = new ArrayList<>();

  public static void main(String[] argv) throws Exception {
    BenchArgs bench = BenchArgs.start("BTreeFirstUseProbe", argv, false);
    String[] args = bench.rest;
    Path work = Path.of(args.length > 0 ? args[0] : "/tmp/lancelot-vector-bench");
    int builds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
    String mode = (args.length > 2 ? args[2] : "phases").toLowerCase(Locale.ROOT);
    String warm = (args.length > 3 ? args[3] : "none").toLowerCase(Locale.ROOT);
    if (!mode.equals("phases") && !mode.equals("full")) {
      throw new IllegalArgumentException(
          "Cannot run BTreeFirstUseProbe: mode must be phases or full, got " + mode);
    }
    if (!List.of("none", "shared", "engine").contains(warm)) {
      throw new IllegalArgumentException(
          "Cannot run BTreeFirstUseProbe: warm must be none, shared or engine, got " + warm);
    }
    Map.Entry<String, Integer> ready = DataSets.generated(work, bench.data);
    Path source =
        ready == null
            ? null
            : work.resolve(VectorBenchData.workDir(ready.getKey(), "data"))
                .resolve("source-" + ready.getValue());
    if (source == null || !Files.exists(source.resolve("_versions"))) {
      throw new IllegalArgumentException(
          "Cannot run BTreeFirstUseProbe: data set "
              + bench.data
              + " has no cached source copy under "
              + work
              + " (run BuildTimingBenchmark or VectorIndexBenchmark on it once first)");
    }
    BenchArgs.relabel(ready.getKey());
    Path base = work.resolve(VectorBenchData.workDir(ready.getKey(), "buildtime")).resolve("probe");
    BTreeFirstUseProbe probe = new BTreeFirstUseProbe();
    System.out.printf(
        "BTreeFirstUseProbe: %s, %,d rows, BTree on %s, %d builds, mode %s, warm %s; JVM %s, %d cores,"
            + " JIT %s, load %s%n",
        ready.getKey(),
        ready.getValue(),
        COLUMN,
        builds,
        mode,
        warm,
        System.getProperty("java.version"),
        Runtime.getRuntime().availableProcessors(),
        ManagementFactory.getCompilationMXBean() == null ? "off" : "on",
        VectorBenchData.load());
    if (!warm.equals("none")) {
      probe.mark();
      warmShared(source);
      probe.lap("warm-up: shared libraries");
    }
    if (warm.equals("engine")) {
      warmEngine(source, base);
      probe.lap("warm-up: lancelot read and write");
    }
    if (!probe.laps.isEmpty()) {
      System.out.println(String.join("; ", probe.laps));
    }
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    com.sun.management.OperatingSystemMXBean os =
        (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    for (int b = 0; b < builds; b++) {
      Path dir = base.resolve("copy");
      VectorBenchData.copyTree(source, dir);
      probe.laps.clear();
      String load = VectorBenchData.load();
      long wall = System.nanoTime();
      long cpu = threads.getCurrentThreadCpuTime();
      long processCpu = os.getProcessCpuTime();
      probe.mark();
      if (mode.equals("full")) {
        try (Dataset ds = Dataset.open(dir.toString())) {
          probe.lap("open");
          BTreeIndexBuilder.build(ds, BTreeBuildParams.of(COLUMN)).close();
          probe.lap("build and commit");
        }
      } else {
        probe.phases(dir);
      }
      System.out.printf(
          "build %d (load before %s): %.1f ms, main thread CPU %.1f ms, process CPU %.1f ms: %s%n",
          b + 1,
          load,
          (System.nanoTime() - wall) / 1e6,
          (threads.getCurrentThreadCpuTime() - cpu) / 1e6,
          (os.getProcessCpuTime() - processCpu) / 1e6,
          String.join("; ", probe.laps));
    }
  }

  /** The builder's steps, timed apart; the files are written but not committed. */
  private void phases(Path dir) {
    try (Dataset ds = Dataset.open(dir.toString())) {
      lap("open");
      LanceField field = ds.lanceSchema().field(COLUMN).orElseThrow();
      IndexColumnData data =
          new IndexColumnData(ColumnKind.of(field.arrowType()), (int) ds.countRows());
      try (CloseableIterator<VectorSchemaRoot> it =
          ds.newScan().columns(COLUMN).withRowAddress(true).batches()) {
        while (it.hasNext()) {
          VectorSchemaRoot batch = it.next();
          data.append(
              batch.getVector(COLUMN),
              batch.getVector(FragmentScan.ROW_ADDRESS_FIELD.getName()),
              batch.getRowCount());
        }
      }
      lap("scan");
      BTreeWriter.write(
          DatasetInternals.context(ds).io(),
          DatasetInternals.context(ds).paths().indexDir(UUID.randomUUID().toString()),
          field.arrowType(),
          data,
          BTreeFiles.DEFAULT_BATCH_SIZE,
          DatasetInternals.context(ds).allocator());
      lap("sort and write");
    }
  }

  /** What a Spark executor has loaded before lancelot runs, and Arrow's schema classes. */
  private static void warmShared(Path source) throws Exception {
    try (BufferAllocator allocator = new RootAllocator();
        IntVector v = new IntVector("x", allocator)) {
      v.allocateNew(16);
      v.setValueCount(16);
      new VectorSchemaRoot(List.of(v)).getSchema().toJson();
    }
    org.apache.hadoop.fs.FileSystem fs =
        org.apache.hadoop.fs.FileSystem.getLocal(new org.apache.hadoop.conf.Configuration());
    fs.listStatus(new org.apache.hadoop.fs.Path(source.toUri()));
    LoggerFactory.getLogger(BTreeFirstUseProbe.class).info("shared libraries loaded");
    if (com.google.protobuf.Any.newBuilder().setTypeUrl("probe").build().toByteArray().length
        == 0) {
      throw new IllegalStateException("protobuf wrote an empty message");
    }
  }

  /** Reads two other columns of the set and writes a small dataset with lancelot. */
  private static void warmEngine(Path source, Path base) throws Exception {
    long rows = 0;
    try (Dataset ds = Dataset.open(source.toString());
        CloseableIterator<VectorSchemaRoot> it =
            ds.newScan().columns("id", "vector").withRowAddress(true).batches()) {
      while (it.hasNext()) {
        rows += it.next().getRowCount();
      }
    }
    if (rows == 0) {
      throw new IllegalStateException(source + " holds no rows");
    }
    int n = 5000;
    ByteArrayOutputStream ipc = new ByteArrayOutputStream();
    try (BufferAllocator allocator = new RootAllocator()) {
      try (IntVector t = new IntVector("t", allocator);
          BigIntVector i = new BigIntVector("i", allocator)) {
        t.allocateNew(n);
        i.allocateNew(n);
        for (int r = 0; r < n; r++) {
          t.set(r, r % 100);
          i.set(r, r);
        }
        t.setValueCount(n);
        i.setValueCount(n);
        VectorSchemaRoot root = new VectorSchemaRoot(List.of(t, i));
        try (ArrowStreamWriter w = new ArrowStreamWriter(root, null, ipc)) {
          w.start();
          w.writeBatch();
          w.end();
        }
      }
      try (ArrowStreamReader r =
          new ArrowStreamReader(new ByteArrayInputStream(ipc.toByteArray()), allocator)) {
        Dataset.write(
                base.resolve("warm-up.lance").toString(), r, WriteOptions.of(WriteMode.OVERWRITE))
            .close();
      }
    }
  }

  private void mark() {
    lapStart = System.nanoTime();
    lapClasses = ManagementFactory.getClassLoadingMXBean().getTotalLoadedClassCount();
    lapJit = jitMillis();
  }

  private void lap(String what) {
    laps.add(
        String.format(
            "%s %.1f ms (+%d classes, JIT %d ms)",
            what,
            (System.nanoTime() - lapStart) / 1e6,
            ManagementFactory.getClassLoadingMXBean().getTotalLoadedClassCount() - lapClasses,
            jitMillis() - lapJit));
    mark();
  }

  private static long jitMillis() {
    CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
    return jit == null ? 0 : jit.getTotalCompilationTime();
  }
}
