package dev.lancelot.bench;

import static dev.lancelot.bench.VectorBenchData.log;
import static dev.lancelot.bench.VectorBenchData.mib;

import dev.lancelot.bench.VectorBenchData.Knobs;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.vector.DistanceMetric;
import io.github.jbellis.jvector.graph.GraphIndexBuilder;
import io.github.jbellis.jvector.graph.GraphSearcher;
import io.github.jbellis.jvector.graph.ImmutableGraphIndex;
import io.github.jbellis.jvector.graph.ListRandomAccessVectorValues;
import io.github.jbellis.jvector.graph.RandomAccessVectorValues;
import io.github.jbellis.jvector.graph.SearchResult;
import io.github.jbellis.jvector.graph.similarity.BuildScoreProvider;
import io.github.jbellis.jvector.graph.similarity.DefaultSearchScoreProvider;
import io.github.jbellis.jvector.quantization.PQVectors;
import io.github.jbellis.jvector.quantization.ProductQuantization;
import io.github.jbellis.jvector.util.Bits;
import io.github.jbellis.jvector.vector.VectorSimilarityFunction;
import io.github.jbellis.jvector.vector.VectorizationProvider;
import io.github.jbellis.jvector.vector.types.VectorFloat;
import io.github.jbellis.jvector.vector.types.VectorTypeSupport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ForkJoinPool;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.lucene.codecs.Codec;
import org.apache.lucene.codecs.KnnVectorsFormat;
import org.apache.lucene.codecs.lucene912.Lucene912Codec;
import org.apache.lucene.codecs.lucene99.Lucene99HnswScalarQuantizedVectorsFormat;
import org.apache.lucene.codecs.lucene99.Lucene99HnswVectorsFormat;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.KnnFloatVectorField;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.KnnFloatVectorQuery;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.store.FSDirectory;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;

/**
 * Vector search against the JVM's reference ANN libraries, ANN-benchmarks style: on one data set of
 * {@link DataSets} ({@code --data}, default {@code synthetic-200k}), lancelot's IVF_HNSW_SQ and
 * IVF_PQ, jvector 4.0.2's graph index (M 32, beam width 100, its builder's other defaults; searched
 * at full precision, and with product quantization plus exact rerank) and Lucene 9.12's HNSW (M 16,
 * beam width 100; float and int8 scalar-quantized) are built from the same vectors under the data
 * set's metric and searched with a grid of search widths. For every (engine, setting): recall@10
 * against the exact top 10, and one query at a time on the calling thread: mean and p50 latency,
 * QPS = 1 / mean.
 *
 * <p>Fairness: every engine answers the same queries after the same warm-up; the settings of all
 * engines are run in rounds (each round a block of queries per setting, in one order), so machine
 * noise spreads over every engine rather than landing on one. Comparisons per core pin the whole
 * JVM to one CPU ({@code taskset -c 0}, see docs/benchmarks.md); without it lancelot's per-query
 * parallelism uses every core while jvector and Lucene search on the calling thread only.
 *
 * <p>Writes {@code <workdir>/ann-libraries.md} (tables), {@code ann-libraries.csv} (one row per
 * engine and setting) and {@code ann-libraries.png} (recall@10 against QPS, one line per engine).
 *
 * <p>Usage: {@code AnnLibrariesBenchmark <workdir> [queries=1000] [warmup=200] [rounds=3]
 * [engines=lancelot,jvector,lucene] [--data <name>]}.
 */
public final class AnnLibrariesBenchmark {
  private static final int K = VectorBenchData.TRUTH_K;

  /** One searchable configuration: an engine's index and one setting of its search width. */
  interface Setting {
    String engine();

    String label();

    long[] search(float[] q);
  }

  /** Latencies and recall of one setting over the measured queries. */
  static final class Measured {
    final Setting setting;
    final List<Long> nanos = new ArrayList<>();
    double recallSum;
    int answered;

    Measured(Setting setting) {
      this.setting = setting;
    }

    double recall() {
      return recallSum / answered;
    }

    double meanMs() {
      return nanos.stream().mapToLong(Long::longValue).average().orElse(Double.NaN) / 1e6;
    }

