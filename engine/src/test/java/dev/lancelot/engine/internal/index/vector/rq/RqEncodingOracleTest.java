package dev.lancelot.engine.internal.index.vector.rq;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.index.IndexSegment;
import dev.lancelot.engine.internal.DatasetInternals;
import dev.lancelot.engine.internal.index.vector.build.EncodedShard;
import dev.lancelot.engine.internal.index.vector.build.TrainedModel;
import dev.lancelot.engine.internal.index.vector.build.VectorIndexBuilder;
import dev.lancelot.engine.internal.index.vector.store.IndexSegmentReader;
import dev.lancelot.engine.internal.index.vector.store.IndexSegmentWriter;
import dev.lancelot.engine.testing.ClusteredData;
import dev.lancelot.engine.testing.LanceOracle;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.lance.WriteParams;
import org.lance.index.DistanceType;
import org.lance.index.IndexParams;
import org.lance.index.vector.VectorIndexParams;

/**
 * lancelot codes rows as lance-core 7.0.0 does: given the model of an IVF_RQ index lance-core built
 * (its centroids and rotation), lancelot's encoder puts every row in the same partition with the
 * same code bits and the same add and scale factors (to float rounding of the sums) as lance-core
 * stored, for l2, cosine and dot, one to three bits per dimension, code dimensions that are and are
 * not powers of two.
 */
@Tag("oracle")
class RqEncodingOracleTest {
  @TempDir static Path tmp;
  static BufferAllocator allocator;

  @BeforeAll
  static void setUp() {
    allocator = new RootAllocator();
  }

  @AfterAll
  static void tearDown() {
    allocator.close();
  }

  @ParameterizedTest
  @CsvSource({"L2,1,16", "L2,2,16", "Cosine,1,16", "Dot,1,16", "Dot,2,32", "L2,1,24", "L2,3,16"})
  void theSameCodesAndFactorsAsLance(String metric, int bits, int dim) {
    Path at = tmp.resolve(metric + bits + "-" + dim);
    ClusteredData.write(allocator, at, 0, 1500, dim, 8, 7, WriteParams.WriteMode.CREATE, 400);
    try (org.lance.Dataset ds = LanceOracle.open(allocator, at)) {
      ds.createIndex(
          List.of("vector"),
          org.lance.index.IndexType.IVF_RQ,
          Optional.of("vector_idx"),
          IndexParams.builder()
              .setVectorIndexParams(
                  VectorIndexParams.ivfRq(4, (byte) bits, DistanceType.valueOf(metric)))
              .build(),
          true);
    }
    try (Dataset ds = Dataset.open(at.toString())) {
      IndexSegment segment = ds.indexes().segments("vector_idx").get(0);
      IndexSegmentReader reader =
          IndexSegmentReader.open(
              DatasetInternals.context(ds).io(), DatasetInternals.indexDir(ds, segment));
      TrainedModel model = TrainedModel.of(reader);
      RabitQuantizer rq = model.rabit();
      assertThat(rq.numBits()).isEqualTo(bits);
      assertThat(rq.codeDim()).isEqualTo(dim * bits);
      int codeBytes = rq.codeBytes();
      int width = rq.rowBytes();

      // Lance's rows, by row address: partition and carried row (codes then factors).
      Map<Long, Integer> lancePartition = new HashMap<>();
      Map<Long, RqCodes.Split> lanceRow = new HashMap<>();
      for (int p = 0; p < reader.numPartitions(); p++) {
        IndexSegmentWriter.Partition stored = reader.readStoredPartition(p, allocator);
        for (int i = 0; i < stored.size(); i++) {
          byte[] one = java.util.Arrays.copyOfRange(stored.codes(), i * width, (i + 1) * width);
          lancePartition.put(stored.rowIds()[i], p);
          lanceRow.put(stored.rowIds()[i], RqCodes.split(one, 1, codeBytes));
        }
      }
      assertThat(lanceRow).hasSize(1500);

      EncodedShard ours =
          VectorIndexBuilder.encode(ds, "vector", model, DatasetInternals.snapshot(ds).fragments());
      int rows = 0;
      for (int p = 0; p < ours.rowIds().length; p++) {
        for (int i = 0; i < ours.rowIds()[p].length; i++, rows++) {
          long id = ours.rowIds()[p][i];
          assertThat(lancePartition.get(id)).as("partition of row %d", id).isEqualTo(p);
          RqCodes.Split mine =
              RqCodes.split(
                  java.util.Arrays.copyOfRange(ours.codes()[p], i * width, (i + 1) * width),
                  1,
                  codeBytes);
          RqCodes.Split theirs = lanceRow.get(id);
          assertThat(mine.codes()).as("codes of row %d", id).isEqualTo(theirs.codes());
          // dot's add factor, 1 − v·c + ‖c‖², cancels terms of the size of ‖c‖²: float rounding of
          // the two engines' sums differs by a fraction of that size, not of the result's.
          float cc = 0;
          for (float x : model.ivf().centroid(p)) {
            cc += x * x;
          }
          assertClose(mine.add()[0], theirs.add()[0], 1e-5f * cc, "add factor of row " + id);
          assertClose(mine.scale()[0], theirs.scale()[0], 0f, "scale factor of row " + id);
        }
      }
      assertThat(rows).isEqualTo(1500);
    }
  }

  private static void assertClose(float ours, float theirs, float slack, String what) {
    assertThat(Math.abs(ours - theirs))
        .as("%s: ours %s, Lance's %s", what, ours, theirs)
        .isLessThanOrEqualTo(1e-4f * Math.max(1f, Math.abs(theirs)) + slack);
  }
}
