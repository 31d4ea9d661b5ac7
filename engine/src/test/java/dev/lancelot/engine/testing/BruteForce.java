package dev.lancelot.engine.testing;

import dev.lancelot.engine.CloseableIterator;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.internal.scan.ScanSpec;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.IntPredicate;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;

/**
 * Exact nearest neighbours computed in plain Java, independently of the engine's planner, kernels
 * and top-k code: the ground truth that recall tests check the engine's own exact search and recall
 * numbers against. Reads {@code id} (or the row ids), {@code tenant_id} and a float32 {@code
 * vector} column of the latest version once; distances in double precision with Lance's definitions
 * (l2 squared, cosine {@code 1 - cos}, dot {@code 1 - a·b}), ties broken by id.
 */
public final class BruteForce {
  private final long[] ids;
  private final int[] tenants;
  private final float[][] vectors;

  private BruteForce(long[] ids, int[] tenants, float[][] vectors) {
    this.ids = ids;
    this.tenants = tenants;
    this.vectors = vectors;
  }

  /** Rows keyed by their {@code id} column. */
  public static BruteForce of(String location) {
    return read(location, false);
  }

  /**
   * Rows keyed by their row id ({@code _rowid}), as search results with {@code with_row_id} are.
   */
  public static BruteForce byRowId(String location) {
    return read(location, true);
  }

  private static BruteForce read(String location, boolean byRowId) {
    List<Long> ids = new ArrayList<>();
    List<Integer> tenants = new ArrayList<>();
    List<float[]> vectors = new ArrayList<>();
    List<String> columns =
        byRowId ? List.of("tenant_id", "vector") : List.of("id", "tenant_id", "vector");
    try (Dataset ds = Dataset.open(location);
        CloseableIterator<VectorSchemaRoot> batches =
            ds.newScan().columns(columns).withRowId(byRowId).batches()) {
      while (batches.hasNext()) {
        VectorSchemaRoot b = batches.next();
        IntVector tenant = (IntVector) b.getVector("tenant_id");
        FixedSizeListVector vec = (FixedSizeListVector) b.getVector("vector");
        Float4Vector values = (Float4Vector) vec.getDataVector();
        int dim = vec.getListSize();
        for (int r = 0; r < b.getRowCount(); r++) {
          ids.add(
              byRowId
                  ? ((UInt8Vector) b.getVector(ScanSpec.ROW_ID)).get(r)
                  : ((BigIntVector) b.getVector("id")).get(r));
          tenants.add(tenant.isNull(r) ? -1 : tenant.get(r));
          float[] v = new float[dim];
          for (int d = 0; d < dim; d++) {
            v[d] = values.get(r * dim + d);
          }
          vectors.add(v);
        }
      }
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    return new BruteForce(
        ids.stream().mapToLong(Long::longValue).toArray(),
        tenants.stream().mapToInt(Integer::intValue).toArray(),
        vectors.toArray(new float[0][]));
  }

  /** The vector of the row with {@code id}. */
  public float[] vectorOf(long id) {
    for (int r = 0; r < ids.length; r++) {
      if (ids[r] == id) {
        return vectors[r].clone();
      }
    }
    throw new IllegalArgumentException("no row with id " + id);
  }

  /** Lance's distance of {@code metric} ("l2", "cosine" or "dot"), in double precision. */
  public static double distance(String metric, float[] a, float[] b) {
    double dot = 0;
    double na = 0;
    double nb = 0;
    double l2 = 0;
    for (int i = 0; i < a.length; i++) {
      dot += (double) a[i] * b[i];
      na += (double) a[i] * a[i];
      nb += (double) b[i] * b[i];
      double d = (double) a[i] - b[i];
      l2 += d * d;
    }
    return switch (metric) {
      case "l2" -> l2;
      case "cosine" -> 1 - dot / Math.sqrt(na * nb);
      case "dot" -> 1 - dot;
      default -> throw new IllegalArgumentException("metric " + metric);
    };
  }

  /**
   * Ids of the exact top {@code k} by {@code metric} among rows whose tenant_id passes {@code
   * tenant}.
   */
  public Set<Long> nearest(float[] q, int k, String metric, IntPredicate tenant) {
    List<Integer> rows = new ArrayList<>();
    double[] dist = new double[ids.length];
    for (int r = 0; r < ids.length; r++) {
      if (tenant.test(tenants[r])) {
        dist[r] = distance(metric, q, vectors[r]);
        rows.add(r);
      }
    }
    rows.sort(Comparator.<Integer>comparingDouble(r -> dist[r]).thenComparingLong(r -> ids[r]));
    Set<Long> out = new HashSet<>();
    for (int i = 0; i < Math.min(k, rows.size()); i++) {
      out.add(ids[rows.get(i)]);
    }
    return out;
  }

  /** Recall@k of {@code got} against {@code truth}, as SPEC E1 defines it. */
  public static double recall(Set<Long> got, Set<Long> truth, int k) {
    if (truth.isEmpty()) {
      return got.isEmpty() ? 1 : 0;
    }
    Set<Long> hit = new HashSet<>(got);
    hit.retainAll(truth);
    return (double) hit.size() / Math.min(k, truth.size());
  }
}
