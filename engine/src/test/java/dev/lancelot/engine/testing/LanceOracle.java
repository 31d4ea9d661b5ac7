package dev.lancelot.engine.testing;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.lance.Dataset;
import org.lance.ReadOptions;
import org.lance.WriteParams;
import org.lance.index.DistanceType;
import org.lance.index.IndexParams;
import org.lance.index.IndexType;
import org.lance.index.scalar.ScalarIndexParams;
import org.lance.index.vector.VectorIndexParams;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.Query;
import org.lance.ipc.ScanOptions;

/** Helpers around lance-core 7.0.0, the test oracle. Never used by main code. */
public final class LanceOracle {
  private LanceOracle() {}

  /**
   * Writes {@code rows} standard rows starting at {@code firstId} with Lance (create or append).
   */
  public static void write(
      BufferAllocator allocator,
      Path dir,
      long firstId,
      int rows,
      int dim,
      long seed,
      WriteParams.WriteMode mode,
      int maxRowsPerFile) {
    try (VectorSchemaRoot batch = StandardData.generate(allocator, firstId, rows, dim, seed)) {
      Dataset.write()
          .allocator(allocator)
          .reader(ArrowStreams.readerOf(allocator, List.of(batch)))
          .uri(dir.toString())
          .mode(mode)
          .maxRowsPerFile(maxRowsPerFile)
          .execute()
          .close();
    }
  }

  public static Dataset open(BufferAllocator allocator, Path dir) {
    return Dataset.open(allocator, dir.toString(), new ReadOptions.Builder().build());
  }

  public static long countRows(BufferAllocator allocator, Path dir) {
    try (Dataset ds = open(allocator, dir)) {
      return ds.countRows();
    }
  }

  /** Builds an IVF_PQ index (l2) with Lance on {@code column}. */
  public static void createIvfPq(
      BufferAllocator allocator, Path dir, String column, int partitions, int subVectors) {
    try (Dataset ds = open(allocator, dir)) {
      IndexParams params =
          IndexParams.builder()
              .setVectorIndexParams(
                  VectorIndexParams.ivfPq(partitions, 8, subVectors, DistanceType.L2, 20))
              .build();
      ds.createIndex(List.of(column), IndexType.IVF_PQ, Optional.of(column + "_idx"), params, true);
    }
  }

  /** Builds an IVF_HNSW_SQ index with Lance on {@code column}. */
  public static void createIvfHnswSq(
      BufferAllocator allocator, Path dir, String column, int partitions, DistanceType metric) {
    try (Dataset ds = open(allocator, dir)) {
      org.lance.index.vector.IvfBuildParams ivf =
          new org.lance.index.vector.IvfBuildParams.Builder().setNumPartitions(partitions).build();
      VectorIndexParams p =
          VectorIndexParams.withIvfHnswSqParams(
              metric,
              ivf,
              new org.lance.index.vector.HnswBuildParams.Builder().build(),
              new org.lance.index.vector.SQBuildParams.Builder().build());
      ds.createIndex(
          List.of(column),
          IndexType.IVF_HNSW_SQ,
          Optional.of(column + "_idx"),
          IndexParams.builder().setVectorIndexParams(p).build(),
          true);
    }
  }

  /** Builds an IVF_PQ index with Lance with a given metric. */
  public static void createIvfPq(
      BufferAllocator allocator,
      Path dir,
      String column,
      int partitions,
      int subVectors,
      DistanceType metric) {
    try (Dataset ds = open(allocator, dir)) {
      IndexParams params =
          IndexParams.builder()
              .setVectorIndexParams(VectorIndexParams.ivfPq(partitions, 8, subVectors, metric, 20))
              .build();
      ds.createIndex(List.of(column), IndexType.IVF_PQ, Optional.of(column + "_idx"), params, true);
    }
  }

  /** Builds a BTree scalar index with Lance on {@code column}. */
  public static void createBTree(BufferAllocator allocator, Path dir, String column) {
    try (Dataset ds = open(allocator, dir)) {
      IndexParams params =
          IndexParams.builder().setScalarIndexParams(ScalarIndexParams.create("btree")).build();
      ds.createIndex(List.of(column), IndexType.BTREE, Optional.of(column + "_idx"), params, true);
    }
  }

  /** One row of a Lance nearest query: id and distance. */
  public record Hit(long id, float distance) {}

