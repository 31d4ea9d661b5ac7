package dev.lancelot.engine.index;

import dev.lancelot.engine.FragmentInfo;
import dev.lancelot.engine.internal.format.proto.IndexProtos.VectorIndexDetails;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFragment;
import dev.lancelot.engine.internal.format.proto.TableProtos.IndexMetadata;
import dev.lancelot.engine.internal.index.IndexInternals;
import dev.lancelot.engine.internal.table.Snapshot;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.roaringbitmap.RoaringBitmap;

/**
 * The indexes of one dataset version: segments grouped by index name, their coverage, and the
 * fragments each index does not cover (appended after it was built). Immutable.
 */
public final class IndexCatalog {
  private final Snapshot snapshot;
  private final Map<String, List<IndexSegment>> byName = new LinkedHashMap<>();

  private IndexCatalog(Snapshot snapshot) {
    this.snapshot = snapshot;
    for (IndexMetadata m : snapshot.indices()) {
      byName
          .computeIfAbsent(m.getName(), k -> new ArrayList<>())
          .add(IndexSegment.of(m, snapshot.entry().location()));
    }
  }

  static {
    IndexInternals.register(
        new IndexInternals.Access() {
          @Override
          public IndexCatalog catalog(Snapshot snapshot) {
            return new IndexCatalog(snapshot);
          }

          @Override
          public List<DataFragment> unindexedFragments(IndexCatalog catalog, String name) {
            return catalog.unindexed(name);
          }

          @Override
          public IndexSegment segment(IndexMetadata metadata) {
            return IndexSegment.of(metadata);
          }

          @Override
          public IndexMetadata proto(IndexSegment segment) {
            return segment.proto();
          }

          @Override
          public Optional<VectorIndexDetails> vectorDetails(IndexSegment segment) {
            return segment.vectorDetails();
          }
        });
  }

  public List<String> names() {
    return List.copyOf(byName.keySet());
  }

  /** Segments of one logical index (deltas share the name), oldest first. */
  public List<IndexSegment> segments(String name) {
    return byName.getOrDefault(name, List.of());
  }

  public List<IndexSegment> allSegments() {
    List<IndexSegment> all = new ArrayList<>();
    byName.values().forEach(all::addAll);
    return all;
  }

  /** Names of the indexes built on a field (by field id), of any type. */
  public List<String> indexesOn(int fieldId) {
    List<String> out = new ArrayList<>();
    byName.forEach(
        (name, segs) -> {
          if (segs.stream().anyMatch(s -> s.fieldIds().contains(fieldId))) {
            out.add(name);
          }
        });
    return out;
  }

  /** The vector index on a field, when there is one. */
  public Optional<String> vectorIndexOn(int fieldId) {
    return indexesOn(fieldId).stream()
        .filter(n -> segments(n).get(0).type().isVector())
        .findFirst();
  }

  /** Fragments of this version covered by some segment of {@code name}. */
  public RoaringBitmap indexedFragments(String name) {
    RoaringBitmap covered = new RoaringBitmap();
    segments(name).forEach(s -> covered.or(s.fragments()));
    RoaringBitmap present = new RoaringBitmap();
    for (DataFragment f : snapshot.fragments()) {
      present.add(Math.toIntExact(f.getId()));
    }
    covered.and(present);
    return covered;
  }

  /**
   * Fragments of this version not covered by any segment of {@code name} (SPEC Q9): a search with
   * this index scans them flat unless it asks for {@code fast_search}.
   */
  public List<FragmentInfo> unindexedFragments(String name) {
    return unindexed(name).stream().map(snapshot::info).toList();
  }

  /** The fragments of this version. */
  List<DataFragment> fragments() {
    return snapshot.fragments();
  }

  List<DataFragment> unindexed(String name) {
    RoaringBitmap covered = new RoaringBitmap();
    segments(name).forEach(s -> covered.or(s.fragments()));
    List<DataFragment> out = new ArrayList<>();
    for (DataFragment f : snapshot.fragments()) {
      if (!covered.contains(Math.toIntExact(f.getId()))) {
        out.add(f);
      }
    }
    return out;
  }
}
