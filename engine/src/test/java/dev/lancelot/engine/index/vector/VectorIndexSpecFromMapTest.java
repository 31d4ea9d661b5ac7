package dev.lancelot.engine.index.vector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.LancelotException;
import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.vector.DistanceMetric;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Index parameters by name (SQL and Python callers): Lance's names, defaults, and clear refusals.
 */
class VectorIndexSpecFromMapTest {
  @Test
  void namedParametersSetTheSpecAndTheRestKeepLancesDefaults() {
    VectorIndexSpec spec =
        VectorIndexSpec.fromMap(
            Map.of(
                "INDEX_TYPE",
                "ivf_hnsw_pq",
                "metric",
                "dot",
                "num_partitions",
                12L,
                "num_sub_vectors",
                "8",
                "m",
                10,
                "ef_construction",
                99,
                "seed",
                3,
                "name",
                "v",
                "replace",
                "true"));
    assertThat(spec.type()).isEqualTo(IndexType.IVF_HNSW_PQ);
    assertThat(spec.metric()).isEqualTo(DistanceMetric.DOT);
    assertThat(spec.numPartitions()).isEqualTo(12);
    assertThat(spec.numSubVectors()).isEqualTo(8);
    assertThat(spec.m()).isEqualTo(10);
    assertThat(spec.efConstruction()).isEqualTo(99);
    assertThat(spec.maxLevel())
        .isEqualTo(VectorIndexSpec.of(IndexType.IVF_HNSW_PQ, DistanceMetric.DOT).maxLevel());
    assertThat(spec.seed()).isEqualTo(3);
    assertThat(spec.name()).isEqualTo("v");
    assertThat(spec.replace()).isTrue();
    assertThat(VectorIndexSpec.fromMap(Map.of("index_type", "IVF_PQ")))
        .isEqualTo(VectorIndexSpec.of(IndexType.IVF_PQ, DistanceMetric.L2));
  }

  /** IVF_RQ: Lance's default of 1 bit per dimension, num_bits up to 255, no PQ parameters. */
  @Test
  void ivfRqTakesNumBits() {
    assertThat(VectorIndexSpec.fromMap(Map.of("index_type", "ivf_rq")).numBits()).isEqualTo(1);
    VectorIndexSpec spec =
        VectorIndexSpec.fromMap(Map.of("index_type", "IVF_RQ", "num_bits", 3, "metric", "cosine"));
    assertThat(spec.type()).isEqualTo(IndexType.IVF_RQ);
    assertThat(spec.usesRq()).isTrue();
    assertThat(spec.numBits()).isEqualTo(3);
    assertThat(spec.targetPartitionSize()).isEqualTo(8192);
    assertThatThrownBy(
            () -> VectorIndexSpec.fromMap(Map.of("index_type", "IVF_RQ", "num_bits", 256)))
        .isInstanceOf(LancelotException.class)
        .hasMessageContaining("IVF_RQ index with num_bits=256")
        .hasMessageContaining("between 1 and 255");
    assertThatThrownBy(
            () -> VectorIndexSpec.fromMap(Map.of("index_type", "IVF_RQ", "num_sub_vectors", 4)))
        .hasMessageContaining("parameter num_sub_vectors does not apply");
  }

  @Test
  void badParametersAreRefusedNamingThem() {
    assertThatThrownBy(() -> VectorIndexSpec.fromMap(Map.of("metric", "l2")))
        .isInstanceOf(LancelotException.class)
        .hasMessageContaining("index_type is required");
    assertThatThrownBy(() -> VectorIndexSpec.fromMap(Map.of("index_type", "IVF_PQ", "nprobes", 3)))
        .hasMessageContaining("unknown parameter \"nprobes\"");
    assertThatThrownBy(() -> VectorIndexSpec.fromMap(Map.of("index_type", "IVF_FLAT", "m", 3)))
        .hasMessageContaining("m does not apply");
    assertThatThrownBy(
            () -> VectorIndexSpec.fromMap(Map.of("index_type", "IVF_PQ", "num_partitions", 2.5)))
        .hasMessageContaining("num_partitions must be an integer");
    assertThatThrownBy(
            () -> VectorIndexSpec.fromMap(Map.of("index_type", "IVF_PQ", "replace", "maybe")))
        .hasMessageContaining("replace must be true or false");
    assertThatThrownBy(() -> VectorIndexSpec.fromMap(Map.of("index_type", "BTREE")))
        .hasMessageContaining("not a vector index type");
  }
}
