package dev.lancelot.engine.index.scalar;

import dev.lancelot.engine.index.IndexCatalog;
import dev.lancelot.engine.index.IndexSegment;
import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.internal.expr.eval.ColumnKind;
import dev.lancelot.engine.internal.index.scalar.btree.Condition;
import dev.lancelot.engine.internal.index.scalar.query.IndexExpr;
import dev.lancelot.engine.internal.index.scalar.zone.BloomFilterSegmentReader;
import dev.lancelot.engine.internal.index.scalar.zone.NGramSegmentReader;
import dev.lancelot.engine.internal.index.scalar.zone.ZoneSegmentReader;
import dev.lancelot.engine.schema.LanceField;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;

/**
 * The narrowing indexes (zone maps, bloom filters, n-grams) a superset plan uses for columns
 * without a BTree, bitmap or label-list index (decision D59): which one per column, and which
 * leaves it answers ({@code contains()} leaves only n-gram indexes). Their answers only narrow
 * (every row of a zone that may match), so a plan using one is never exact.
 */
final class ZoneIndexes {
  private ZoneIndexes() {}

  /** The outcome: the expression with unanswerable leaves dropped, the index per slot, why. */
  record Choice(IndexExpr expr, Map<Integer, String> chosen, List<String> reasons) {}

  /**
   * Zone-map, bloom-filter and n-gram indexes on {@code field} this engine reads and that cover
   * some fragment of the version, the one covering most fragments first (then by name).
   */
  static List<String> on(IndexCatalog catalog, LanceField field) {
    ColumnKind kind = ColumnKind.of(field.arrowType());
    return catalog.indexesOn(field.id()).stream()
        .filter(
            name -> {
              List<IndexSegment> segments = catalog.segments(name);
              IndexType type = segments.isEmpty() ? null : segments.get(0).type();
              boolean readable =
                  type == IndexType.NGRAM
                      ? kind.isString()
                      : (type == IndexType.ZONEMAP || type == IndexType.BLOOM_FILTER)
                          && ZoneSegmentReader.supports(type, kind);
              // one that covers none of the version's fragments (a zone index whose fragments a
              // compaction rewrote, D77) answers nothing here
              return readable
                  && !catalog.indexedFragments(name).isEmpty()
                  && segments.stream()
                      .allMatch(s -> s.type() == type && s.fieldIds().equals(List.of(field.id())));
            })
        .sorted(
            Comparator.comparingInt(
                    (String name) -> -catalog.indexedFragments(name).getCardinality())
                .thenComparing(Comparator.naturalOrder()))
        .toList();
  }

  /**
   * Chooses per slot with narrowing indexes: an n-gram index when {@code contains()} is all the
   * filter asks of the column (or no zone index exists), else a bloom filter when it narrows every
   * condition on the column (equality, {@code IN}, {@code IS NULL}), else a zone map, else a bloom
   * filter for the conditions it narrows (the others become "every row"). Slots with any other
   * index (exact, zone map, bloom filter) lose their substring leaves ({@code contains()}, the
   * literal runs of a {@code LIKE}), which those would answer with every row.
   */
  static Choice choose(
      IndexExpr expr,
      Map<Integer, List<String>> zoneIndexes,
      IndexCatalog catalog,
      IntFunction<String> columnName) {
    Map<Integer, List<Condition>> conditions = new LinkedHashMap<>();
    for (IndexExpr.Leaf leaf : expr.leaves()) {
      if (!zoneIndexes.getOrDefault(leaf.slot(), List.of()).isEmpty()) {
        conditions.computeIfAbsent(leaf.slot(), s -> new ArrayList<>()).add(leaf.condition());
      }
    }
    Map<Integer, String> chosen = new LinkedHashMap<>();
    Map<Integer, IndexType> kinds = new LinkedHashMap<>();
    List<String> reasons = new ArrayList<>();
    for (var e : conditions.entrySet()) {
      List<String> names = zoneIndexes.get(e.getKey());
      String ngram = first(names, catalog, IndexType.NGRAM);
      String bloomIndex = first(names, catalog, IndexType.BLOOM_FILTER);
      String zoneMap = first(names, catalog, IndexType.ZONEMAP);
      List<Condition> values =
          e.getValue().stream().filter(c -> !(c instanceof Condition.Substring)).toList();
      boolean allNarrow = values.stream().allMatch(BloomFilterSegmentReader::narrows);
      IndexType kind;
      String name;
      if (ngram != null && (values.isEmpty() || (bloomIndex == null && zoneMap == null))) {
        kind = IndexType.NGRAM;
        name = ngram;
      } else if (bloomIndex != null && (allNarrow || zoneMap == null)) {
        kind = IndexType.BLOOM_FILTER;
        name = bloomIndex;
      } else {
        kind = IndexType.ZONEMAP;
        name = zoneMap;
      }
      chosen.put(e.getKey(), name);
      kinds.put(e.getKey(), kind);
      String label =
          switch (kind) {
            case NGRAM -> "n-gram";
            case BLOOM_FILTER -> "bloom-filter";
            default -> "zone-map";
          };
      reasons.add(
          "column "
              + columnName.apply(e.getKey())
              + " has only a "
              + label
              + " index ("
              + name
              + "), which narrows to the "
              + (kind == IndexType.NGRAM ? "rows holding every trigram" : "zones that may match"));
      if (kind == IndexType.BLOOM_FILTER && !allNarrow) {
        reasons.add(
            "the bloom-filter index "
                + name
                + " does not answer conditions on "
                + columnName.apply(e.getKey())
                + " other than equality, IN and IS NULL");
      }
    }
    IndexExpr out =
        map(
            expr,
            leaf -> {
              IndexType kind = kinds.get(leaf.slot());
              Condition c =
                  kind == IndexType.NGRAM
                      ? NGramSegmentReader.answerable(leaf.condition())
                      : withoutSubstrings(leaf.condition());
              if (c == null
                  || (kind == IndexType.BLOOM_FILTER && !BloomFilterSegmentReader.narrows(c))) {
                return IndexExpr.all();
              }
              return c == leaf.condition() ? leaf : new IndexExpr.Leaf(leaf.slot(), c);
            });
    chosen.keySet().removeIf(slot -> out.leaves().stream().noneMatch(l -> l.slot() == slot));
    return new Choice(out, chosen, reasons);
  }

  /**
   * {@code c} without its {@code contains()} parts, which only n-gram indexes answer: dropped from
   * an AND (a larger answer), and an OR holding one is unanswered (null), as is one alone.
   */
  static Condition withoutSubstrings(Condition c) {
    return Condition.pruned(c, leaf -> !(leaf instanceof Condition.Substring));
  }

  private static String first(List<String> names, IndexCatalog catalog, IndexType type) {
    for (String n : names) {
      if (catalog.segments(n).get(0).type() == type) {
        return n;
      }
    }
    return null;
  }

  private static IndexExpr map(
      IndexExpr e, java.util.function.Function<IndexExpr.Leaf, IndexExpr> f) {
    if (e instanceof IndexExpr.Leaf l) {
      return f.apply(l);
    } else if (e instanceof IndexExpr.And a) {
      return IndexExpr.and(a.terms().stream().map(t -> map(t, f)).toList());
    } else if (e instanceof IndexExpr.Or o) {
      return IndexExpr.or(o.terms().stream().map(t -> map(t, f)).toList());
    }
    return e;
  }
}