    double p50Ms() {
      long[] s = nanos.stream().mapToLong(Long::longValue).sorted().toArray();
      return s[s.length / 2] / 1e6;
    }

    double qps() {
      return 1000.0 / meanMs();
    }
  }

  public static void main(String[] argv) throws Exception {
    BenchArgs bench = BenchArgs.start("AnnLibrariesBenchmark", argv, true);
    String[] args = bench.rest;
    Path work = Path.of(args.length > 0 ? args[0] : "/tmp/lancelot-ann-libraries");
    int nq = args.length > 1 ? Integer.parseInt(args[1]) : 1000;
    int warmup = args.length > 2 ? Integer.parseInt(args[2]) : 200;
    int rounds = args.length > 3 ? Integer.parseInt(args[3]) : 3;
    List<String> engines =
        Arrays.asList((args.length > 4 ? args[4] : "lancelot,jvector,lucene").split(","));
    List<String> report = new ArrayList<>();
    List<AutoCloseable> open = new ArrayList<>();
    try (BufferAllocator allocator = new RootAllocator()) {
      VectorBenchData data = DataSets.load(work, bench.data, nq);
      report.add(
          String.format(
              "AnnLibrariesBenchmark: %s, %,d rows x float32[%d] %s, %d queries (%d warm-up),"
                  + " %d rounds, k=%d; JVM %s, %d cores visible, load before %s",
              data.name,
              data.rows,
              data.dim,
              data.metric.lanceName(),
              nq,
              warmup,
              rounds,
              K,
              System.getProperty("java.version"),
              Runtime.getRuntime().availableProcessors(),
              VectorBenchData.load()));
      log(report.get(0));
      report.add("");
      report.add("| engine | index | build (s) | index size (MiB) |");
      report.add("|---|---|---:|---:|");
      List<Setting> settings = new ArrayList<>();
      if (engines.contains("lancelot")) {
        settings.addAll(lancelot(allocator, work, data, report, open));
      }
      if (engines.contains("jvector")) {
        settings.addAll(jvector(data, report));
      }
      if (engines.contains("lucene")) {
        settings.addAll(lucene(work, data, report, open));
      }
      List<Measured> measured = measure(data, settings, warmup, rounds);
      report.add("");
      report.add("| engine | setting | recall@10 | mean ms | p50 ms | QPS |");
      report.add("|---|---|---:|---:|---:|---:|");
      List<String> csv = new ArrayList<>();
      csv.add("engine,setting,recall,mean_ms,p50_ms,qps");
      for (Measured m : measured) {
        report.add(
            String.format(
                "| %s | %s | %.3f | %.3f | %.3f | %.0f |",
                m.setting.engine(), m.setting.label(), m.recall(), m.meanMs(), m.p50Ms(), m.qps()));
        csv.add(
            String.format(
                "%s,\"%s\",%.4f,%.4f,%.4f,%.1f",
                m.setting.engine(), m.setting.label(), m.recall(), m.meanMs(), m.p50Ms(), m.qps()));
      }
      report.add("");
      report.add("Load after: " + VectorBenchData.load());
      Files.createDirectories(work);
      Files.write(work.resolve("ann-libraries.md"), report);
      Files.write(work.resolve("ann-libraries.csv"), csv);
      plot(data, measured, work.resolve("ann-libraries.png"));
      report.forEach(System.out::println);
    } finally {
      for (AutoCloseable c : open) {
        c.close();
      }
    }
  }

  /** Runs every setting's warm-up, then {@code rounds} rounds of a block of queries each. */
  static List<Measured> measure(
      VectorBenchData data, List<Setting> settings, int warmup, int rounds) {
    List<Measured> out = new ArrayList<>();
    for (Setting s : settings) {
      for (int i = 0; i < warmup; i++) {
        s.search(data.queries[i % data.queries.length]);
      }
      out.add(new Measured(s));
    }
    int nq = data.queries.length;
    for (int r = 0; r < rounds; r++) {
      int from = r * nq / rounds;
      int to = (r + 1) * nq / rounds;
      for (Measured m : out) {
        for (int i = from; i < to; i++) {
          long t0 = System.nanoTime();
          long[] got = m.setting.search(data.queries[i]);
          m.nanos.add(System.nanoTime() - t0);
          m.recallSum += VectorBenchData.recall(got, data.truth[i]);
          m.answered++;
        }
      }
      log("round " + (r + 1) + "/" + rounds + " done; load " + VectorBenchData.load());
    }
    return out;
  }

