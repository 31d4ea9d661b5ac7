package dev.lancelot.engine.internal.index.text;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.expr.BoundPredicate;
import dev.lancelot.engine.index.text.FullTextQuery;
import dev.lancelot.engine.index.text.TextQuery;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.roaringbitmap.RoaringBitmap;

/**
 * Query trees scored as Lance 7 scores them (decision D80, SPEC T8–T10). Every leaf is a match of
 * one column, scored over every live indexed row (no leaf is cut to {@code k}) with the corpus
 * statistics of its column's index; the nodes then combine the leaves' row scores:
 *
 * <ul>
 *   <li>a match's score is its BM25 score times its boost;
 *   <li>a multi-match keeps, per row, the best of its columns' boosted match scores, and only its
 *       best {@code k} rows;
 *   <li>a boolean query keeps the rows of its first MUST clause that every other MUST clause also
 *       matches, with the first clause's score (or, without MUST clauses, every row some SHOULD
 *       clause matches), adds the scores of the SHOULD clauses matching the row, and drops the rows
 *       a MUST_NOT clause matches;
 *   <li>a boost query keeps its positive query's rows and lowers the score of those its negative
 *       query matches (see {@link #boost}).
 * </ul>
 */
public final class TextQueries {
  private TextQueries() {}

  /** The best {@code k} rows of {@code query}, best first, then the postfilter. */
  public static List<TextSearcher.Hit> search(
      Dataset dataset,
      TextQuery query,
      int k,
      BoundPredicate filter,
      boolean prefilter,
      boolean fastSearch) {
    Map<Long, RoaringBitmap> allowed =
        prefilter && filter != null ? TextSearcher.passing(dataset, filter, null) : null;
    Map<Long, Float> scores = eval(dataset, query, k, allowed, fastSearch);
    List<TextSearcher.Hit> hits = new ArrayList<>(scores.size());
    scores.forEach((row, score) -> hits.add(new TextSearcher.Hit(row, score)));
    return TextSearcher.finish(dataset, hits, k, prefilter ? null : filter);
  }

  /** Every row {@code query} matches, with its score. */
  static Map<Long, Float> eval(
      Dataset dataset,
      TextQuery query,
      int k,
      Map<Long, RoaringBitmap> allowed,
      boolean fastSearch) {
    List<Map<Long, Float>> scores = new ArrayList<>();
    for (TextQuery.Match m : leaves(query)) {
      scores.add(
          match(dataset, m.column(), m.text(), m.operator(), m.boost(), allowed, fastSearch));
    }
    return combine(query, scores, k);
  }

  /**
   * The match leaves of {@code query}, in the order {@link #combine} takes their scores: a
   * multi-match gives one boosted match per column.
   */
  public static List<TextQuery.Match> leaves(TextQuery query) {
    List<TextQuery.Match> out = new ArrayList<>();
    collect(query, out);
    return out;
  }

  private static void collect(TextQuery query, List<TextQuery.Match> out) {
    if (query instanceof TextQuery.Match m) {
      out.add(m);
    } else if (query instanceof TextQuery.MultiMatch mm) {
      for (int i = 0; i < mm.columns().size(); i++) {
        out.add(
            new TextQuery.Match(mm.columns().get(i), mm.text(), mm.operator(), mm.boosts().get(i)));
      }
    } else if (query instanceof TextQuery.Bool b) {
      b.clauses().forEach(c -> collect(c.query(), out));
    } else {
      TextQuery.Boost boost = (TextQuery.Boost) query;
      collect(boost.positive(), out);
      collect(boost.negative(), out);
    }
  }

  /**
   * The rows of {@code query} and their scores from the scores of its {@linkplain #leaves leaves}
   * (each already times its boost), in leaf order; {@code k} is the query's, which a multi-match
   * keeps (as Lance 7 does: its rows are its best {@code k}, wherever it is in the tree).
   */
  public static Map<Long, Float> combine(
      TextQuery query, List<Map<Long, Float>> leafScores, int k) {
    int[] next = {0};
    Map<Long, Float> out = combine(query, leafScores, next, k);
    if (next[0] != leafScores.size()) {
      throw new IllegalStateException(
          leafScores.size() + " leaf scores for a query of " + next[0] + " leaves");
    }
    return out;
  }

