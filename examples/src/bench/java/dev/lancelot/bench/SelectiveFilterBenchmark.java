package dev.lancelot.bench;

import dev.lancelot.engine.CloseableIterator;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.Scanner;
import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.index.scalar.ScalarBuildParams;
import dev.lancelot.engine.index.scalar.ScalarIndexBuilder;
import dev.lancelot.engine.io.ReadCounters;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;
import org.lance.ipc.ScanStats;

/**
 * A selective filter (0.1 % of the rows, or fewer) with and without each scalar index kind that
 * answers it, lancelot and lance-core 7.0.0 side by side: per filter and index, the rows matched,
 * the median wall time of a filtered scan of {@code id} over {@code rounds} rounds (after one
 * warm-up round) and the bytes each engine read (lancelot: {@link ReadCounters}; lance-core: its
 * scan statistics).
 *
 * <p>Data: {@code rows} rows written by lance-core in order, fragments of 100,000 rows: {@code id}
 * int64 = 0..rows-1, {@code tenant} int32 = id / 1,000 (so a tenant's rows are adjacent, as in
 * appended-in-order data), {@code name} utf8 = {@code user-<id>}. One copy of the dataset per index
 * (built by lancelot, so lance-core searches lancelot's files): none, BTree on {@code id}, bitmap
 * on {@code tenant}, zone map on {@code id}, bloom filter on {@code id}, n-gram on {@code name}.
 * Filters: a range of 1,000 ids, one tenant (1,000 rows), one id, and a substring of names.
 *
 * <p>Usage: {@code SelectiveFilterBenchmark [rows=1000000] [rounds=7] [workdir]} (the bench profile
 * sets the allocator lance-core needs; see {@link FairAllocator}).
 */
public final class SelectiveFilterBenchmark {
  private static final int ROWS_PER_FRAGMENT = 100_000;

  private record Variant(String name, IndexType type, String column, List<String> filters) {}

  private SelectiveFilterBenchmark() {}

  public static void main(String[] argv) throws Exception {
    String[] args = BenchArgs.startWithoutData("SelectiveFilterBenchmark", argv);
    int rows = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 7;
    Path work =
        args.length > 2 ? Path.of(args[2]) : Files.createTempDirectory("lancelot-selective");
    long mid = rows / 2;
    String range = "id BETWEEN " + mid + " AND " + (mid + 999);
    String tenant = "tenant = " + (mid / 1000);
    String point = "id = " + (mid + 7);
    String substring = "contains(name, 'user-" + (mid / 10 + 3) + "')";
    List<String> all = List.of(range, tenant, point, substring);
    List<Variant> variants =
        List.of(
            new Variant("no index", null, null, all),
            new Variant("btree(id)", IndexType.BTREE, "id", List.of(range, point)),
            new Variant("bitmap(tenant)", IndexType.BITMAP, "tenant", List.of(tenant)),
            new Variant("zonemap(id)", IndexType.ZONEMAP, "id", List.of(range, point)),
            new Variant("bloom_filter(id)", IndexType.BLOOM_FILTER, "id", List.of(point)),
            new Variant("ngram(name)", IndexType.NGRAM, "name", List.of(substring)));
    System.out.printf(
        "SelectiveFilterBenchmark: %,d rows, fragments of %,d, %d rounds; %s%n",
        rows, ROWS_PER_FRAGMENT, rounds, work);
    System.out.printf(
        "JVM %s, %d cores%n",
        System.getProperty("java.version"), Runtime.getRuntime().availableProcessors());
    System.out.println(
        "index | filter | rows | lancelot p50 ms | lancelot bytes | lance p50 ms | lance bytes");
    try (BufferAllocator allocator = new RootAllocator()) {
      byte[] ipc = generate(allocator, rows);
      for (Variant v : variants) {
        Path dir = FormatBenchmark.fresh(work, v.name().replaceAll("[^A-Za-z0-9]+", "_"));
        try (ArrowReader r = new ArrowStreamReader(new ByteArrayInputStream(ipc), allocator)) {
          org.lance.Dataset.write()
              .allocator(allocator)
              .reader(r)
              .uri(dir.toString())
              .maxRowsPerFile(ROWS_PER_FRAGMENT)
              .execute()
              .close();
        }
        if (v.type() != null) {
          try (Dataset ds = Dataset.open(dir.toString())) {
            ScalarIndexBuilder.build(ds, ScalarBuildParams.of(v.type(), v.column())).close();
          }
        }
        for (String filter : v.filters()) {
          long[] ours = new long[rounds];
          long[] theirs = new long[rounds];
          long oursBytes = 0;
          long theirBytes = 0;
          long matched = -1;
          for (int round = -1; round < rounds; round++) {
            ReadCounters.Reading start = ReadCounters.now();
            long t0 = System.nanoTime();
            long n = lancelot(dir, filter);
            long t1 = System.nanoTime();
            long bytes = start.since().bytesRead();
            long[] lance = lance(allocator, dir, filter);
            long t2 = System.nanoTime();
            if (n != lance[0]) {
              throw new IllegalStateException(
                  filter + " on " + v.name() + ": lancelot " + n + " rows, lance " + lance[0]);
            }
            matched = n;
            if (round >= 0) {
              ours[round] = t1 - t0;
              theirs[round] = t2 - t1;
              oursBytes = bytes;
              theirBytes = lance[1];
            }
          }
          System.out.printf(
              Locale.ROOT,
              "%s | %s | %,d | %.2f | %,d | %.2f | %,d%n",
              v.name(),
              filter,
              matched,
              median(ours) / 1e6,
              oursBytes,
              median(theirs) / 1e6,
              theirBytes);
        }
      }
    }
  }

