package dev.lancelot.engine.index.scalar;

import dev.lancelot.engine.index.IndexCatalog;
import dev.lancelot.engine.index.IndexSegment;
import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.internal.expr.eval.ColumnKind;
import dev.lancelot.engine.internal.index.scalar.btree.Condition;
import dev.lancelot.engine.internal.index.scalar.query.IndexExpr;
import dev.lancelot.engine.internal.index.scalar.zone.BloomFilterSegmentReader;
import dev.lancelot.engine.internal.index.scalar.zone.ZoneSegmentReader;
import dev.lancelot.engine.schema.LanceField;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;

/**
 * The zone indexes (zone maps, bloom filters) a superset plan uses for columns without a BTree or
 * bitmap index (decision D59): which one per column, and which leaves it answers. Their answers
 * only narrow (every row of a zone that may match), so a plan using one is never exact.
 */
final class ZoneIndexes {
  private ZoneIndexes() {}

  /** The outcome: the expression with unanswerable leaves dropped, the index per slot, why. */
  record Choice(IndexExpr expr, Map<Integer, String> chosen, List<String> reasons) {}

  /**
   * Zone-map and bloom-filter indexes on {@code field} this engine reads, the one covering most
   * fragments first (then by name).
   */
  static List<String> on(IndexCatalog catalog, LanceField field) {
    ColumnKind kind = ColumnKind.of(field.arrowType());
    return catalog.indexesOn(field.id()).stream()
        .filter(
            name -> {
              List<IndexSegment> segments = catalog.segments(name);
              IndexType type = segments.isEmpty() ? null : segments.get(0).type();
              return (type == IndexType.ZONEMAP || type == IndexType.BLOOM_FILTER)
                  && ZoneSegmentReader.supports(type, kind)
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
   * Chooses per slot with zone indexes: a bloom filter when it narrows every condition on the
   * column (equality, {@code IN}, {@code IS NULL}), else a zone map, else a bloom filter for the
   * conditions it narrows (the others become "every row").
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
    Map<Integer, Boolean> bloom = new LinkedHashMap<>();
    List<String> reasons = new ArrayList<>();
    for (var e : conditions.entrySet()) {
      List<String> names = zoneIndexes.get(e.getKey());
      String bloomIndex = first(names, catalog, IndexType.BLOOM_FILTER);
      String zoneMap = first(names, catalog, IndexType.ZONEMAP);
      boolean allNarrow = e.getValue().stream().allMatch(BloomFilterSegmentReader::narrows);
      boolean useBloom = bloomIndex != null && (allNarrow || zoneMap == null);
      String name = useBloom ? bloomIndex : zoneMap;
      chosen.put(e.getKey(), name);
      bloom.put(e.getKey(), useBloom);
      reasons.add(
          "column "
              + columnName.apply(e.getKey())
              + " has only a "
              + (useBloom ? "bloom-filter" : "zone-map")
              + " index ("
              + name
              + "), which narrows to the zones that may match");
      if (useBloom && !allNarrow) {
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
            leaf ->
                bloom.getOrDefault(leaf.slot(), false)
                        && !BloomFilterSegmentReader.narrows(leaf.condition())
                    ? IndexExpr.all()
                    : leaf);
    chosen.keySet().removeIf(slot -> out.leaves().stream().noneMatch(l -> l.slot() == slot));
    return new Choice(out, chosen, reasons);
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