  // ------------------------------------------------------------------ lancelot

  static List<Setting> lancelot(
      BufferAllocator allocator,
      Path work,
      VectorBenchData data,
      List<String> report,
      List<AutoCloseable> open)
      throws IOException {
    Path source = data.source(allocator, work, data.rows);
    List<Setting> out = new ArrayList<>();
    for (IndexType t : List.of(IndexType.IVF_HNSW_SQ, IndexType.IVF_PQ)) {
      Path dir =
          work.resolve(data.workDir("ann-libraries"))
              .resolve(t.name().toLowerCase(java.util.Locale.ROOT));
      VectorBenchData.deleteTree(dir);
      VectorBenchData.copyTree(source, dir);
      long ns = VectorIndexBenchmark.buildOurs(dir, t, data.metric, null);
      report.add(
          String.format(
              "| lancelot | %s (%s) | %.1f | %s |",
              t,
              VectorIndexBenchmark.describe(t, data.metric),
              ns / 1e9,
              mib(VectorBenchData.sizeOf(dir.resolve("_indices")))));
      Dataset ds = Dataset.open(dir.toString());
      open.add(ds);
      List<Knobs> grid = new ArrayList<>();
      if (t == IndexType.IVF_PQ) {
        grid.addAll(VectorIndexBenchmark.grid(t, data.metric));
      } else {
        // 16 partitions; refine 2 re-ranks the SQ candidates with the original vectors (ef ≥ 20)
        for (int nprobes : new int[] {1, 2, 4, 8, 16}) {
          for (int ef : new int[] {32, 64, 128}) {
            grid.add(Knobs.ann(nprobes, 2, ef).metric(data.metric));
          }
        }
      }
      for (Knobs k : grid) {
        out.add(
            new Setting() {
              @Override
              public String engine() {
                return "lancelot " + t;
              }

              @Override
              public String label() {
                return k.label();
              }

              @Override
              public long[] search(float[] q) {
                return VectorBenchData.ours(ds, q, k);
              }
            });
      }
    }
    return out;
  }

  // ------------------------------------------------------------------ jvector

  static VectorSimilarityFunction jvectorFunction(DistanceMetric m) {
    return switch (m) {
      case L2 -> VectorSimilarityFunction.EUCLIDEAN;
      case COSINE -> VectorSimilarityFunction.COSINE;
      case DOT -> VectorSimilarityFunction.DOT_PRODUCT;
      default -> throw new IllegalArgumentException("jvector: no similarity for " + m);
    };
  }