  /**
   * Checks that two engines' nearest rows agree as far as a k-nearest answer is defined: the same
   * distances in the same order (to float rounding), and the same ids except where rows tie on
   * distance. Rows sharing a distance may come in either order, and at the cut (the k-th distance)
   * either engine may keep any of the tied rows. Exact ties are common under PQ, where rows with
   * the same codes have the same distance.
   */
  public static void assertSameUpToTies(List<Hit> ours, List<Hit> theirs) {
    org.assertj.core.api.Assertions.assertThat(ours).as("row count").hasSameSizeAs(theirs);
    for (int i = 0; i < ours.size(); i++) {
      float a = ours.get(i).distance();
      float b = theirs.get(i).distance();
      org.assertj.core.api.Assertions.assertThat(Math.abs(a - b))
          .as("distance of rank %d: ours %s, Lance's %s", i, ours, theirs)
          .isLessThanOrEqualTo(1e-5f * Math.max(1f, Math.abs(b)));
    }
    if (ours.isEmpty()) {
      return;
    }
    float cut = theirs.get(theirs.size() - 1).distance();
    float tol = 1e-5f * Math.max(1f, Math.abs(cut));
    // Below the cut, every group of tied rows holds the same ids in both answers.
    java.util.Map<Float, java.util.Set<Long>> mine = new java.util.TreeMap<>();
    java.util.Map<Float, java.util.Set<Long>> lance = new java.util.TreeMap<>();
    for (int i = 0; i < ours.size(); i++) {
      Hit t = theirs.get(i);
      if (t.distance() < cut - tol) {
        lance.computeIfAbsent(t.distance(), d -> new java.util.TreeSet<>()).add(t.id());
        mine.computeIfAbsent(t.distance(), d -> new java.util.TreeSet<>()).add(ours.get(i).id());
      }
    }
    org.assertj.core.api.Assertions.assertThat(mine)
        .as("ids below the k-th distance, grouped by distance: ours %s, Lance's %s", ours, theirs)
        .isEqualTo(lance);
  }

  /**
   * As {@link #assertSameUpToTies}, except where lance-core 7.0.0 leaves out a candidate nearer
   * than rows it returns (seen on tables with unindexed rows, depending on how its unseeded k-means
   * placed the rows): then our answer must be nearer or as near at every rank, and must hold every
   * row of Lance's that is nearer than our k-th distance — ours is Lance's answer with the omitted
   * rows put back.
   */
  public static void assertSameOrLanceOmitsNearer(List<Hit> ours, List<Hit> theirs) {
    org.assertj.core.api.Assertions.assertThat(ours).as("row count").hasSameSizeAs(theirs);
    boolean same = true;
    for (int i = 0; i < ours.size(); i++) {
      float a = ours.get(i).distance();
      float b = theirs.get(i).distance();
      float tol = 1e-5f * Math.max(1f, Math.abs(b));
      org.assertj.core.api.Assertions.assertThat(a)
          .as(
              "distance of rank %d is never farther than Lance's: ours %s, Lance's %s",
              i, ours, theirs)
          .isLessThanOrEqualTo(b + tol);
      same &= Math.abs(a - b) <= tol;
    }
    if (same) {
      assertSameUpToTies(ours, theirs);
      return;
    }
    float cut = ours.get(ours.size() - 1).distance();
    float tol = 1e-5f * Math.max(1f, Math.abs(cut));
    java.util.Set<Long> mine = new java.util.HashSet<>();
    ours.forEach(h -> mine.add(h.id()));
    for (Hit t : theirs) {
      if (t.distance() < cut - tol) {
        org.assertj.core.api.Assertions.assertThat(mine)
            .as("Lance's row %d, nearer than our k-th: ours %s, Lance's %s", t.id(), ours, theirs)
            .contains(t.id());
      }
    }
  }

