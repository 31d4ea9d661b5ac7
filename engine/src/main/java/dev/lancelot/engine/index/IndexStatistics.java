package dev.lancelot.engine.index;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFragment;
import dev.lancelot.engine.internal.format.proto.TableProtos.IndexMetadata;
import dev.lancelot.engine.internal.table.Snapshot;
import dev.lancelot.engine.schema.LanceField;
import dev.lancelot.engine.vector.DistanceMetric;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.roaringbitmap.RoaringBitmap;

/**
 * What one index of a dataset version covers, from the manifest alone (no index file is read): the
 * figures lance-core reports as its index statistics ({@code num_indices}, {@code
 * num_indexed_fragments}, {@code num_indexed_rows}, {@code num_unindexed_fragments}, {@code
 * num_unindexed_rows}), for an index of any type, readable or not.
 *
 * @param columns the indexed columns' names ({@code #<id>} for a field the schema no longer has)
 * @param metric a vector index's distance metric; empty for other indexes
 * @param segments the index's segments (Lance's {@code num_indices})
 * @param indexedFragments fragments of the version some segment covers
 * @param indexedRows live rows of those fragments
 * @param unindexedFragments fragments no segment covers (appended since the last build or optimize)
 * @param unindexedRows live rows of those fragments
 * @param sizeBytes the bytes of the segments' files, when every segment lists its files in the
 *     manifest (Lance 7 does); empty otherwise
 */
public record IndexStatistics(
    String name,
    IndexType type,
    List<String> columns,
    Optional<DistanceMetric> metric,
    int segments,
    long indexedFragments,
    long indexedRows,
    long unindexedFragments,
    long unindexedRows,
    OptionalLong sizeBytes) {

  public IndexStatistics {
    columns = List.copyOf(columns);
  }

  /**
   * Statistics of index {@code name} of {@code dataset}'s version.
   *
   * @throws InvalidInputException when the version has no index of that name (the message lists
   *     those it has)
   */
  public static IndexStatistics of(Dataset dataset, String name) {
    IndexCatalog catalog = dataset.indexes();
    List<IndexSegment> segments = catalog.segments(name);
    if (segments.isEmpty()) {
      throw noSuchIndex(dataset, name, "describe");
    }
    IndexSegment first = segments.get(0);
    List<String> columns = new ArrayList<>();
    for (int id : first.fieldIds()) {
      columns.add(dataset.lanceSchema().fieldById(id).map(LanceField::name).orElse("#" + id));
    }
    RoaringBitmap covered = catalog.indexedFragments(name);
    long indexedRows = 0;
    long unindexedRows = 0;
    List<DataFragment> unindexed = catalog.unindexed(name);
    for (DataFragment f : catalog.fragments()) {
      if (covered.contains(Math.toIntExact(f.getId()))) {
        indexedRows += Snapshot.liveRows(f);
      }
    }
    for (DataFragment f : unindexed) {
      unindexedRows += Snapshot.liveRows(f);
    }
    OptionalLong size = OptionalLong.of(0);
    for (IndexSegment s : segments) {
      IndexMetadata m = s.proto();
      if (m.getFilesCount() == 0 || size.isEmpty()) {
        size = OptionalLong.empty();
      } else {
        long bytes = size.getAsLong();
        for (var f : m.getFilesList()) {
          bytes += f.getSizeBytes();
        }
        size = OptionalLong.of(bytes);
      }
    }
    return new IndexStatistics(
        name,
        first.type(),
        columns,
        first.metric(),
        segments.size(),
        covered.getLongCardinality(),
        indexedRows,
        unindexed.size(),
        unindexedRows,
        size);
  }

  /** The refusal for an index name the version does not have, listing those it has. */
  public static InvalidInputException noSuchIndex(Dataset dataset, String name, String action) {
    List<String> names = dataset.indexes().names();
    return new InvalidInputException(
        "Cannot "
            + action
            + " index \""
            + name
            + "\": "
            + dataset.location()
            + " version "
            + dataset.version()
            + " has no index of that name. "
            + (names.isEmpty()
                ? "It has no indexes."
                : "Its indexes are "
                    + names
                    + " (did you mean \""
                    + dev.lancelot.engine.ClosestName.closest(name, names)
                    + "\"?)."));
  }
}