  static List<Setting> jvector(VectorBenchData data, List<String> report) throws IOException {
    VectorTypeSupport vts = VectorizationProvider.getInstance().getVectorTypeSupport();
    List<VectorFloat<?>> vectors = new ArrayList<>(data.rows);
    for (int i = 0; i < data.rows; i++) {
      vectors.add(
          vts.createFloatVector(
              Arrays.copyOfRange(data.vectors, i * data.dim, (i + 1) * data.dim)));
    }
    RandomAccessVectorValues ravv = new ListRandomAccessVectorValues(vectors, data.dim);
    VectorSimilarityFunction vsf = jvectorFunction(data.metric);
    long t0 = System.nanoTime();
    BuildScoreProvider bsp = BuildScoreProvider.randomAccessScoreProvider(ravv, vsf);
    ImmutableGraphIndex graph;
    try (GraphIndexBuilder builder =
        GraphIndexBuilder.builder(bsp, data.dim, 32)
            .withBeamWidth(100)
            .withNeighborOverflow(1.2f)
            .withAlpha(1.2f)
            .build()) {
      graph = builder.build(ravv);
    }
    long graphNs = System.nanoTime() - t0;
    long t1 = System.nanoTime();
    int subspaces = Math.max(1, data.dim / 4);
    ProductQuantization pq =
        ProductQuantization.compute(
            ravv, subspaces, 256, vsf == VectorSimilarityFunction.EUCLIDEAN);
    PQVectors codes = pq.encodeAll(ravv, ForkJoinPool.commonPool());
    long pqNs = System.nanoTime() - t1;
    report.add(
        String.format(
            "| jvector | graph (M 32, beam 100, overflow 1.2, alpha 1.2) | %.1f | %s (in memory) |",
            graphNs / 1e9, mib(ramBytes(graph))));
    report.add(
        String.format(
            "| jvector | + PQ (%d subspaces x 256), rerank exact | +%.1f | +%s (codes) |",
            subspaces, pqNs / 1e9, mib((long) data.rows * subspaces)));
    List<Setting> out = new ArrayList<>();
    for (int overquery : new int[] {10, 20, 40, 80, 160}) {
      out.add(
          new Setting() {
            @Override
            public String engine() {
              return "jvector graph";
            }

            @Override
            public String label() {
              return "rerank_k=" + overquery;
            }

            @Override
            public long[] search(float[] q) {
              SearchResult r =
                  GraphSearcher.search(
                      vts.createFloatVector(q), K, overquery, ravv, vsf, graph, Bits.ALL);
              return ids(r);
            }
          });
    }
    for (int overquery : new int[] {20, 40, 80, 160, 320}) {
      out.add(
          new Setting() {
            private final ThreadLocal<GraphSearcher> searcher =
                ThreadLocal.withInitial(() -> new GraphSearcher(graph));

            @Override
            public String engine() {
              return "jvector graph+PQ";
            }

            @Override
            public String label() {
              return "rerank_k=" + overquery;
            }

            @Override
            public long[] search(float[] q) {
              VectorFloat<?> v = vts.createFloatVector(q);
              DefaultSearchScoreProvider ssp =
                  new DefaultSearchScoreProvider(
                      codes.precomputedScoreFunctionFor(v, vsf), ravv.rerankerFor(v, vsf));
              return ids(searcher.get().search(ssp, K, overquery, 0.0f, 0.0f, Bits.ALL));
            }
          });
    }
    return out;
  }

  private static long ramBytes(ImmutableGraphIndex graph) {
    try {
      return (long) graph.getClass().getMethod("ramBytesUsed").invoke(graph);
    } catch (ReflectiveOperationException e) {
      return 0;
    }
  }

  private static long[] ids(SearchResult r) {
    SearchResult.NodeScore[] nodes = r.getNodes();
    long[] out = new long[nodes.length];
    for (int i = 0; i < nodes.length; i++) {
      out[i] = nodes[i].node;
    }
    return out;
  }

  // ------------------------------------------------------------------ Lucene

  static org.apache.lucene.index.VectorSimilarityFunction luceneFunction(DistanceMetric m) {
    return switch (m) {
      case L2 -> org.apache.lucene.index.VectorSimilarityFunction.EUCLIDEAN;
      case COSINE -> org.apache.lucene.index.VectorSimilarityFunction.COSINE;
      case DOT -> org.apache.lucene.index.VectorSimilarityFunction.MAXIMUM_INNER_PRODUCT;
      default -> throw new IllegalArgumentException("Lucene: no similarity for " + m);
    };
  }