  /**
   * Lance's nearest query with every knob the oracle exposes; {@code nprobes} null leaves Lance's
   * defaults, {@code metric} null uses the index's (or l2).
   */
  public static List<Hit> nearest(
      BufferAllocator allocator,
      Path dir,
      float[] q,
      int k,
      Integer nprobes,
      Integer refineFactor,
      org.lance.index.DistanceType metric,
      boolean useIndex,
      String filter,
      boolean prefilter) {
    List<Hit> out = new ArrayList<>();
    try (Dataset ds = open(allocator, dir)) {
      Query.Builder qb =
          new Query.Builder().setColumn("vector").setKey(q).setK(k).setUseIndex(useIndex);
      if (nprobes != null) {
        qb.setNprobes(nprobes);
      }
      if (refineFactor != null) {
        qb.setRefineFactor(refineFactor);
      }
      if (metric != null) {
        qb.setDistanceType(metric);
      }
      ScanOptions.Builder opts =
          new ScanOptions.Builder().nearest(qb.build()).columns(List.of("id")).prefilter(prefilter);
      if (filter != null) {
        opts.filter(filter);
      }
      try (LanceScanner scanner = ds.newScan(opts.build());
          ArrowReader reader = scanner.scanBatches()) {
        while (reader.loadNextBatch()) {
          VectorSchemaRoot root = reader.getVectorSchemaRoot();
          BigIntVector ids = (BigIntVector) root.getVector("id");
          org.apache.arrow.vector.Float4Vector d =
              (org.apache.arrow.vector.Float4Vector) root.getVector("_distance");
          for (int i = 0; i < root.getRowCount(); i++) {
            out.add(new Hit(ids.get(i), d.get(i)));
          }
        }
      }
    } catch (Exception e) {
      throw new RuntimeException(e);
    }
    return out;
  }

  /** Lance's nearest-neighbour query; returns the ids of the rows found, nearest first. */
  public static List<Long> nearestIds(
      BufferAllocator allocator,
      Path dir,
      float[] q,
      int k,
      int nprobes,
      String filter,
      boolean prefilter) {
    List<Long> out = new ArrayList<>();
    try (Dataset ds = open(allocator, dir)) {
      Query query =
          new Query.Builder().setColumn("vector").setKey(q).setK(k).setNprobes(nprobes).build();
      ScanOptions.Builder opts =
          new ScanOptions.Builder().nearest(query).columns(List.of("id")).prefilter(prefilter);
      if (filter != null) {
        opts.filter(filter);
      }
      try (LanceScanner scanner = ds.newScan(opts.build());
          ArrowReader reader = scanner.scanBatches()) {
        while (reader.loadNextBatch()) {
          VectorSchemaRoot root = reader.getVectorSchemaRoot();
          BigIntVector v = (BigIntVector) root.getVector("id");
          for (int i = 0; i < root.getRowCount(); i++) {
            out.add(v.get(i));
          }
        }
      }
    } catch (Exception e) {
      throw new RuntimeException(e);
    }
    return out;
  }

  /**
   * Rows of {@code columns} as Lance scans them (optionally filtered), normalized by {@link Rows}.
   */
  public static List<List<Object>> rows(
      BufferAllocator allocator, Path dir, List<String> columns, String filter) {
    List<List<Object>> out = new ArrayList<>();
    try (Dataset ds = open(allocator, dir)) {
      ScanOptions.Builder opts = new ScanOptions.Builder().columns(columns);
      if (filter != null) {
        opts.filter(filter);
      }
      try (LanceScanner scanner = ds.newScan(opts.build());
          ArrowReader reader = scanner.scanBatches()) {
        while (reader.loadNextBatch()) {
          out.addAll(Rows.of(reader.getVectorSchemaRoot()));
        }
      }
    } catch (Exception e) {
      throw new RuntimeException(e);
    }
    return out;
  }

  /** All values of an int64 column in scan order, read by Lance. */
  public static List<Long> longColumn(
      BufferAllocator allocator, Path dir, String column, String filter) {
    List<Long> out = new ArrayList<>();
    try (Dataset ds = open(allocator, dir)) {
      ScanOptions.Builder opts = new ScanOptions.Builder().columns(List.of(column));
      if (filter != null) {
        opts.filter(filter);
      }
      try (LanceScanner scanner = ds.newScan(opts.build());
          ArrowReader reader = scanner.scanBatches()) {
        while (reader.loadNextBatch()) {
          VectorSchemaRoot root = reader.getVectorSchemaRoot();
          BigIntVector v = (BigIntVector) root.getVector(column);
          for (int i = 0; i < root.getRowCount(); i++) {
            out.add(v.isNull(i) ? null : v.get(i));
          }
        }
      }
    } catch (Exception e) {
      throw new RuntimeException(e);
    }
    return out;
  }
}
