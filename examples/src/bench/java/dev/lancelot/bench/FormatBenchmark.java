package dev.lancelot.bench;

import dev.lancelot.engine.CloseableIterator;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.WriteMode;
import dev.lancelot.engine.WriteOptions;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.function.LongSupplier;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.lance.ReadOptions;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;

/**
 * The foundation benchmark: 200,000 rows of (id int64, tenant_id int32, vector float32[128]),
 * written, fully scanned, scanned for the vector column alone, and 1,000 random rows taken — by
 * lancelot and by lance-core 7.0.0, side by side in one JVM on the same data. Each measurement is
 * the median (and minimum) of {@code reps} runs after {@code reps} warm-up runs (takes: 5 × reps
 * each, as they are short), alternating systems per measurement; each checks its own result (row
 * counts and checksums agree between the two). Opening the dataset is part of every scan and take.
 *
 * <p>Usage: {@code FormatBenchmark [rows=200000] [reps=5] [workdir] [--unfair-allocator]}
 */
public final class FormatBenchmark {
  static final int DIM = 128;

  public static void main(String[] argv) throws Exception {
    String[] args = BenchArgs.startWithoutData("FormatBenchmark", argv);
    int rows = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
    int reps = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    Path work = args.length > 2 ? Path.of(args[2]) : Files.createTempDirectory("lancelot-bench");
    System.out.printf(
        "FormatBenchmark: %,d rows x (id int64, tenant_id int32, vector float32[%d]); %d reps; %s%n",
        rows, DIM, reps, work);
    System.out.printf(
        "JVM %s, %d cores%n",
        System.getProperty("java.version"), Runtime.getRuntime().availableProcessors());
    try (BufferAllocator allocator = new RootAllocator()) {
      byte[] ipc = generate(allocator, rows);
      List<String[]> table = new ArrayList<>();
      long[] ourWrite =
          stats(
              reps,
              () -> {
                Path dir = fresh(work, "ours");
                return timed(
                    () -> {
                      try (ArrowReader r = reader(allocator, ipc);
                          Dataset ds =
                              Dataset.write(dir.toString(), r, WriteOptions.of(WriteMode.CREATE))) {
                        check(ds.countRows() == rows, "our write lost rows");
                      }
                    });
              });
      long[] lanceWrite =
          stats(
              reps,
              () -> {
                Path dir = fresh(work, "lance");
                return timed(
                    () -> {
                      try (ArrowReader r = reader(allocator, ipc)) {
                        org.lance.Dataset.write()
                            .allocator(allocator)
                            .reader(r)
                            .uri(dir.toString())
                            .execute()
                            .close();
                      }
                    });
              });
      table.add(row("write", ourWrite, lanceWrite));

      Path ours = work.resolve("ours");
      Path lance = work.resolve("lance");
      long[] checks = new long[4];
      long[] ourScan = stats(reps, () -> timed(() -> checks[0] = ourScan(ours, null)));
      long[] lanceScan =
          stats(reps, () -> timed(() -> checks[1] = lanceScan(allocator, lance, null)));
      check(
          checks[0] == checks[1], "full scan checksums differ: " + checks[0] + " vs " + checks[1]);
      table.add(row("full scan, all columns", ourScan, lanceScan));

      long[] ourVec = stats(reps, () -> timed(() -> checks[2] = ourScan(ours, List.of("vector"))));
      long[] lanceVec =
          stats(
              reps, () -> timed(() -> checks[3] = lanceScan(allocator, lance, List.of("vector"))));
      check(checks[2] == checks[3], "vector scan checksums differ");
      table.add(row("scan, vector column only", ourVec, lanceVec));

      long[] addresses = new Random(7).longs(1000, 0, rows).sorted().toArray();
      // Takes are short: run them more often for a stable median (each includes opening the
      // dataset).
      long[] ourTake = stats(reps * 5, () -> timed(() -> checks[0] = ourTake(ours, addresses)));
      long[] lanceTake =
          stats(reps * 5, () -> timed(() -> checks[1] = lanceTake(allocator, lance, addresses)));
      check(checks[0] == checks[1], "take checksums differ");
      table.add(row("take 1,000 random rows", ourTake, lanceTake));

      System.out.println();
      System.out.println(
          "| operation | lancelot median (min), ms | lance-core 7.0.0 median (min), ms | ratio of medians | ratio of minimums |");
      System.out.println("|---|---:|---:|---:|---:|");
      for (String[] r : table) {
        System.out.println("| " + String.join(" | ", r) + " |");
      }
    }
  }

