package dev.lancelot.engine.query;

import dev.lancelot.engine.ClosestName;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/** Reads a Lance-style {@code nearest} parameter map into a {@link VectorQuery}. */
final class MapQueryParser {
  private static final Set<String> KEYS =
      Set.of(
          "column",
          "q",
          "k",
          "metric",
          "nprobes",
          "minimum_nprobes",
          "maximum_nprobes",
          "ef",
          "refine_factor",
          "use_index",
          "filter",
          "prefilter",
          "fast_search",
          "with_row_id",
          "columns",
          "distance_range");

  private MapQueryParser() {}

  /** {@code withVectors}: {@code q} is required; otherwise it is refused (parameters only). */
  static VectorQuery parse(Map<String, ?> p, boolean withVectors) {
    for (String key : p.keySet()) {
      if (!KEYS.contains(key)) {
        throw new InvalidQueryException(
            "Cannot search: unknown parameter \""
                + key
                + "\". Did you mean \""
                + ClosestName.closest(key, new TreeSet<>(KEYS))
                + "\"? Known parameters: "
                + new TreeSet<>(KEYS)
                + ".");
      }
    }
    Object column = p.get("column");
    if (!(column instanceof String c)) {
      throw new InvalidQueryException(
          "Cannot search: parameter \"column\" must name the vector column.");
    }
    VectorQuery.Builder b = VectorQuery.builder(c);
    if (withVectors) {
      b.vectors(vectors(p.get("q")));
    } else if (p.get("q") != null) {
      throw new InvalidQueryException(
          "Cannot search column \""
              + c
              + "\" with query vectors from a DataFrame "
              + "and a query vector (q) too: leave q unset.");
    }
    if (p.get("k") != null) {
      b.k(integer("k", p.get("k")));
    }
    if (p.get("metric") != null) {
      b.metric(p.get("metric").toString());
    }
    if (p.get("nprobes") != null) {
      b.nprobes(integer("nprobes", p.get("nprobes")));
    }
    if (p.get("minimum_nprobes") != null) {
      b.minimumNprobes(integer("minimum_nprobes", p.get("minimum_nprobes")));
    }
    if (p.get("maximum_nprobes") != null) {
      b.maximumNprobes(integer("maximum_nprobes", p.get("maximum_nprobes")));
    }
    if (p.get("ef") != null) {
      b.ef(integer("ef", p.get("ef")));
    }
    if (p.get("refine_factor") != null) {
      b.refineFactor(integer("refine_factor", p.get("refine_factor")));
    }
    if (p.get("use_index") != null) {
      b.useIndex(bool("use_index", p.get("use_index")));
    }
    if (p.get("filter") != null) {
      b.filter(p.get("filter").toString());
    }
    if (p.get("prefilter") != null) {
      b.prefilter(bool("prefilter", p.get("prefilter")));
    }
    if (p.get("fast_search") != null) {
      b.fastSearch(bool("fast_search", p.get("fast_search")));
    }
    if (p.get("with_row_id") != null) {
      b.withRowId(bool("with_row_id", p.get("with_row_id")));
    }
    if (p.get("columns") instanceof List<?> cols) {
      List<String> names = new ArrayList<>();
      cols.forEach(x -> names.add(String.valueOf(x)));
      b.columns(names);
    }
    if (p.get("distance_range") instanceof List<?> range && range.size() == 2) {
      b.distanceRange(
          range.get(0) == null ? null : number("distance_range", range.get(0)).floatValue(),
          range.get(1) == null ? null : number("distance_range", range.get(1)).floatValue());
    }
    return withVectors ? b.build() : b.buildParameters();
  }

  private static float[][] vectors(Object q) {
    if (q instanceof float[] f) {
      return new float[][] {f};
    }
    if (q instanceof double[] d) {
      return new float[][] {toFloats(d)};
    }
    if (q instanceof float[][] f) {
      return f;
    }
    if (q instanceof List<?> list && !list.isEmpty()) {
      if (list.get(0) instanceof List<?>
          || list.get(0) instanceof float[]
          || list.get(0) instanceof double[]) {
        float[][] out = new float[list.size()][];
        for (int i = 0; i < out.length; i++) {
          out[i] = vectors(list.get(i))[0];
        }
        return out;
      }
      float[] v = new float[list.size()];
      for (int i = 0; i < v.length; i++) {
        v[i] = number("q", list.get(i)).floatValue();
      }
      return new float[][] {v};
    }
    throw new InvalidQueryException(
        "Cannot search: parameter \"q\" must be a numeric vector or a list of vectors, "
            + "got "
            + (q == null ? "nothing" : q.getClass().getSimpleName())
            + ".");
  }

  private static float[] toFloats(double[] d) {
    float[] f = new float[d.length];
    for (int i = 0; i < d.length; i++) {
      f[i] = (float) d[i];
    }
    return f;
  }

  private static Number number(String key, Object v) {
    if (v instanceof Number n) {
      return n;
    }
    throw new InvalidQueryException(
        "Cannot search: parameter \"" + key + "\" must be numeric, got \"" + v + "\".");
  }

  private static int integer(String key, Object v) {
    if (v instanceof Integer || v instanceof Long || v instanceof Short) {
      return Math.toIntExact(((Number) v).longValue());
    }
    if (v instanceof String s) {
      try {
        return Integer.parseInt(s.trim());
      } catch (NumberFormatException e) {
        // reported below
      }
    }
    throw new InvalidQueryException(
        "Cannot search: parameter \"" + key + "\" must be a whole number, got \"" + v + "\".");
  }

  private static boolean bool(String key, Object v) {
    if (v instanceof Boolean b) {
      return b;
    }
    if (v instanceof String s && (s.equalsIgnoreCase("true") || s.equalsIgnoreCase("false"))) {
      return Boolean.parseBoolean(s);
    }
    throw new InvalidQueryException(
        "Cannot search: parameter \"" + key + "\" must be true or false, got \"" + v + "\".");
  }
}