  static List<Setting> lucene(
      Path work, VectorBenchData data, List<String> report, List<AutoCloseable> open)
      throws IOException {
    List<Setting> out = new ArrayList<>();
    for (boolean quantized : new boolean[] {false, true}) {
      String name = quantized ? "HNSW int8" : "HNSW float";
      Path dir = work.resolve(data.workDir("ann-libraries")).resolve("lucene-" + quantized);
      VectorBenchData.deleteTree(dir);
      KnnVectorsFormat format =
          quantized
              ? new Lucene99HnswScalarQuantizedVectorsFormat(16, 100)
              : new Lucene99HnswVectorsFormat(16, 100);
      Codec codec =
          new Lucene912Codec() {
            @Override
            public KnnVectorsFormat getKnnVectorsFormatForField(String field) {
              return format;
            }
          };
      org.apache.lucene.index.VectorSimilarityFunction sim = luceneFunction(data.metric);
      long t0 = System.nanoTime();
      FSDirectory directory = FSDirectory.open(dir);
      IndexWriterConfig config =
          new IndexWriterConfig()
              .setCodec(codec)
              .setRAMBufferSizeMB(4096)
              .setUseCompoundFile(false);
      try (IndexWriter writer = new IndexWriter(directory, config)) {
        for (int i = 0; i < data.rows; i++) {
          Document doc = new Document();
          doc.add(
              new KnnFloatVectorField(
                  "v", Arrays.copyOfRange(data.vectors, i * data.dim, (i + 1) * data.dim), sim));
          doc.add(new StoredField("id", i));
          writer.addDocument(doc);
        }
        writer.forceMerge(1);
      }
      long ns = System.nanoTime() - t0;
      report.add(
          String.format(
              "| Lucene 9.12 | %s (M 16, beam 100) | %.1f | %s |",
              name, ns / 1e9, mib(VectorBenchData.sizeOf(dir))));
      DirectoryReader reader = DirectoryReader.open(directory);
      open.add(reader);
      open.add(directory);
      IndexSearcher searcher = new IndexSearcher(reader);
      int[] idOfDoc = idsOfDocs(reader);
      for (int candidates : new int[] {10, 20, 40, 80, 160, 320}) {
        out.add(
            new Setting() {
              @Override
              public String engine() {
                return "Lucene " + name;
              }

              @Override
              public String label() {
                return "num_candidates=" + candidates;
              }

              @Override
              public long[] search(float[] q) {
                try {
                  ScoreDoc[] hits =
                      searcher.search(new KnnFloatVectorQuery("v", q, candidates), K).scoreDocs;
                  long[] ids = new long[hits.length];
                  for (int i = 0; i < hits.length; i++) {
                    ids[i] = idOfDoc[hits[i].doc];
                  }
                  return ids;
                } catch (IOException e) {
                  throw new IllegalStateException(e);
                }
              }
            });
      }
    }
    return out;
  }

  /** The row id of every document, read once so a search maps hits without stored-field reads. */
  private static int[] idsOfDocs(DirectoryReader reader) throws IOException {
    int[] out = new int[reader.maxDoc()];
    org.apache.lucene.index.StoredFields fields = reader.storedFields();
    for (int d = 0; d < out.length; d++) {
      out[d] = fields.document(d).getField("id").numericValue().intValue();
    }
    return out;
  }

  // ------------------------------------------------------------------ plot

  static void plot(VectorBenchData data, List<Measured> measured, Path png) throws IOException {
    System.setProperty("java.awt.headless", "true");
    XYChart chart =
        new XYChartBuilder()
            .width(900)
            .height(600)
            .title(
                "recall@10 vs QPS, one query at a time: "
                    + data.name
                    + " ("
                    + data.metric.lanceName()
                    + ")")
            .xAxisTitle("recall@10")
            .yAxisTitle("queries per second")
            .build();
    chart.getStyler().setYAxisLogarithmic(true);
    List<String> engines = new ArrayList<>();
    for (Measured m : measured) {
      if (!engines.contains(m.setting.engine())) {
        engines.add(m.setting.engine());
      }
    }
    for (String engine : engines) {
      List<Measured> pareto = new ArrayList<>();
      for (Measured m : measured) {
        if (m.setting.engine().equals(engine)) {
          pareto.add(m);
        }
      }
      pareto.sort((a, b) -> Double.compare(a.recall(), b.recall()));
      // keep the Pareto front: a point is shown unless another is both as accurate and faster
      List<Measured> front = new ArrayList<>();
      for (int i = pareto.size() - 1; i >= 0; i--) {
        Measured m = pareto.get(i);
        if (front.isEmpty() || m.qps() > front.get(front.size() - 1).qps()) {
          front.add(m);
        }
      }
      double[] x = new double[front.size()];
      double[] y = new double[front.size()];
      for (int i = 0; i < front.size(); i++) {
        x[i] = front.get(front.size() - 1 - i).recall();
        y[i] = front.get(front.size() - 1 - i).qps();
      }
      chart.addSeries(engine, x, y);
    }
    BitmapEncoder.saveBitmap(chart, png.toString(), BitmapEncoder.BitmapFormat.PNG);
  }
}
