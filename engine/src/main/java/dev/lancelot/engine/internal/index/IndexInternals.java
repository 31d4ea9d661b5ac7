package dev.lancelot.engine.internal.index;

import dev.lancelot.engine.index.IndexCatalog;
import dev.lancelot.engine.index.IndexSegment;
import dev.lancelot.engine.internal.format.proto.IndexProtos.VectorIndexDetails;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFragment;
import dev.lancelot.engine.internal.format.proto.TableProtos.IndexMetadata;
import dev.lancelot.engine.internal.table.Snapshot;
import dev.lancelot.engine.internal.util.AccessorSlot;
import java.util.List;
import java.util.Optional;

/**
 * Engine access to {@link IndexCatalog}'s and {@link IndexSegment}'s members that are not API: the
 * manifest messages behind them (see {@link AccessorSlot}).
 */
public final class IndexInternals {
  /** Implemented by {@link IndexCatalog} (for both types, which share a package). */
  public interface Access {
    IndexCatalog catalog(Snapshot snapshot);

    List<DataFragment> unindexedFragments(IndexCatalog catalog, String name);

    IndexSegment segment(IndexMetadata metadata);

    IndexMetadata proto(IndexSegment segment);

    Optional<VectorIndexDetails> vectorDetails(IndexSegment segment);

    String directory(IndexSegment segment, String datasetRoot);
  }

  /**
   * The directory of {@code segment}'s files: {@code <datasetRoot>/_indices/<uuid>}, or under the
   * base path the manifest registers it with (an index a branch shares with its parent).
   */
  public static String directory(IndexSegment segment, String datasetRoot) {
    return SLOT.get().directory(segment, datasetRoot);
  }

  private static final AccessorSlot<Access> SLOT = new AccessorSlot<>(IndexCatalog.class);

  private IndexInternals() {}

  public static void register(Access access) {
    SLOT.set(access);
  }

  /** The indexes of one version. */
  public static IndexCatalog catalog(Snapshot snapshot) {
    return SLOT.get().catalog(snapshot);
  }

  /** Fragments of the catalog's version not covered by any segment of index {@code name}. */
  public static List<DataFragment> unindexedFragments(IndexCatalog catalog, String name) {
    return SLOT.get().unindexedFragments(catalog, name);
  }

  /** A segment not (yet) listed by a manifest: one being built. */
  public static IndexSegment segment(IndexMetadata metadata) {
    return SLOT.get().segment(metadata);
  }

  /** The segment's manifest entry. */
  public static IndexMetadata proto(IndexSegment segment) {
    return SLOT.get().proto(segment);
  }

  /** The vector index details of a vector segment's manifest entry; empty for other indexes. */
  public static Optional<VectorIndexDetails> vectorDetails(IndexSegment segment) {
    return SLOT.get().vectorDetails(segment);
  }
}
