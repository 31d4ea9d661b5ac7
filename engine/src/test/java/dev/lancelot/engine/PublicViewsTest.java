package dev.lancelot.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.index.IndexSegment;
import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.index.vector.VectorIndexCache;
import dev.lancelot.engine.index.vector.VectorIndexSpec;
import dev.lancelot.engine.index.vector.VectorIndexes;
import dev.lancelot.engine.vector.DistanceMetric;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.roaringbitmap.RoaringBitmap;

/**
 * What the API shows of fragments, index segments and deletions, in its own types
 * (docs/architecture.md §2.1): the same facts the manifest holds, without its messages.
 */
class PublicViewsTest {
  @Test
  void fragmentsSegmentsAndDeletionsAreShownInTheApisOwnTypes(@TempDir Path dir) throws Exception {
    try (BufferAllocator a = new RootAllocator()) {
      DatasetCacheTest.write(a, dir, 0, 100, WriteMode.CREATE);
      try (Dataset v1 = Dataset.open(dir.toString());
          Dataset v2 =
              VectorIndexes.create(
                  v1,
                  "vector",
                  VectorIndexSpec.of(IndexType.IVF_FLAT, DistanceMetric.L2).withNumPartitions(2))) {
        assertThat(v2.indexes().unindexedFragments("vector_idx")).isEmpty();
      }
      DatasetCacheTest.write(a, dir, 100, 50, WriteMode.APPEND);
      try (Dataset v3 = Dataset.open(dir.toString());
          Dataset v4 = v3.delete("id < 5 OR id = 120")) {
        List<FragmentInfo> fragments = v4.fragments();
        assertThat(fragments).hasSize(2);
        FragmentInfo first = fragments.get(0);
        FragmentInfo appended = fragments.get(1);

        IndexSegment segment = v4.indexes().segments("vector_idx").get(0);
        assertThat(segment.detailsType()).endsWith(IndexSegment.VECTOR_DETAILS_TYPE);
        assertThat(segment.type()).isEqualTo(IndexType.IVF_FLAT);
        assertThat(segment.fragments().contains((int) first.id())).isTrue();
        assertThat(segment.files()).isNotEmpty();
        for (String f : segment.files()) {
          assertThat(dir.resolve(segment.directory()).resolve(f)).exists();
        }
        assertThat(segment.files())
            .containsExactlyInAnyOrderElementsOf(
                Files.list(dir.resolve(segment.directory()))
                    .map(p -> p.getFileName().toString())
                    .toList());

        List<FragmentInfo> unindexed = v4.indexes().unindexedFragments("vector_idx");
        assertThat(unindexed).containsExactly(appended);
        assertThat(appended.rows()).isEqualTo(49);
        assertThat(appended.deletedRows()).isEqualTo(1);

        RoaringBitmap deleted = v4.deletedRows(first.id());
        assertThat(deleted.toArray()).containsExactly(0, 1, 2, 3, 4);
        assertThat(v4.deletedRows(appended.id()).toArray()).containsExactly(20);
        assertThat(v3.deletedRows(first.id()).isEmpty()).isTrue();
        assertThatThrownBy(() -> v4.deletedRows(99))
            .isInstanceOf(InvalidInputException.class)
            .hasMessageContaining("fragment 99")
            .hasMessageContaining("no such fragment");
      }
    }
  }

  @Test
  void theIndexCacheBudgetRefusesNegativeSizes() {
    long before = VectorIndexCache.maxBytes();
    assertThatThrownBy(() -> VectorIndexCache.setMaxBytes(-1))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("-1 bytes");
    assertThat(VectorIndexCache.maxBytes()).isEqualTo(before);
  }
}
