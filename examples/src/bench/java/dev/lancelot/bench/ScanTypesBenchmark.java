package dev.lancelot.bench;

import dev.lancelot.engine.CloseableIterator;
import dev.lancelot.engine.Dataset;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseLargeVariableWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.ipc.ArrowReader;
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
 * Full scans per column type on data written by lance-core 7.0.0 (its default file format, 2.1):
 * one single-column dataset per type, scanned by lancelot and by lance-core side by side in one
 * JVM. After a warm-up pass over all types, and as scans of small columns take milliseconds, each
 * side warms up again for at least {@code reps} runs and one second, then the median and minimum of
 * at least {@code reps} runs and half a second are taken (at most 200 runs each); systems alternate
 * per type; both sides compute the same checksum (row count, value bits, string lengths, list
 * lengths), which must agree. Opening the dataset is part of every scan.
 *
 * <p>Usage: {@code ScanTypesBenchmark [rows=200000] [reps=5] [workdir] [--unfair-allocator]}; long
 * strings use a quarter of the rows (about 33 MB).
 */
public final class ScanTypesBenchmark {
  interface Filler {
    void fill(FieldVector v, int row, Random r);
  }

  record Type(String name, Field field, int rows, Filler filler, String encoding) {}

  static Field f(String name, ArrowType type, Field... children) {
    return new Field(
        name, FieldType.nullable(type), children.length == 0 ? null : List.of(children));
  }

