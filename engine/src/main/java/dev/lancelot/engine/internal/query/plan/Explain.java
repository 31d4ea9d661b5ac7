package dev.lancelot.engine.internal.query.plan;

import dev.lancelot.engine.query.UnitStats;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Renders a {@link SearchPlan} as a tree (SPEC Q12), one node per line, children indented by two
 * spaces, parameters as {@code key=value}. Node names say what happens: {@code Take}, {@code
 * Filter} (postfilter), {@code TopK}, {@code Union}, {@code Refine}, {@code ANNSubIndex}, {@code
 * ANNIvfPartition}, {@code ScalarIndexQuery}, {@code PrefilterScan}, {@code FlatKnn}, {@code
 * EmptyResult}. With unit statistics ("analyze") each unit's line gains what it did.
 */
public final class Explain {
  private Explain() {}

  public static String render(SearchPlan plan, Map<String, UnitStats> stats) {
    StringBuilder out = new StringBuilder();
    MergeSpec m = plan.merge();
    List<String> resultColumns = resultColumns(plan);
    if (plan.emptyResult()) {
      line(
          out,
          0,
          "EmptyResult",
          "columns=" + resultColumns + ", reason=" + String.join("; ", plan.notes()));
      return out.toString();
    }
    int depth = 0;
    line(
        out,
        depth++,
        "Take",
        "columns="
            + m.columns()
            + (m.withRowId() ? ", with_row_id=true" : "")
            + ", rows=final results only");
    if (m.postfilterSql() != null) {
      line(
          out,
          depth++,
          "Filter",
          "filter="
              + m.postfilterSql()
              + ", stage=postfilter (applied to the top "
              + m.k()
              + ", never backfilled)");
    }
    String range =
        (m.lowerBound() != null ? ", lower_bound=" + m.lowerBound() : "")
            + (m.upperBound() != null ? ", upper_bound=" + m.upperBound() : "");
    line(
        out,
        depth++,
        "TopK",
        "k="
            + m.k()
            + ", metric="
            + m.metric().lanceName()
            + ", order="
            + (m.exactRerank() ? "exact" : "approximate")
            + " _distance then row address"
            + range);
    List<AnnUnit> ann = plan.annUnits();
    List<FlatUnit> flat = plan.flatUnits();
    boolean union = (ann.isEmpty() ? 0 : 1) + flat.size() > 1;
    if (union) {
      line(out, depth++, "Union", "inputs=" + ((ann.isEmpty() ? 0 : 1) + flat.size()));
    }
    if (!ann.isEmpty()) {
      int annDepth = depth;
      if (m.exactRerank()) {
        line(
            out,
            annDepth++,
            "Refine",
            "candidate_k="
                + m.candidateK()
                + ", metric="
                + m.metric().lanceName()
                + ", exact distances from original vectors");
      }
      for (AnnUnit u : ann) {
        renderAnn(out, annDepth, u, m.k(), stats);
      }
    }
    for (FlatUnit u : flat) {
      String params =
          "unit="
              + u.id()
              + ", fragments="
              + u.fragments()
              + ", k="
              + u.limit()
              + ", metric="
              + u.metric().lanceName()
              + (u.filterSql() != null ? ", filter=" + u.filterSql() + " (prefilter)" : "")
              + ", reason="
              + u.reason();
      line(out, depth, "FlatKnn", params + analyzed(stats, u.id()));
    }
    for (String note : plan.notes()) {
      out.append("-- ").append(note).append('\n');
    }
    return out.toString();
  }

  private static void renderAnn(
      StringBuilder out, int depth, AnnUnit u, int k, Map<String, UnitStats> stats) {
    String nprobes = u.minNprobes() + ".." + (u.maxNprobes() == null ? "all" : u.maxNprobes());
    String params =
        "unit="
            + u.id()
            + ", index="
            + u.indexName()
            + ", segment="
            + u.segment()
            + ", type="
            + u.type()
            + ", metric="
            + u.metric().lanceName()
            + ", fragments="
            + u.fragments()
            + ", k="
            + u.candidateK()
            + ", nprobes="
            + nprobes
            + (u.type().isHnsw() ? ", ef=" + u.ef() : "");
    line(out, depth, "ANNSubIndex", params + analyzed(stats, u.id()));
    line(
        out,
        depth + 1,
        "ANNIvfPartition",
        "minimum_nprobes="
            + u.minNprobes()
            + ", maximum_nprobes="
            + (u.maxNprobes() == null ? "all" : u.maxNprobes())
            + ", widen_while=fewer than "
            + k
            + " results");
    PrefilterSpec p = u.prefilter();
    if (p != null) {
      if (p.source() == PrefilterSpec.Source.SCALAR_INDEX) {
        line(
            out,
            depth + 1,
            "ScalarIndexQuery",
            "filter=" + p.filterSql() + ", index=" + p.scalarIndex() + ", stage=prefilter");
      } else {
        line(
            out,
            depth + 1,
            "PrefilterScan",
            "filter="
                + p.filterSql()
                + ", fragments="
                + u.fragments()
                + ", reads=filter columns only, stage=prefilter"
                + (p.reason() != null ? ", reason=" + p.reason() : ""));
      }
    }
  }

  private static String analyzed(Map<String, UnitStats> stats, String unitId) {
    if (stats == null || !stats.containsKey(unitId)) {
      return "";
    }
    return " | " + stats.get(unitId).describe();
  }

  private static void line(StringBuilder out, int depth, String node, String params) {
    out.append("  ".repeat(depth)).append(node).append(": ").append(params).append('\n');
  }

  static List<String> resultColumns(SearchPlan plan) {
    List<String> cols = new java.util.ArrayList<>();
    if (plan.query().isBatch()) {
      cols.add("query_index");
    }
    cols.addAll(plan.merge().columns());
    cols.add("_distance");
    if (plan.merge().withRowId()) {
      cols.add("_rowid");
    }
    return cols.stream().collect(Collectors.toList());
  }
}
