package dev.lancelot.engine.internal.index.text;

import dev.lancelot.engine.CloseableIterator;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.FragmentInfo;
import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.LancelotException;
import dev.lancelot.engine.Scanner;
import dev.lancelot.engine.expr.BoundPredicate;
import dev.lancelot.engine.index.IndexCatalog;
import dev.lancelot.engine.index.IndexSegment;
import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.internal.DatasetInternals;
import dev.lancelot.engine.internal.index.IndexInternals;
import dev.lancelot.engine.internal.table.BasePaths;
import dev.lancelot.engine.internal.table.DatasetContext;
import dev.lancelot.engine.schema.LanceField;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.roaringbitmap.RoaringBitmap;

/**
 * A match query over one column with Lance's BM25 scores (decision D66): the inverted index's
 * partitions give the corpus statistics (documents, average length, documents per token, deleted
 * rows included as Lance counts them), every live indexed document holding a query token is scored,
 * rows the prefilter rejects are skipped, and the top {@code k} by score (then row id) are kept.
 * Fragments the index does not cover are left out with {@code fastSearch} and refused without it.
 */
public final class TextSearcher {
  /** Lance's BM25 constants. */
  static final double K1 = 1.2;

  static final double B = 0.75;

  /** One hit: the row id and its score. */
  public record Hit(long rowId, float score) implements Serializable {}

  /** An index opened for one query (see {@link #prepare}). */
  public record Prepared(
      String index,
      List<IndexSegment> segments,
      List<InvertedIndexReader> readers,
      List<String> tokens,
      Corpus corpus) {}

  /**
   * The corpus statistics BM25 needs (SPEC T2): documents and their total length over every
   * partition of every segment, and the documents holding each query token. Gathered once per
   * query, they score every partition alike.
   */
  public record Corpus(long docs, long totalTokens, Map<String, Long> df) implements Serializable {
    public Corpus {
      df = Map.copyOf(df);
    }

    Bm25 bm25() {
      return new Bm25(docs, totalTokens, df);
    }
  }

  private TextSearcher() {}

  /** The hits of a match query, best first. */
  public static List<Hit> search(
      Dataset dataset,
      String column,
      String text,
      boolean and,
      int k,
      BoundPredicate filter,
      boolean prefilter,
      boolean fastSearch) {
    Prepared prepared = prepare(dataset, column, text, fastSearch);
    if (prepared.tokens().isEmpty()) {
      return List.of();
    }
    Map<Long, RoaringBitmap> allowed =
        prefilter && filter != null ? passing(dataset, filter, null) : null;
    Bm25 bm25 = prepared.corpus().bm25();
    List<Hit> hits = new ArrayList<>();
    for (InvertedIndexReader r : prepared.readers()) {
      for (InvertedIndexReader.Partition p : r.partitions()) {
        hits.addAll(score(dataset, r, p, prepared.tokens(), bm25, and, k, allowed));
      }
    }
    return finish(dataset, hits, k, prefilter ? null : filter);
  }

