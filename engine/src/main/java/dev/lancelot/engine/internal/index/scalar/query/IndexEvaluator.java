package dev.lancelot.engine.internal.index.scalar.query;

import dev.lancelot.engine.index.IndexSegment;
import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.internal.index.IndexInternals;
import dev.lancelot.engine.internal.index.scalar.btree.BTreeSegmentReader;
import dev.lancelot.engine.internal.index.scalar.btree.BitmapSegmentReader;
import dev.lancelot.engine.internal.index.scalar.btree.Condition;
import dev.lancelot.engine.internal.index.scalar.btree.FragmentRows;
import dev.lancelot.engine.internal.index.scalar.zone.NGramSegmentReader;
import dev.lancelot.engine.internal.index.scalar.zone.ZoneSegmentReader;
import dev.lancelot.engine.internal.table.BasePaths;
import dev.lancelot.engine.internal.table.DatasetContext;
import dev.lancelot.engine.schema.LanceField;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Evaluates an {@link IndexExpr} with BTree, bitmap, zone-map or bloom-filter segments: every
 * segment of an index is searched once for all the conditions on its column (a BTree reads the
 * pages that may match, a bitmap index tests its keys and reads the matching keys' bitmaps, a zone
 * index keeps the zones that may match), then the leaf answers are intersected and united as the
 * expression says. Zone indexes answer with supersets, so an expression with such a leaf does.
 */
public final class IndexEvaluator {
  private IndexEvaluator() {}

  /** The index answering the conditions on one column: its segments (deltas) and the column. */
  public record Binding(String indexName, List<IndexSegment> segments, LanceField column) {
    public Binding {
      segments = List.copyOf(segments);
    }
  }

  /** The rows selected and what reading them cost. */
  public record Outcome(FragmentRows rows, int pagesRead, int pagesTotal, int segmentsRead) {}

  /**
   * Evaluates {@code expr} with the index segments of the dataset whose context is {@code ctx} (its
   * storage, and the cache of its session for the segments' readers) and whose version's files live
   * at {@code bases}.
   */
  public static Outcome evaluate(
      IndexExpr expr, Map<Integer, Binding> bySlot, DatasetContext ctx, BasePaths bases) {
    if (expr instanceof IndexExpr.None) {
      return new Outcome(new FragmentRows(), 0, 0, 0);
    }
    if (expr instanceof IndexExpr.All) {
      expr = new IndexExpr.Leaf(bySlot.keySet().iterator().next(), new Condition.AllRows());
    }
    Map<Integer, List<Condition>> conditions = new LinkedHashMap<>();
    for (IndexExpr.Leaf leaf : expr.leaves()) {
      List<Condition> list = conditions.computeIfAbsent(leaf.slot(), s -> new ArrayList<>());
      if (!list.contains(leaf.condition())) {
        list.add(leaf.condition());
      }
    }
    Map<Integer, List<FragmentRows>> answers = new LinkedHashMap<>();
    int pagesRead = 0;
    int pagesTotal = 0;
    int segmentsRead = 0;
    for (Map.Entry<Integer, List<Condition>> e : conditions.entrySet()) {
      Binding binding = bySlot.get(e.getKey());
      List<FragmentRows> rows = new ArrayList<>();
      e.getValue().forEach(c -> rows.add(new FragmentRows()));
      for (IndexSegment segment : binding.segments()) {
        String directory =
            bases.indexDir(
                segment.uuid().toString(),
                IndexInternals.proto(segment).hasBaseId()
                    ? IndexInternals.proto(segment).getBaseId()
                    : null);
        BTreeSegmentReader.Answer answer;
        if (segment.type() == IndexType.ZONEMAP || segment.type() == IndexType.BLOOM_FILTER) {
          ZoneSegmentReader reader =
              ZoneSegmentReader.cached(ctx.cache(), ctx.io(), directory, segment, binding.column());
          answer = reader.search(e.getValue());
          pagesTotal += reader.zoneCount();
        } else if (segment.type() == IndexType.NGRAM) {
          NGramSegmentReader reader =
              NGramSegmentReader.cached(ctx.cache(), ctx.io(), directory, segment);
          answer = reader.search(e.getValue());
          pagesTotal += reader.tokenCount();
        } else if (segment.type() == IndexType.LABEL_LIST) {
          BitmapSegmentReader reader =
              BitmapSegmentReader.cached(
                  ctx.cache(), ctx.io(), directory, segment, binding.column().children().get(0));
          answer = reader.searchLabels(e.getValue());
          pagesTotal += reader.keyCount();
        } else if (segment.type() == IndexType.BITMAP) {
          BitmapSegmentReader reader =
              BitmapSegmentReader.cached(
                  ctx.cache(), ctx.io(), directory, segment, binding.column());
          answer = reader.search(e.getValue());
          pagesTotal += reader.keyCount();
        } else {
          BTreeSegmentReader reader =
              BTreeSegmentReader.cached(
                  ctx.cache(), ctx.io(), directory, segment, binding.column());
          answer = reader.search(e.getValue());
          pagesTotal += reader.lookup().pages().size();
        }
        for (int i = 0; i < rows.size(); i++) {
          rows.set(i, FragmentRows.or(rows.get(i), answer.rows().get(i)));
        }
        pagesRead += answer.pagesRead();
        segmentsRead++;
      }
      answers.put(e.getKey(), rows);
    }
    FragmentRows rows = combine(expr, conditions, answers);
    return new Outcome(rows, pagesRead, pagesTotal, segmentsRead);
  }

  private static FragmentRows combine(
      IndexExpr e,
      Map<Integer, List<Condition>> conditions,
      Map<Integer, List<FragmentRows>> answers) {
    if (e instanceof IndexExpr.Leaf leaf) {
      int at = conditions.get(leaf.slot()).indexOf(leaf.condition());
      return answers.get(leaf.slot()).get(at);
    }
    List<IndexExpr> terms = e instanceof IndexExpr.And a ? a.terms() : ((IndexExpr.Or) e).terms();
    FragmentRows acc = combine(terms.get(0), conditions, answers);
    for (int i = 1; i < terms.size(); i++) {
      FragmentRows next = combine(terms.get(i), conditions, answers);
      acc = e instanceof IndexExpr.And ? FragmentRows.and(acc, next) : FragmentRows.or(acc, next);
    }
    return acc;
  }
}
