package dev.lancelot.engine.internal.index.vector.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.internal.format.CorruptFileException;
import dev.lancelot.engine.internal.index.vector.hnsw.HnswGraph;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class HnswGraphCodecTest {
  /**
   * Rows of a graph whose level l holds nodes 0 .. sizes[l]-1, each linked to the next one
   * (cyclically).
   */
  static HnswGraphCodec.Rows rows(int... sizes) {
    List<Integer> ids = new ArrayList<>();
    List<Integer> offsets = new ArrayList<>();
    List<Integer> nbrs = new ArrayList<>();
    for (int size : sizes) {
      for (int i = 0; i < size; i++) {
        ids.add(i);
        offsets.add(nbrs.size());
        if (size > 1) {
          nbrs.add((i + 1) % size);
        }
      }
    }
    offsets.add(nbrs.size());
    float[] dists = new float[nbrs.size()];
    for (int i = 0; i < dists.length; i++) {
      dists[i] = 1f;
    }
    return new HnswGraphCodec.Rows(
        ids.stream().mapToInt(Integer::intValue).toArray(),
        offsets.stream().mapToInt(Integer::intValue).toArray(),
        nbrs.stream().mapToInt(Integer::intValue).toArray(),
        dists);
  }

  static HnswPartitionMetadata meta(int[] levelOffsets) {
    return new HnswPartitionMetadata(0, 7, 20, 150, null, levelOffsets);
  }

  @Test
  void readsLevelOffsetsThatAreOneShortPerUpperLevelAsLanceStoresThem() {
    // Level sizes 8, 4, 3, 2, 1 and two empty levels: exact offsets 0, 8, 12, 15, 17, 18, 18, 18;
    // lance-core 7.0.0 writes each upper level one short: 0, 8, 11, 13, 14, 14, 14, 14.
    int[] lanceShort = {0, 8, 11, 13, 14, 14, 14, 14};
    HnswGraph g = HnswGraphCodec.decode("f", 0, 8, meta(lanceShort), rows(8, 4, 3, 2, 1));
    assertThat(g.numLevels()).isEqualTo(5);
    assertThat(g.levelNodes(3)).containsExactly(0, 1);

    int[] exact = {0, 8, 12, 15, 17, 18, 18, 18};
    assertThat(HnswGraphCodec.decode("f", 0, 8, meta(exact), rows(8, 4, 3, 2, 1)).numLevels())
        .isEqualTo(5);
  }

  @Test
  void refusesOffsetsThatAreNeitherExactNorOneShortPerLevel() {
    int[] wrong = {0, 8, 11, 12, 14, 14, 14, 14};
    assertThatThrownBy(() -> HnswGraphCodec.decode("f", 0, 8, meta(wrong), rows(8, 4, 3, 2, 1)))
        .isInstanceOf(CorruptFileException.class)
        .hasMessageContaining("level_offsets");
  }
}
