package dev.lancelot.engine.internal.query.exec;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.expr.BoundPredicate;
import dev.lancelot.engine.expr.RowSelection;
import dev.lancelot.engine.internal.DatasetInternals;
import dev.lancelot.engine.internal.query.plan.AnnUnit;
import dev.lancelot.engine.internal.query.plan.MergeSpec;
import dev.lancelot.engine.internal.query.plan.SearchPlan;
import dev.lancelot.engine.internal.query.plan.SearchUnit;
import dev.lancelot.engine.internal.scan.FragmentScan;
import dev.lancelot.engine.internal.table.RowIds;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;

/**
 * The merge of a search plan (SPEC Q6, Q8, Q9, Q13, Q14), run where the unit results meet (the
 * local executor, or the Spark driver): global top-k, postfilter, then the result columns taken for
 * the surviving rows only.
 */
public final class Merger {
  public static final Field DISTANCE =
      new Field(
          "_distance",
          FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)),
          null);
  public static final Field QUERY_INDEX =
      new Field("query_index", FieldType.notNullable(new ArrowType.Int(32, true)), null);

  private Merger() {}

  /** The final rows of each query: row addresses and distances, before columns are taken. */
  public record Ranked(long[] rows, float[] distances) {}

  public static List<Ranked> rank(SearchPlan plan, List<UnitResult> results) {
    Map<String, SearchUnit> units = new HashMap<>();
    plan.units().forEach(u -> units.put(u.id(), u));
    List<UnitCandidates> byUnit = new ArrayList<>(results.size());
    for (UnitResult r : results) {
      byUnit.add(new UnitCandidates(units.get(r.unitId()), r.perQuery()));
    }
    return rank(plan.merge(), byUnit, plan.query().vectors().length);
  }

  /** One unit's candidates, one entry per query vector. */
  public record UnitCandidates(SearchUnit unit, List<Candidates> perQuery) {}

  /**
   * Ranks {@code queries} query vectors whose candidates {@code results} hold (each has one entry
   * per query, in the same order), by the rules of {@code m}. For callers that merge a block of
   * queries apart from the plan's own vectors (queries read from a DataFrame).
   */
  public static List<Ranked> rank(MergeSpec m, List<UnitCandidates> results, int queries) {
    List<Ranked> out = new ArrayList<>(queries);
    for (int qi = 0; qi < queries; qi++) {
      List<Entry> ann = new ArrayList<>();
      List<Entry> flat = new ArrayList<>();
      for (UnitCandidates r : results) {
        Candidates c = r.perQuery().get(qi);
        boolean isAnn = r.unit() instanceof AnnUnit;
        for (int i = 0; i < c.size(); i++) {
          Entry e = new Entry(c.rowAddresses()[i], c.approx()[i], c.exact()[i]);
          (isAnn ? ann : flat).add(e);
        }
      }
      ann.sort((a, b) -> compare(a.approx, a.row, b.approx, b.row));
      List<Entry> pool = new ArrayList<>(ann.subList(0, Math.min(ann.size(), m.candidateK())));
      pool.addAll(flat);
      boolean exact = m.exactRerank() || flat.size() > 0;
      if (exact) {
        pool.sort((a, b) -> compare(a.exact, a.row, b.exact, b.row));
      } else {
        pool.sort((a, b) -> compare(a.approx, a.row, b.approx, b.row));
      }
      long[] rows = new long[Math.min(m.k(), pool.size())];
      float[] dist = new float[rows.length];
      int n = 0;
      java.util.Set<Long> seen = new java.util.HashSet<>();
      for (Entry e : pool) {
        if (n == rows.length) {
          break;
        }
        if (!seen.add(e.row)) {
          continue; // an indexed stable row id whose row moved to an unindexed fragment
        }
        float d = exact ? e.exact : e.approx;
        if ((m.lowerBound() != null && d < m.lowerBound())
            || (m.upperBound() != null && d >= m.upperBound())) {
          continue;
        }
        rows[n] = e.row;
        dist[n] = d;
        n++;
      }
      out.add(new Ranked(Arrays.copyOf(rows, n), Arrays.copyOf(dist, n)));
    }
    return out;
  }

  /** Distance ascending (NaN last), then row address ascending: deterministic ties (SPEC Q14). */
  private static int compare(float d1, long r1, float d2, long r2) {
    int c =
        Float.compare(
            Float.isNaN(d1) ? Float.POSITIVE_INFINITY : d1,
            Float.isNaN(d2) ? Float.POSITIVE_INFINITY : d2);
    return c != 0 ? c : Long.compare(r1, r2);
  }

  private record Entry(long row, float approx, float exact) {}

  /** Applies the postfilter and takes the result columns; the root belongs to the caller. */
  public static VectorSchemaRoot materialize(
      Dataset dataset, SearchPlan plan, List<Ranked> ranked) {
    return materialize(dataset, plan.merge(), plan.query().isBatch(), ranked);
  }

  /**
   * The result rows of {@code ranked}: the postfilter applied, then the result columns taken for
   * the surviving rows only, with {@code _distance}, a leading {@code query_index} (position in
   * {@code ranked}) when {@code batch}, and {@code _rowid} when asked.
   */
  public static VectorSchemaRoot materialize(
      Dataset dataset, MergeSpec m, boolean batch, List<Ranked> ranked) {
    List<Ranked> kept = ranked;
    if (m.postfilter() != null) {
      kept = postfilter(dataset, m.postfilter(), ranked);
    }
    int total = 0;
    for (Ranked r : kept) {
      total += r.rows().length;
    }
    long[] rows = new long[total];
    float[] dist = new float[total];
    int[] queryIndex = new int[total];
    int at = 0;
    for (int qi = 0; qi < kept.size(); qi++) {
      Ranked r = kept.get(qi);
      System.arraycopy(r.rows(), 0, rows, at, r.rows().length);
      System.arraycopy(r.distances(), 0, dist, at, r.rows().length);
      Arrays.fill(queryIndex, at, at + r.rows().length, qi);
      at += r.rows().length;
    }
    BufferAllocator allocator = DatasetInternals.context(dataset).allocator();
    List<FieldVector> vectors = new ArrayList<>();
    List<Field> fields = new ArrayList<>();
    if (batch) {
      IntVector qv = (IntVector) QUERY_INDEX.createVector(allocator);
      qv.allocateNew(total);
      for (int i = 0; i < total; i++) {
        qv.set(i, queryIndex[i]);
      }
      qv.setValueCount(total);
      vectors.add(qv);
      fields.add(QUERY_INDEX);
    }
    try (VectorSchemaRoot taken = dataset.take(rows, m.columns())) {
      if (taken.getRowCount() != total) {
        throw new IllegalStateException(
            "Took " + taken.getRowCount() + " rows for " + total + " results");
      }
      for (FieldVector v : taken.getFieldVectors()) {
        var pair = v.getTransferPair(allocator);
        pair.transfer();
        vectors.add((FieldVector) pair.getTo());
        fields.add(v.getField());
      }
    }
    Float4Vector d = (Float4Vector) DISTANCE.createVector(allocator);
    d.allocateNew(total);
    for (int i = 0; i < total; i++) {
      d.set(i, dist[i]);
    }
    d.setValueCount(total);
    vectors.add(d);
    fields.add(DISTANCE);
    if (m.withRowId()) {
      UInt8Vector ids = (UInt8Vector) FragmentScan.ROW_ID_FIELD.createVector(allocator);
      ids.allocateNew(total);
      RowIds rowIds = DatasetInternals.rowIds(dataset);
      for (int i = 0; i < total; i++) {
        ids.set(i, rowIds.idOf(rows[i]));
      }
      ids.setValueCount(total);
      vectors.add(ids);
      fields.add(FragmentScan.ROW_ID_FIELD);
    }
    return new VectorSchemaRoot(fields, vectors, total);
  }

  /**
   * SPEC Q8: removes the rows failing the filter from each query's top k; nothing is backfilled.
   */
  private static List<Ranked> postfilter(
      Dataset dataset, BoundPredicate filter, List<Ranked> ranked) {
    List<Ranked> out = new ArrayList<>();
    for (Ranked r : ranked) {
      if (r.rows().length == 0) {
        out.add(r);
        continue;
      }
      try (VectorSchemaRoot cols = dataset.take(r.rows(), filter.referencedColumns())) {
        RowSelection keep = filter.evaluate(cols);
        long[] rows = new long[keep.cardinality()];
        float[] dist = new float[rows.length];
        int n = 0;
        for (int i = 0; i < r.rows().length; i++) {
          if (keep.isSelected(i)) {
            rows[n] = r.rows()[i];
            dist[n] = r.distances()[i];
            n++;
          }
        }
        out.add(new Ranked(rows, dist));
      }
    }
    return out;
  }
}