  /**
   * The index of {@code column} opened for a query of {@code text}: its segments' readers, the
   * query's distinct tokens, and the corpus statistics of those tokens over every partition of
   * every segment. Every refusal of a search (SPEC T4, T3) happens here.
   */
  public static Prepared prepare(Dataset dataset, String column, String text, boolean fastSearch) {
    if (dataset.stableRowIds()) {
      throw new InvalidInputException(
          "Cannot search text in "
              + dataset.location()
              + ": full-text search of datasets with stable row ids is not supported yet.");
    }
    LanceField field = dataset.field(column);
    if (!(field.arrowType() instanceof org.apache.arrow.vector.types.pojo.ArrowType.Utf8)
        && !(field.arrowType() instanceof org.apache.arrow.vector.types.pojo.ArrowType.LargeUtf8)) {
      throw new InvalidInputException(
          "Cannot search text in column "
              + column
              + ": it is "
              + field.arrowType()
              + ", not a string.");
    }
    IndexCatalog catalog = dataset.indexes();
    String index =
        catalog.indexesOn(field.id()).stream()
            .filter(
                n -> {
                  List<IndexSegment> s = catalog.segments(n);
                  return !s.isEmpty()
                      && s.stream().allMatch(x -> x.type() == IndexType.INVERTED)
                      && s.get(0).fieldIds().equals(List.of(field.id()));
                })
            .sorted()
            .findFirst()
            .orElseThrow(
                () ->
                    new InvalidInputException(
                        "Cannot search text in column "
                            + column
                            + ": it has no inverted index"
                            + (fastSearch ? " (and fast_search scans no unindexed rows)" : "")
                            + "."));
    List<IndexSegment> segments = catalog.segments(index);
    List<InvertedIndexReader> readers = new ArrayList<>();
    for (IndexSegment segment : segments) {
      readers.add(reader(dataset, segment));
    }
    TextAnalyzer analyzer = TextAnalyzer.of(readers.get(0).params(), index);
    List<FragmentInfo> unindexed = catalog.unindexedFragments(index);
    if (!fastSearch && !unindexed.isEmpty()) {
      throw new InvalidInputException(
          "Cannot search text in column "
              + column
              + ": the inverted index "
              + index
              + " does not cover fragments "
              + unindexed.stream().map(FragmentInfo::id).toList()
              + ", and lancelot does not score unindexed rows as Lance does yet. Search with"
              + " fast_search (indexed rows only) or update the index.");
    }
    for (InvertedIndexReader r : readers) {
      if (!r.params().equals(readers.get(0).params())) {
        throw new LancelotException(
            "Cannot search the inverted index "
                + index
                + ": its segments were built with different tokenizer settings.");
      }
    }
    List<String> tokens = List.copyOf(new LinkedHashSet<>(analyzer.tokens(text)));

    // Corpus statistics over every partition of every segment.
    long docs = 0;
    long totalTokens = 0;
    Map<String, Long> df = new HashMap<>();
    for (InvertedIndexReader r : readers) {
      for (InvertedIndexReader.Partition p : r.partitions()) {
        docs += p.rowIds.length;
        for (int n : p.numTokens) {
          totalTokens += n;
        }
        for (String t : tokens) {
          int id = p.tokenId(t);
          if (id >= 0) {
            df.merge(t, (long) p.lengths[id], Long::sum);
          }
        }
      }
    }
    return new Prepared(index, segments, readers, tokens, new Corpus(docs, totalTokens, df));
  }

  /** The reader of one segment of an inverted index, from the session's cache. */
  public static InvertedIndexReader reader(Dataset dataset, IndexSegment segment) {
    DatasetContext ctx = DatasetInternals.context(dataset);
    BasePaths bases = DatasetInternals.snapshot(dataset).bases();
    var proto = IndexInternals.proto(segment);
    String dir =
        bases.indexDir(segment.uuid().toString(), proto.hasBaseId() ? proto.getBaseId() : null);
    return InvertedIndexReader.cached(ctx.cache(), ctx.io(), dir, segment);
  }

  /**
   * The best {@code k} live rows of one partition ({@code tokens} in query order, {@code bm25} the
   * corpus-wide statistics), best first; {@code allowed}, when given, holds the rows the prefilter
   * passes. A row's score is summed over the tokens in query order, so it is the same float
   * wherever the partition is searched. With {@code and}, a row must hold every query token the
   * partition holds (as Lance 7 evaluates AND, partition by partition: a token no document of the
   * partition holds does not exclude the partition's rows).
   */
  static List<Hit> score(
      Dataset dataset,
      InvertedIndexReader r,
      InvertedIndexReader.Partition p,
      List<String> tokens,
      Bm25 bm25,
      boolean and,
      int k,
      Map<Long, RoaringBitmap> allowed) {
    RoaringBitmap live = liveFragments(dataset);
    Map<Long, RoaringBitmap> deleted = new HashMap<>();
    Map<Long, double[]> scores = new HashMap<>();
    Map<Long, Integer> matched = new HashMap<>();
    int held = 0;
    for (String t : tokens) {
      int id = p.tokenId(t);
      if (id < 0) {
        continue;
      }
      held++;
      int[][] list = r.postings(p, id);
      double idf = bm25.idf(t);
      for (int i = 0; i < list[0].length; i++) {
        int doc = list[0][i];
        long rowId = p.rowIds[doc];
        if (!visible(dataset, rowId, live, deleted, allowed)) {
          continue;
        }
        scores.computeIfAbsent(rowId, x -> new double[1])[0] +=
            idf * bm25.tf(list[1][i], p.numTokens[doc]);
        matched.merge(rowId, 1, Integer::sum);
      }
    }
    PriorityQueue<Hit> top = new PriorityQueue<>(WORST_FIRST);
    for (var e : scores.entrySet()) {
      if (and && matched.get(e.getKey()) < held) {
        continue;
      }
      top.add(new Hit(e.getKey(), (float) e.getValue()[0]));
      if (top.size() > k) {
        top.poll();
      }
    }
    List<Hit> out = new ArrayList<>(top);
    out.sort(BEST_FIRST);
    return out;
  }