  /** Rows matching {@code filter}, read by lancelot (opening the dataset included). */
  private static long lancelot(Path dir, String filter) throws Exception {
    long n = 0;
    try (Dataset ds = Dataset.open(dir.toString())) {
      Scanner scan = ds.newScan().columns("id").filter(filter);
      try (CloseableIterator<VectorSchemaRoot> it = scan.batches()) {
        while (it.hasNext()) {
          n += it.next().getRowCount();
        }
      }
    }
    return n;
  }

  /** Rows matching {@code filter} and bytes read, by lance-core with its scalar indexes. */
  private static long[] lance(BufferAllocator allocator, Path dir, String filter) throws Exception {
    long n = 0;
    try (org.lance.Dataset ds =
            org.lance.Dataset.open(
                allocator, dir.toString(), new org.lance.ReadOptions.Builder().build());
        LanceScanner scanner =
            ds.newScan(
                new ScanOptions.Builder()
                    .columns(List.of("id"))
                    .filter(filter)
                    .useScalarIndex(true)
                    .collectStats(true)
                    .build())) {
      try (ArrowReader reader = scanner.scanBatches()) {
        while (reader.loadNextBatch()) {
          n += reader.getVectorSchemaRoot().getRowCount();
        }
      }
      ScanStats stats = scanner.getStats().orElse(null);
      return new long[] {n, stats == null ? -1 : stats.getBytesRead()};
    }
  }

  private static double median(long[] values) {
    long[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[sorted.length / 2];
  }

  private static byte[] generate(BufferAllocator allocator, int rows) throws Exception {
    Schema schema =
        new Schema(
            List.of(
                new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
                new Field("tenant", FieldType.notNullable(new ArrowType.Int(32, true)), null),
                new Field("name", FieldType.notNullable(ArrowType.Utf8.INSTANCE), null)));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int batch = 8192;
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
        ArrowStreamWriter writer = new ArrowStreamWriter(root, null, out)) {
      writer.start();
      BigIntVector id = (BigIntVector) root.getVector("id");
      IntVector tenant = (IntVector) root.getVector("tenant");
      VarCharVector name = (VarCharVector) root.getVector("name");
      for (int start = 0; start < rows; start += batch) {
        int n = Math.min(batch, rows - start);
        root.allocateNew();
        for (int i = 0; i < n; i++) {
          long v = start + i;
          id.set(i, v);
          tenant.set(i, (int) (v / 1000));
          name.setSafe(i, ("user-" + v).getBytes(StandardCharsets.UTF_8));
        }
        root.setRowCount(n);
        writer.writeBatch();
      }
      writer.end();
    }
    return out.toByteArray();
  }
}