  static final ArrowType F32 = new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);

  static List<Type> types(int rows) {
    String[] words = {
      "lance", "arrow", "vector", "search", "column", "the", "a", "data", "file", "format"
    };
    List<Type> t = new ArrayList<>();
    t.add(
        new Type(
            "int64 random",
            f("c", new ArrowType.Int(64, true)),
            rows,
            (v, i, r) -> ((BigIntVector) v).set(i, r.nextLong()),
            "mini-block Flat(64)"));
    t.add(
        new Type(
            "int32 small range",
            f("c", new ArrowType.Int(32, true)),
            rows,
            (v, i, r) -> ((IntVector) v).set(i, r.nextInt(100)),
            "mini-block InlineBitpacking"));
    t.add(
        new Type(
            "float32 gaussian",
            f("c", F32),
            rows,
            (v, i, r) -> ((Float4Vector) v).set(i, (float) r.nextGaussian()),
            "mini-block Flat(32)"));
    t.add(
        new Type(
            "float64 gaussian",
            f("c", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
            rows,
            (v, i, r) -> ((Float8Vector) v).set(i, r.nextGaussian()),
            "mini-block Flat(64)"));
    t.add(
        new Type(
            "utf8 short (names)",
            f("c", ArrowType.Utf8.INSTANCE),
            rows,
            (v, i, r) ->
                ((VarCharVector) v)
                    .setSafe(i, ("user_" + r.nextInt(1_000_000)).getBytes(StandardCharsets.UTF_8)),
            "mini-block Fsst"));
    t.add(
        new Type(
            "utf8 long (300-1000 B)",
            f("c", ArrowType.Utf8.INSTANCE),
            rows / 4,
            (v, i, r) -> {
              StringBuilder sb = new StringBuilder();
              int len = 300 + r.nextInt(700);
              while (sb.length() < len) {
                sb.append(words[r.nextInt(words.length)]).append(' ');
              }
              ((VarCharVector) v).setSafe(i, sb.substring(0, len).getBytes(StandardCharsets.UTF_8));
            },
            "full-zip Fsst"));
    t.add(
        new Type(
            "vector float32[128]",
            f("c", new ArrowType.FixedSizeList(128), f("item", F32)),
            rows,
            (v, i, r) -> {
              FixedSizeListVector fsl = (FixedSizeListVector) v;
              Float4Vector items = (Float4Vector) fsl.getDataVector();
              fsl.setNotNull(i);
              for (int d = 0; d < 128; d++) {
                items.setSafe(i * 128 + d, (float) r.nextGaussian());
              }
            },
            "full-zip FixedSizeList"));
    t.add(
        new Type(
            "list<int32> (0-8 items)",
            f("c", ArrowType.List.INSTANCE, f("item", new ArrowType.Int(32, true))),
            rows,
            (v, i, r) -> {
              ListVector list = (ListVector) v;
              IntVector items = (IntVector) list.getDataVector();
              int start = list.startNewValue(i);
              int n = r.nextInt(9);
              for (int k = 0; k < n; k++) {
                items.setSafe(start + k, r.nextInt(10_000));
              }
              list.endValue(i, n);
            },
            "mini-block with rep/def levels"));
    t.add(
        new Type(
            "struct<int32, utf8, float64>",
            f(
                "c",
                ArrowType.Struct.INSTANCE,
                f("a", new ArrowType.Int(32, true)),
                f("b", ArrowType.Utf8.INSTANCE),
                f("d", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE))),
            rows,
            (v, i, r) -> {
              StructVector s = (StructVector) v;
              s.setIndexDefined(i);
              ((IntVector) s.getChild("a")).setSafe(i, r.nextInt());
              ((VarCharVector) s.getChild("b"))
                  .setSafe(i, ("b" + r.nextInt(100_000)).getBytes(StandardCharsets.UTF_8));
              ((Float8Vector) s.getChild("d")).setSafe(i, r.nextGaussian());
            },
            "3 mini-block leaf columns"));
    return t;
  }

  public static void main(String[] argv) throws Exception {
    String[] args = BenchArgs.startWithoutData("ScanTypesBenchmark", argv);
    int rows = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
    int reps = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    Path work =
        args.length > 2 ? Path.of(args[2]) : Files.createTempDirectory("lancelot-scan-types");
    // optional: only the types whose name contains this text (case-insensitive), e.g. "utf8 long"
    // or "list"
    String only = args.length > 3 ? args[3].toLowerCase(java.util.Locale.ROOT) : "";
    System.out.printf(
        "ScanTypesBenchmark: full scans of single-column datasets written by lance-core 7.0.0;"
            + " %,d rows; %d reps; %s%n",
        rows, reps, work);
    System.out.printf(
        "JVM %s, %d cores%n",
        System.getProperty("java.version"), Runtime.getRuntime().availableProcessors());
    List<String[]> table = new ArrayList<>();
    try (BufferAllocator allocator = new RootAllocator()) {
      List<Path> dirs = new ArrayList<>();
      List<Type> types =
          types(rows).stream()
              .filter(t -> t.name().toLowerCase(java.util.Locale.ROOT).contains(only))
              .toList();
      if (types.isEmpty()) {
        throw new IllegalArgumentException("no column type matches '" + only + "'");
      }
      for (Type type : types) {
        Path dir = FormatBenchmark.fresh(work, type.name().replaceAll("[^A-Za-z0-9]+", "_"));
        byte[] ipc = generate(allocator, type);
        try (ArrowReader r = FormatBenchmark.reader(allocator, ipc)) {
          org.lance.Dataset.write()
              .allocator(allocator)
              .reader(r)
              .uri(dir.toString())
              .execute()
              .close();
        }
        dirs.add(dir);
      }
      // one warm-up pass over every type first, so the first type measured does not pay for JIT
      // compilation of code all types share
      for (Path dir : dirs) {
        for (int i = 0; i < reps; i++) {
          ourScan(dir);
          lanceScan(allocator, dir);
        }
      }
      for (int t = 0; t < types.size(); t++) {
        Type type = types.get(t);
        Path dir = dirs.get(t);
        long bytes;
        try (var s = Files.walk(dir.resolve("data"))) {
          bytes = s.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
        }
        long[] checks = new long[2];
        long[] ours = stats(reps, () -> FormatBenchmark.timed(() -> checks[0] = ourScan(dir)));
        long[] theirs =
            stats(reps, () -> FormatBenchmark.timed(() -> checks[1] = lanceScan(allocator, dir)));
        FormatBenchmark.check(
            checks[0] == checks[1],
            type.name() + ": checksums differ: " + checks[0] + " vs " + checks[1]);
        String[] row = FormatBenchmark.row(type.name(), ours, theirs);
        table.add(
            new String[] {
              row[0],
              String.format("%,d", type.rows()),
              String.format("%.1f", bytes / 1e6),
              type.encoding(),
              row[1],
              row[2],
              row[3],
              row[4]
            });
        System.out.printf("  %-30s done%n", type.name());
      }
    }
    System.out.println();
    System.out.println(
        "| column type | rows | data MB | Lance's encoding | lancelot median (min), ms"
            + " | lance-core 7.0.0 median (min), ms | ratio of medians | ratio of minimums |");
    System.out.println("|---|---:|---:|---|---:|---:|---:|---:|");
    for (String[] r : table) {
      System.out.println("| " + String.join(" | ", r) + " |");
    }
  }

  /** Results of warm-up runs, kept so that they count as used. */
  static volatile long warmUpSink;

  /** {median, min} after a time-bounded warm-up (see the class comment). */
  static long[] stats(int reps, java.util.function.LongSupplier run) {
    long start = System.nanoTime();
    for (int i = 0; i < 200 && (i < reps || System.nanoTime() - start < 1_000_000_000L); i++) {
      warmUpSink += run.getAsLong(); // consumed, so no run can be optimized away
    }
    List<Long> times = new ArrayList<>();
    start = System.nanoTime();
    while (times.size() < 200
        && (times.size() < reps || System.nanoTime() - start < 500_000_000L)) {
      times.add(run.getAsLong());
    }
    times.sort(null);
    return new long[] {times.get(times.size() / 2), times.get(0)};
  }

  static byte[] generate(BufferAllocator allocator, Type type) throws Exception {
    Schema schema = new Schema(List.of(type.field()));
    Random random = new Random(42);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int batch = 8192;
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
        ArrowStreamWriter writer = new ArrowStreamWriter(root, null, out)) {
      writer.start();
      for (int start = 0; start < type.rows(); start += batch) {
        int n = Math.min(batch, type.rows() - start);
        FieldVector v = root.getVector(0);
        v.setInitialCapacity(n);
        root.allocateNew();
        for (int i = 0; i < n; i++) {
          type.filler().fill(v, i, random);
        }
        v.setValueCount(n);
        root.setRowCount(n);
        writer.writeBatch();
      }
      writer.end();
    }
    return out.toByteArray();
  }

  static long ourScan(Path dir) {
    long sum = 0;
    try (Dataset ds = Dataset.open(dir.toString());
        CloseableIterator<VectorSchemaRoot> it = ds.newScan().batches()) {
      while (it.hasNext()) {
        sum += checksum(it.next());
      }
    }
    return sum;
  }

  static long lanceScan(BufferAllocator allocator, Path dir) throws Exception {
    long sum = 0;
    try (org.lance.Dataset ds =
            org.lance.Dataset.open(allocator, dir.toString(), new ReadOptions.Builder().build());
        LanceScanner scanner = ds.newScan(new ScanOptions.Builder().build());
        ArrowReader reader = scanner.scanBatches()) {
      while (reader.loadNextBatch()) {
        sum += checksum(reader.getVectorSchemaRoot());
      }
    }
    return sum;
  }

  static long checksum(VectorSchemaRoot root) {
    long sum = root.getRowCount();
    for (FieldVector v : root.getFieldVectors()) {
      sum += checksum(v, 0, v.getValueCount());
    }
    return sum;
  }

  /**
   * Order-independent checksum of entries {@code [from, to)}: value bits of fixed-width values,
   * lengths of strings and lists, recursively (the data has no nulls), so batch boundaries do not
   * matter.
   */
  static long checksum(FieldVector v, int from, int to) {
    long sum = 0;
    if (v instanceof FixedSizeListVector fsl) {
      int d = fsl.getListSize();
      return checksum((FieldVector) fsl.getDataVector(), from * d, to * d);
    } else if (v instanceof ListVector list) {
      if (to <= from) {
        return 0;
      }
      int start = list.getElementStartIndex(from);
      int end = list.getElementEndIndex(to - 1);
      return (end - start) * 7L + checksum(list.getDataVector(), start, end);
    } else if (v instanceof StructVector s) {
      int k = 1;
      for (FieldVector c : s.getChildrenFromFields()) {
        sum += checksum(c, from, to) * k++;
      }
      return sum;
    } else if (v instanceof BaseVariableWidthVector var) {
      for (int i = from; i < to; i++) {
        sum += var.getValueLength(i) * 13L + 1;
      }
      return sum;
    } else if (v instanceof BaseLargeVariableWidthVector var) {
      for (int i = from; i < to; i++) {
        sum += var.getValueLength(i) * 13L + 1;
      }
      return sum;
    } else if (v instanceof BaseFixedWidthVector fixed) {
      int width = fixed.getTypeWidth();
      var buf = fixed.getDataBuffer();
      for (int i = from; i < to; i++) {
        sum +=
            width == 8
                ? buf.getLong((long) i * 8)
                : width == 4 ? buf.getInt((long) i * 4) : buf.getByte(i);
      }
      return sum;
    }
    throw new IllegalStateException("no checksum for " + v.getField());
  }
}
