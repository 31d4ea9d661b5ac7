package dev.lancelot.engine.index.vector;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.WriteMode;
import dev.lancelot.engine.WriteOptions;
import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.internal.index.vector.SearchStats;
import dev.lancelot.engine.internal.index.vector.TopKCollector;
import dev.lancelot.engine.internal.index.vector.VectorSegmentSearcher;
import dev.lancelot.engine.testing.ArrowStreams;
import dev.lancelot.engine.testing.ClusteredData;
import dev.lancelot.engine.vector.DistanceMetric;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.LongPredicate;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A prefilter admitting under 10% of an HNSW partition's nodes makes the partition a scan of the
 * admitted nodes (as Lance does): with exact (FLAT) storage the answer is then the exact top k of
 * the admitted rows, whatever the ef.
 */
class SelectivePrefilterTest {
  static final int DIM = 8;

  @Test
  void selectivePrefilterScansAdmittedNodes(@TempDir Path dir) throws Exception {
    float[][] vectors;
    try (BufferAllocator allocator = new RootAllocator();
        VectorSchemaRoot b = ClusteredData.generate(allocator, 0, 3000, DIM, 10, 4)) {
      Float4Vector values =
          (Float4Vector) ((FixedSizeListVector) b.getVector("vector")).getDataVector();
      vectors = new float[3000][DIM];
      for (int i = 0; i < 3000; i++) {
        for (int d = 0; d < DIM; d++) {
          vectors[i][d] = values.get(i * DIM + d);
        }
      }
      try (ArrowReader r = ArrowStreams.readerOf(allocator, List.of(b))) {
        Dataset.write(dir.toString(), r, WriteOptions.of(WriteMode.CREATE)).close();
      }
    }
    try (Dataset ds = Dataset.open(dir.toString())) {
      VectorIndexes.create(
              ds,
              "vector",
              VectorIndexSpec.of(IndexType.IVF_HNSW_FLAT, DistanceMetric.L2)
                  .withNumPartitions(2)
                  .withHnsw(4, 16, 3))
          .close();
    }
    try (Dataset ds = Dataset.open(dir.toString())) {
      VectorSegmentSearcher s =
          VectorSegmentSearcher.open(ds, ds.indexes().segments("vector_idx").get(0));
      LongPredicate accept =
          row -> row % 40 == 3; // one fragment: row address = row id; 2.5% admitted
      float[] q = ClusteredData.queries(1, DIM, 10, 4, 8)[0];
      int[] all = s.rankPartitions(q).partitions();
      TopKCollector c = new TopKCollector(10);
      SearchStats stats = new SearchStats();
      s.search(q, all, 10, accept, c, stats, true);
      assertThat(stats.distancesComputed())
          .as("only the 75 admitted nodes are scored")
          .isEqualTo(75);
      List<Long> expected = new ArrayList<>();
      for (int i = 3; i < 3000; i += 40) {
        expected.add((long) i);
      }
      expected.sort(Comparator.comparingDouble(i -> l2(vectors[(int) (long) i], q)));
      long[] got = c.result().ids();
      List<Long> ids = new ArrayList<>();
      for (long g : got) {
        ids.add(g);
      }
      assertThat(ids).containsExactlyElementsOf(expected.subList(0, 10));
    }
  }

  static double l2(float[] a, float[] b) {
    double d = 0;
    for (int i = 0; i < a.length; i++) {
      d += (a[i] - b[i]) * (a[i] - b[i]);
    }
    return d;
  }
}
