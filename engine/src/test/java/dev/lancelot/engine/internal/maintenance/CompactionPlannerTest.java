package dev.lancelot.engine.internal.maintenance;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Any;
import dev.lancelot.engine.CompactionOptions;
import dev.lancelot.engine.index.IndexSegment;
import dev.lancelot.engine.internal.format.FragmentBitmaps;
import dev.lancelot.engine.internal.format.IndexUuids;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFragment;
import dev.lancelot.engine.internal.format.proto.TableProtos.DeletionFile;
import dev.lancelot.engine.internal.format.proto.TableProtos.IndexMetadata;
import dev.lancelot.engine.internal.format.proto.TableProtos.UUID;
import dev.lancelot.engine.internal.index.IndexInternals;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.roaringbitmap.RoaringBitmap;

/** Lance 7's compaction plan (plan_compaction, CandidateBin) on fragment lists. */
class CompactionPlannerTest {
  static DataFragment fragment(long id, long rows, long deleted) {
    DataFragment.Builder b = DataFragment.newBuilder().setId(id).setPhysicalRows(rows);
    if (deleted > 0) {
      b.setDeletionFile(
          DeletionFile.newBuilder().setNumDeletedRows(deleted).setReadVersion(1).setId(id));
    }
    return b.build();
  }

  static List<DataFragment> fragments(long... rows) {
    List<DataFragment> out = new ArrayList<>();
    for (int i = 0; i < rows.length; i++) {
      out.add(fragment(i, rows[i], 0));
    }
    return out;
  }

  static IndexSegment segment(String detailsType, int... fragments) {
    RoaringBitmap b = RoaringBitmap.bitmapOf(fragments);
    return IndexInternals.segment(
        IndexMetadata.newBuilder()
            .setUuid(UUID.newBuilder().setUuid(IndexUuids.uuidBytes(java.util.UUID.randomUUID())))
            .setName("idx")
            .setFragmentBitmap(FragmentBitmaps.bytes(b))
            .setIndexDetails(Any.newBuilder().setTypeUrl(detailsType))
            .build());
  }

  static List<List<Long>> ids(List<List<DataFragment>> groups) {
    return groups.stream().map(g -> g.stream().map(DataFragment::getId).toList()).toList();
  }

  static CompactionOptions target(int rows) {
    return CompactionOptions.defaults().withTargetRowsPerFragment(rows);
  }

  @Test
  void defaultsAreLance7s() {
    CompactionOptions o = CompactionOptions.defaults();
    assertThat(o.targetRowsPerFragment()).isEqualTo(1024 * 1024);
    assertThat(o.materializeDeletions()).isTrue();
    assertThat(o.materializeDeletionsThreshold()).isEqualTo(0.1);
    assertThat(o.withMaterializeDeletionsThreshold(1.0).materializesDeletions()).isFalse();
  }

  @Test
  void adjacentSmallFragmentsAreSplitIntoGroupsOfAtLeastTheTarget() {
    // Lance's own example: [100, 400, 200, 200, 400, 300, 300, 100] with 500 -> [0,1] [2,3,4]
    // [5,6,7].
    List<List<DataFragment>> groups =
        CompactionPlanner.plan(
            fragments(100, 400, 200, 200, 400, 300, 300, 100),
            List.of(),
            target(500).withMaterializeDeletions(false));
    assertThat(ids(groups))
        .containsExactly(List.of(0L, 1L), List.of(2L, 3L, 4L), List.of(5L, 6L, 7L));
  }

  @Test
  void aLoneSmallFragmentOrLargeOnesAreLeftAlone() {
    assertThat(CompactionPlanner.plan(fragments(100), List.of(), target(500))).isEmpty();
    assertThat(CompactionPlanner.plan(fragments(600, 100, 700, 50), List.of(), target(500)))
        .isEmpty();
    assertThat(ids(CompactionPlanner.plan(fragments(600, 100, 70, 700), List.of(), target(500))))
        .containsExactly(List.of(1L, 2L));
  }

  @Test
  void manyDeletedRowsMakeAFragmentACandidateByItself() {
    List<DataFragment> f =
        List.of(fragment(0, 1000, 101), fragment(1, 1000, 100), fragment(2, 1000, 0));
    assertThat(ids(CompactionPlanner.plan(f, List.of(), target(500)))).containsExactly(List.of(0L));
    assertThat(CompactionPlanner.plan(f, List.of(), target(500).withMaterializeDeletions(false)))
        .isEmpty();
    assertThat(
            ids(
                CompactionPlanner.plan(
                    f, List.of(), target(500).withMaterializeDeletionsThreshold(0.05))))
        .containsExactly(List.of(0L), List.of(1L)); // each already holds the target
  }

  @Test
  void fragmentsCoveredByDifferentIndexSegmentsAreNeverMixed() {
    List<DataFragment> f = fragments(100, 100, 100, 100);
    IndexSegment btree = segment(IndexSegment.BTREE_DETAILS_TYPE, 0, 1);
    assertThat(ids(CompactionPlanner.plan(f, List.of(btree), target(500))))
        .containsExactly(List.of(0L, 1L), List.of(2L, 3L));
    // An index this engine cannot rewrite keeps its fragments out of compaction.
    IndexSegment inverted = segment("/lance.table.InvertedIndexDetails", 2, 3);
    assertThat(ids(CompactionPlanner.plan(f, List.of(btree, inverted), target(500))))
        .containsExactly(List.of(0L, 1L));
  }

  @Test
  void zoneIndexesAndLabelListsDoNotKeepFragmentsOutExceptZonesWithStableRowIds() {
    List<DataFragment> f = fragments(100, 100, 100, 100);
    IndexSegment labels = segment("/lance.table.LabelListIndexDetails", 0, 1, 2, 3);
    IndexSegment zones = segment("/lance.table.ZoneMapIndexDetails", 0, 1);
    IndexSegment bloom = segment("/lance.index.pb.BloomFilterIndexDetails", 2, 3);
    assertThat(ids(CompactionPlanner.plan(f, List.of(labels, zones, bloom), target(500))))
        .containsExactly(List.of(0L, 1L), List.of(2L, 3L));
    assertThat(ids(CompactionPlanner.plan(f, List.of(labels), target(500), true)))
        .containsExactly(List.of(0L, 1L, 2L, 3L));
    // with stable row ids the commit would move a zone index's coverage: its fragments stay out
    assertThat(ids(CompactionPlanner.plan(f, List.of(labels, zones), target(500), true)))
        .containsExactly(List.of(2L, 3L));
  }
}