  /**
   * The answer from every partition's hits: the best {@code k} (by score, then row id), then, for a
   * postfilter ({@code postfilter} non-null), those of them that pass it.
   */
  public static List<Hit> finish(
      Dataset dataset, List<Hit> hits, int k, BoundPredicate postfilter) {
    List<Hit> out = new ArrayList<>(hits);
    out.sort(BEST_FIRST);
    if (out.size() > k) {
      out = new ArrayList<>(out.subList(0, k));
    }
    if (postfilter != null && !out.isEmpty()) {
      Map<Long, RoaringBitmap> pass = passing(dataset, postfilter, null);
      out.removeIf(h -> !contains(pass, h.rowId()));
    }
    return out;
  }

  private static final Comparator<Hit> BEST_FIRST =
      (a, b) ->
          a.score() != b.score()
              ? Float.compare(b.score(), a.score())
              : Long.compare(a.rowId(), b.rowId());

  private static final Comparator<Hit> WORST_FIRST = BEST_FIRST.reversed();

  private static RoaringBitmap liveFragments(Dataset dataset) {
    RoaringBitmap live = new RoaringBitmap();
    for (FragmentInfo f : dataset.fragments()) {
      live.add(Math.toIntExact(f.id()));
    }
    return live;
  }

  private static boolean visible(
      Dataset dataset,
      long rowId,
      RoaringBitmap live,
      Map<Long, RoaringBitmap> deleted,
      Map<Long, RoaringBitmap> allowed) {
    long fragment = rowId >>> 32;
    if (!live.contains((int) fragment)) {
      return false;
    }
    RoaringBitmap gone = deleted.computeIfAbsent(fragment, dataset::deletedRows);
    if (gone.contains((int) rowId)) {
      return false;
    }
    return allowed == null || contains(allowed, rowId);
  }

  private static boolean contains(Map<Long, RoaringBitmap> rows, long rowId) {
    RoaringBitmap b = rows.get(rowId >>> 32);
    return b != null && b.contains((int) rowId);
  }

  /** The live rows passing {@code filter}, by fragment; of {@code fragments} only when given. */
  static Map<Long, RoaringBitmap> passing(
      Dataset dataset, BoundPredicate filter, Collection<Long> fragments) {
    Map<Long, RoaringBitmap> out = new HashMap<>();
    Scanner scan = dataset.newScan().filter(filter).columns(List.of()).withRowAddress(true);
    if (fragments != null) {
      scan.fragments(fragments);
    }
    try (CloseableIterator<VectorSchemaRoot> it = scan.batches()) {
      while (it.hasNext()) {
        VectorSchemaRoot b = it.next();
        UInt8Vector a = (UInt8Vector) b.getVector("_rowaddr");
        for (int i = 0; i < b.getRowCount(); i++) {
          long addr = a.get(i);
          out.computeIfAbsent(addr >>> 32, x -> new RoaringBitmap()).add((int) addr);
        }
      }
    }
    return out;
  }

  /** BM25 with Lance's constants and IDF over the index's corpus statistics. */
  static final class Bm25 {
    private final long docs;
    private final double avgLength;
    private final Map<String, Long> df;

    Bm25(long docs, long totalTokens, Map<String, Long> df) {
      this.docs = docs;
      this.avgLength = docs == 0 ? 0 : (double) totalTokens / docs;
      this.df = df;
    }

    double idf(String token) {
      long n = df.getOrDefault(token, 0L);
      return Math.log(1 + (docs - n + 0.5) / (n + 0.5));
    }

    double tf(int freq, int length) {
      double norm = K1 * (1 - B + B * length / avgLength);
      return freq * (K1 + 1) / (freq + norm);
    }
  }
}