  /** A table row from {median, min} of both systems: "median (min)" and the ratio of medians. */
  static String[] row(String name, long[] ours, long[] theirs) {
    return new String[] {
      name,
      String.format("%.1f (%.1f)", ours[0] / 1e6, ours[1] / 1e6),
      String.format("%.1f (%.1f)", theirs[0] / 1e6, theirs[1] / 1e6),
      String.format("%.2f", (double) ours[0] / theirs[0]),
      String.format("%.2f", (double) ours[1] / theirs[1])
    };
  }

  interface Run {
    void run() throws Exception;
  }

  static long timed(Run r) {
    long t = System.nanoTime();
    try {
      r.run();
    } catch (Exception e) {
      throw new RuntimeException(e);
    }
    return System.nanoTime() - t;
  }

  /** Results of warm-up runs, kept so that they count as used. */
  static volatile long warmUpSink;

  /**
   * {median, min} of {@code reps} timed runs after as many untimed warm-up runs (JIT, page cache).
   * The minimum is less disturbed by other processes on a shared machine.
   */
  static long[] stats(int reps, LongSupplier run) {
    for (int i = 0; i < reps; i++) {
      warmUpSink += run.getAsLong(); // consumed, so no run can be optimized away
    }
    long[] times = new long[reps];
    for (int i = 0; i < reps; i++) {
      times[i] = run.getAsLong();
    }
    Arrays.sort(times);
    return new long[] {times[reps / 2], times[0]};
  }

  static long ourScan(Path dir, List<String> columns) {
    long sum = 0;
    try (Dataset ds = Dataset.open(dir.toString())) {
      var scan = columns == null ? ds.newScan() : ds.newScan().columns(columns);
      try (CloseableIterator<VectorSchemaRoot> it = scan.batches()) {
        while (it.hasNext()) {
          sum += checksum(it.next());
        }
      }
    }
    return sum;
  }

  static long lanceScan(BufferAllocator allocator, Path dir, List<String> columns)
      throws Exception {
    long sum = 0;
    try (org.lance.Dataset ds =
        org.lance.Dataset.open(allocator, dir.toString(), new ReadOptions.Builder().build())) {
      ScanOptions.Builder opts = new ScanOptions.Builder();
      if (columns != null) {
        opts.columns(columns);
      }
      try (LanceScanner scanner = ds.newScan(opts.build());
          ArrowReader reader = scanner.scanBatches()) {
        while (reader.loadNextBatch()) {
          sum += checksum(reader.getVectorSchemaRoot());
        }
      }
    }
    return sum;
  }

  static long ourTake(Path dir, long[] addresses) {
    try (Dataset ds = Dataset.open(dir.toString());
        VectorSchemaRoot rows = ds.take(addresses, List.of("id", "tenant_id", "vector"))) {
      return checksum(rows);
    }
  }

  static long lanceTake(BufferAllocator allocator, Path dir, long[] addresses) throws Exception {
    List<Long> list = Arrays.stream(addresses).boxed().toList();
    long sum = 0;
    try (org.lance.Dataset ds =
            org.lance.Dataset.open(allocator, dir.toString(), new ReadOptions.Builder().build());
        ArrowReader reader = ds.takeRows(list, List.of("id", "tenant_id", "vector"))) {
      while (reader.loadNextBatch()) {
        sum += checksum(reader.getVectorSchemaRoot());
      }
    }
    return sum;
  }

  /** Order-independent checksum of the ids, tenants and vector bits of a batch. */
  static long checksum(VectorSchemaRoot root) {
    long sum = 0;
    for (FieldVector v : root.getFieldVectors()) {
      if (v instanceof BigIntVector ids) {
        for (int i = 0; i < ids.getValueCount(); i++) {
          sum += ids.get(i) * 31;
        }
      } else if (v instanceof IntVector ints) {
        for (int i = 0; i < ints.getValueCount(); i++) {
          sum += ints.get(i) * 17L;
        }
      } else if (v instanceof FixedSizeListVector fsl) {
        Float4Vector f = (Float4Vector) fsl.getDataVector();
        int n = fsl.getValueCount() * fsl.getListSize();
        for (int i = 0; i < n; i++) {
          sum += Float.floatToRawIntBits(f.get(i));
        }
      }
    }
    return sum;
  }

