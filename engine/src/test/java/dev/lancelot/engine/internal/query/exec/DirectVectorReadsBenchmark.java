package dev.lancelot.engine.internal.query.exec;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.WriteMode;
import dev.lancelot.engine.WriteOptions;
import dev.lancelot.engine.internal.query.plan.FlatUnit;
import dev.lancelot.engine.internal.scan.RowAddress;
import dev.lancelot.engine.testing.ArrowStreams;
import dev.lancelot.engine.vector.DistanceMetric;
import dev.lancelot.engine.vector.ElementType;
import dev.lancelot.engine.vector.Float16;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float2Vector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Vectors read straight from the pages against the Arrow path (decision D40), not a test: run with
 * {@code main}. Writes one dataset with lancelot, then times flat units without a filter and with
 * filters admitting 1 %, 10 % and every row, and the exact distances of 1,000 candidate rows, both
 * ways; prints the best time of each and checks that both ways return the same rows and distances.
 *
 * <p>Usage: {@code DirectVectorReadsBenchmark [rows=200000] [dim=128] [float32|float16|uint8]
 * [iterations=5] [threads=1]}.
 */
public final class DirectVectorReadsBenchmark {
  private DirectVectorReadsBenchmark() {}

  public static void main(String[] args) throws Exception {
    int rows = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
    int dim = args.length > 1 ? Integer.parseInt(args[1]) : 128;
    ElementType element =
        args.length > 2 ? ElementType.valueOf(args[2].toUpperCase()) : ElementType.FLOAT32;
    int iterations = args.length > 3 ? Integer.parseInt(args[3]) : 5;
    int threads = args.length > 4 ? Integer.parseInt(args[4]) : 1;
    DistanceMetric metric =
        element == ElementType.UINT8 ? DistanceMetric.HAMMING : DistanceMetric.L2;
    Path dir = Files.createTempDirectory("direct-reads-bench");
    ExecutorService pool = threads > 1 ? Executors.newFixedThreadPool(threads - 1) : null;
    try (BufferAllocator allocator = new RootAllocator()) {
      String location = dir.resolve("ds").toString();
      write(allocator, location, rows, dim, element);
      Random random = new Random(42);
      float[][] queries = new float[1][dim];
      for (int d = 0; d < dim; d++) {
        queries[0][d] =
            element == ElementType.UINT8 ? random.nextInt(256) : (float) random.nextGaussian();
      }
      System.out.printf(
          "%,d rows of %s x %d, %s, %d thread(s), best of %d%n",
          rows, element.arrowName(), dim, metric, threads, iterations);
      try (Dataset ds = Dataset.open(location)) {
        List<Long> fragments = ds.fragments().stream().map(f -> f.id()).toList();
        String[] filters = {null, "id < " + rows / 100, "id < " + rows / 10, "id >= 0"};
        for (String filter : filters) {
          FlatUnit unit =
              new FlatUnit(
                  "flat-0",
                  fragments,
                  metric,
                  10,
                  filter == null ? null : ds.bindFilter(filter),
                  "bench");
          UnitResult[] results = new UnitResult[2];
          double[] best = new double[2];
          for (int way = 0; way < 2; way++) {
            boolean direct = way == 0;
            int w = way;
            best[way] =
                best(
                    iterations,
                    () ->
                        results[w] =
                            FlatKnnExecutor.run(
                                ds, unit, "vector", queries, null, null, pool, threads, direct));
          }
          Candidates a = results[0].perQuery().get(0);
          Candidates b = results[1].perQuery().get(0);
          if (!Arrays.equals(a.rowAddresses(), b.rowAddresses())
              || !Arrays.equals(a.exact(), b.exact())) {
            throw new AssertionError("The two paths disagree with filter " + filter);
          }
          System.out.printf(
              "flat unit, filter %-14s direct %8.2f ms   Arrow %8.2f ms   (%.2fx)%n",
              filter == null ? "none" : "'" + filter + "'",
              best[0] * 1e3,
              best[1] * 1e3,
              best[0] / best[1]);
        }
        long[] candidates = new long[Math.min(1000, rows)];
        for (int i = 0; i < candidates.length; i++) {
          long id = random.nextInt(rows);
          candidates[i] = RowAddress.of(0, id);
        }
        candidates = Arrays.stream(candidates).distinct().toArray();
        long[] rowsToScore = candidates;
        float[][] exact = new float[2][];
        double[] best = new double[2];
        for (int way = 0; way < 2; way++) {
          boolean direct = way == 0;
          int w = way;
          best[way] =
              best(
                  iterations,
                  () ->
                      exact[w] =
                          ExactDistances.of(ds, "vector", metric, queries[0], rowsToScore, direct));
        }
        if (!Arrays.equals(exact[0], exact[1])) {
          throw new AssertionError("The two paths disagree on exact distances");
        }
        System.out.printf(
            "exact distances of %,d rows    direct %8.2f ms   Arrow %8.2f ms   (%.2fx)%n",
            rowsToScore.length, best[0] * 1e3, best[1] * 1e3, best[0] / best[1]);
      }
    } finally {
      if (pool != null) {
        pool.shutdownNow();
      }
      try (Stream<Path> files = Files.walk(dir)) {
        for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
  }

  /** The best time of {@code iterations} runs, after one warm-up run, in seconds. */
  private static double best(int iterations, Runnable run) {
    run.run();
    double best = Double.MAX_VALUE;
    for (int i = 0; i < iterations; i++) {
      long t0 = System.nanoTime();
      run.run();
      best = Math.min(best, (System.nanoTime() - t0) / 1e9);
    }
    return best;
  }

  /** One fragment of {@code rows} rows {@code id, vector}, written in batches of 10,000 rows. */
  private static void write(
      BufferAllocator allocator, String location, int rows, int dim, ElementType element)
      throws Exception {
    ArrowType itemType =
        switch (element) {
          case FLOAT32 -> new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
          case FLOAT16 -> new ArrowType.FloatingPoint(FloatingPointPrecision.HALF);
          case UINT8 -> new ArrowType.Int(8, false);
        };
    Schema schema =
        new Schema(
            List.of(
                new Field("id", FieldType.nullable(new ArrowType.Int(64, true)), null),
                new Field(
                    "vector",
                    FieldType.nullable(new ArrowType.FixedSizeList(dim)),
                    List.of(new Field("item", FieldType.nullable(itemType), null)))));
    Random random = new Random(7);
    List<VectorSchemaRoot> batches = new ArrayList<>();
    try {
      for (int start = 0; start < rows; start += 10_000) {
        int n = Math.min(10_000, rows - start);
        VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
        batches.add(root);
        BigIntVector id = (BigIntVector) root.getVector("id");
        FixedSizeListVector vectors = (FixedSizeListVector) root.getVector("vector");
        id.allocateNew(n);
        vectors.allocateNew();
        FieldVector items = vectors.getDataVector();
        for (int r = 0; r < n; r++) {
          id.set(r, start + r);
          vectors.setNotNull(r);
          for (int d = 0; d < dim; d++) {
            int i = r * dim + d;
            switch (element) {
              case FLOAT32 -> ((Float4Vector) items).setSafe(i, (float) random.nextGaussian());
              case FLOAT16 ->
                  ((Float2Vector) items)
                      .setSafe(i, Float16.fromFloat((float) random.nextGaussian()));
              case UINT8 -> ((UInt1Vector) items).setSafe(i, random.nextInt(256));
            }
          }
        }
        items.setValueCount(n * dim);
        id.setValueCount(n);
        vectors.setValueCount(n);
        root.setRowCount(n);
      }
      try (ArrowReader reader = ArrowStreams.readerOf(allocator, batches);
          Dataset ds =
              Dataset.write(
                  location, reader, WriteOptions.of(WriteMode.CREATE).withMaxRowsPerFile(rows))) {
        if (ds.fragments().size() != 1) {
          throw new AssertionError("expected one fragment, got " + ds.fragments().size());
        }
      }
    } finally {
      batches.forEach(VectorSchemaRoot::close);
    }
  }
}