  private static Map<Long, Float> combine(
      TextQuery query, List<Map<Long, Float>> leafScores, int[] next, int k) {
    if (query instanceof TextQuery.Match) {
      return new LinkedHashMap<>(leafScores.get(next[0]++));
    }
    if (query instanceof TextQuery.MultiMatch mm) {
      Map<Long, Float> out = new LinkedHashMap<>();
      for (int i = 0; i < mm.columns().size(); i++) {
        leafScores.get(next[0]++).forEach((row, score) -> out.merge(row, score, Math::max));
      }
      return best(out, k);
    }
    if (query instanceof TextQuery.Bool b) {
      return bool(b, leafScores, next, k);
    }
    TextQuery.Boost boost = (TextQuery.Boost) query;
    Map<Long, Float> positive = combine(boost.positive(), leafScores, next, k);
    Map<Long, Float> negative = combine(boost.negative(), leafScores, next, k);
    Map<Long, Float> out = new LinkedHashMap<>();
    positive.forEach(
        (row, score) -> {
          Float neg = negative.get(row);
          out.put(row, neg == null ? score : boost(score, neg, boost.negativeBoost()));
        });
    return out;
  }

  /** The best {@code k} of {@code rows} by score, then row id. */
  private static Map<Long, Float> best(Map<Long, Float> rows, int k) {
    if (rows.size() <= k) {
      return rows;
    }
    List<Map.Entry<Long, Float>> all = new ArrayList<>(rows.entrySet());
    all.sort(
        (a, b) ->
            !a.getValue().equals(b.getValue())
                ? Float.compare(b.getValue(), a.getValue())
                : Long.compare(a.getKey(), b.getKey()));
    Map<Long, Float> out = new LinkedHashMap<>();
    for (Map.Entry<Long, Float> e : all.subList(0, k)) {
      out.put(e.getKey(), e.getValue());
    }
    return out;
  }

  /** The score of a row both queries of a boost query match. */
  static float boost(float positive, float negative, float negativeBoost) {
    return positive - negativeBoost * negative;
  }

  private static Map<Long, Float> bool(
      TextQuery.Bool b, List<Map<Long, Float>> leafScores, int[] next, int k) {
    Map<Long, Float> must = null;
    Map<Long, Float> should = new LinkedHashMap<>();
    List<Map<Long, Float>> mustNot = new ArrayList<>();
    for (TextQuery.Clause c : b.clauses()) {
      Map<Long, Float> rows = combine(c.query(), leafScores, next, k);
      switch (c.occur()) {
        case MUST -> {
          if (must == null) {
            must = new LinkedHashMap<>(rows);
          } else {
            must.keySet().retainAll(rows.keySet());
          }
        }
        case SHOULD -> rows.forEach((row, score) -> should.merge(row, score, Float::sum));
        case MUST_NOT -> mustNot.add(rows);
      }
    }
    Map<Long, Float> out;
    if (must == null) {
      out = should;
    } else {
      out = must;
      for (var e : out.entrySet()) {
        Float extra = should.get(e.getKey());
        if (extra != null) {
          e.setValue(e.getValue() + extra);
        }
      }
    }
    for (Map<Long, Float> not : mustNot) {
      out.keySet().removeAll(not.keySet());
    }
    return out;
  }

  /** Every live indexed row of {@code column} a match query matches, scored times {@code boost}. */
  private static Map<Long, Float> match(
      Dataset dataset,
      String column,
      String text,
      FullTextQuery.Operator operator,
      float boost,
      Map<Long, RoaringBitmap> allowed,
      boolean fastSearch) {
    TextSearcher.Prepared prepared = TextSearcher.prepare(dataset, column, text, fastSearch);
    List<TextSearcher.Hit> hits = new ArrayList<>();
    if (!prepared.tokens().isEmpty()) {
      TextSearcher.Bm25 bm25 = prepared.corpus().bm25();
      boolean and = operator == FullTextQuery.Operator.AND;
      for (InvertedIndexReader r : prepared.readers()) {
        for (InvertedIndexReader.Partition p : r.partitions()) {
          hits.addAll(
              TextSearcher.score(
                  dataset, r, p, prepared.tokens(), bm25, and, Integer.MAX_VALUE, allowed));
        }
      }
    }
    return boosted(hits, boost);
  }

  /** A leaf's rows and scores from its hits (over every partition), times its boost. */
  public static Map<Long, Float> boosted(List<TextSearcher.Hit> hits, float boost) {
    Map<Long, Float> out = new HashMap<>(hits.size() * 2);
    for (TextSearcher.Hit h : hits) {
      out.put(h.rowId(), boost == 1.0f ? h.score() : h.score() * boost);
    }
    return out;
  }
}