  static byte[] generate(BufferAllocator allocator, int rows) throws Exception {
    Random random = new Random(42);
    return ipc(
        allocator,
        0,
        rows,
        new RowValues() {
          @Override
          public int tenant(int row) {
            return (int) Math.floor(Math.pow(random.nextDouble(), 3) * 100);
          }

          @Override
          public float value(int row, int d) {
            return (float) random.nextGaussian();
          }
        });
  }

  /**
   * Values of the rows {@link #ipc} writes; called per row in order: the tenant, then each
   * coordinate.
   */
  interface RowValues {
    int tenant(int row);

    float value(int row, int d);
  }

  /** The schema of the benchmarks' datasets: (id int64, tenant_id int32, vector float32[DIM]). */
  static Schema schema() {
    return schema(DIM);
  }

  /** (id int64, tenant_id int32, vector float32[dim]). */
  static Schema schema(int dim) {
    Field item =
        new Field(
            "item",
            FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)),
            null);
    return new Schema(
        List.of(
            new Field("id", FieldType.nullable(new ArrowType.Int(64, true)), null),
            new Field("tenant_id", FieldType.nullable(new ArrowType.Int(32, true)), null),
            new Field(
                "vector", FieldType.nullable(new ArrowType.FixedSizeList(dim)), List.of(item))));
  }

  /**
   * Rows [from, to) (id = row number) as an Arrow IPC stream in batches of 8,192, to feed either
   * writer.
   */
  static byte[] ipc(BufferAllocator allocator, int from, int to, RowValues rowValues)
      throws IOException {
    return ipc(allocator, from, to, DIM, rowValues);
  }

  /** As {@link #ipc(BufferAllocator, int, int, RowValues)}, vectors of {@code dim} dimensions. */
  static byte[] ipc(BufferAllocator allocator, int from, int to, int dim, RowValues rowValues)
      throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int batch = 8192;
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema(dim), allocator);
        ArrowStreamWriter writer = new ArrowStreamWriter(root, null, out)) {
      writer.start();
      for (int start = from; start < to; start += batch) {
        int n = Math.min(batch, to - start);
        for (FieldVector v : root.getFieldVectors()) {
          v.setInitialCapacity(n);
        }
        root.allocateNew();
        BigIntVector id = (BigIntVector) root.getVector("id");
        IntVector tenant = (IntVector) root.getVector("tenant_id");
        FixedSizeListVector vec = (FixedSizeListVector) root.getVector("vector");
        Float4Vector values = (Float4Vector) vec.getDataVector();
        values.allocateNew(n * dim);
        for (int i = 0; i < n; i++) {
          id.setSafe(i, start + i);
          tenant.setSafe(i, rowValues.tenant(start + i));
          vec.setNotNull(i);
          for (int d = 0; d < dim; d++) {
            values.set(i * dim + d, rowValues.value(start + i, d));
          }
        }
        values.setValueCount(n * dim);
        id.setValueCount(n);
        tenant.setValueCount(n);
        vec.setValueCount(n);
        root.setRowCount(n);
        writer.writeBatch();
      }
      writer.end();
    }
    return out.toByteArray();
  }

  static ArrowReader reader(BufferAllocator allocator, byte[] ipc) {
    return new ArrowStreamReader(new ByteArrayInputStream(ipc), allocator);
  }

  static Path fresh(Path work, String name) {
    Path dir = work.resolve(name);
    try {
      if (Files.exists(dir)) {
        try (var s = Files.walk(dir)) {
          s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
      }
    } catch (Exception e) {
      throw new RuntimeException(e);
    }
    return dir;
  }

  static void check(boolean ok, String message) {
    if (!ok) {
      throw new IllegalStateException("Benchmark self-check failed: " + message);
    }
  }
}
