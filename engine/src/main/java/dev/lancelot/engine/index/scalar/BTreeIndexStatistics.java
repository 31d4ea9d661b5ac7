package dev.lancelot.engine.index.scalar;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.index.IndexCatalog;
import dev.lancelot.engine.index.IndexSegment;
import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.internal.DatasetInternals;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFragment;
import dev.lancelot.engine.internal.index.IndexInternals;
import dev.lancelot.engine.internal.index.scalar.btree.BTreeSegmentReader;
import dev.lancelot.engine.internal.table.Snapshot;
import dev.lancelot.engine.schema.LanceField;
import java.util.List;
import org.roaringbitmap.RoaringBitmap;

/**
 * What {@code info} shows for a BTree index: rows indexed (deleted rows excluded as of each build),
 * NULL values among them, pages, and which fragments of the version it covers. Reading it opens
 * each segment's page_lookup.lance and the footer of its page_data.lance.
 *
 * @param unindexedFragments fragments of the version outside every segment (e.g. appended later)
 * @param unindexedRows live rows in those fragments
 */
public record BTreeIndexStatistics(
    String name,
    String column,
    int segments,
    long rowsIndexed,
    long nullRows,
    int pages,
    int pageSize,
    RoaringBitmap fragmentsCovered,
    List<Long> unindexedFragments,
    long unindexedRows) {

  public BTreeIndexStatistics {
    fragmentsCovered = fragmentsCovered.clone();
    unindexedFragments = List.copyOf(unindexedFragments);
  }

  /**
   * Statistics of the BTree index {@code name} of {@code dataset}'s version.
   *
   * @throws InvalidInputException when there is no such BTree index
   * @throws ScalarIndexException when its files are corrupt
   */
  public static BTreeIndexStatistics of(Dataset dataset, String name) {
    IndexCatalog catalog = dataset.indexes();
    List<IndexSegment> segments = catalog.segments(name);
    if (segments.isEmpty() || segments.stream().anyMatch(s -> s.type() != IndexType.BTREE)) {
      throw new InvalidInputException(
          "Cannot describe BTree index \""
              + name
              + "\" of "
              + dataset.location()
              + " version "
              + dataset.version()
              + ": "
              + (segments.isEmpty()
                  ? "there is no index of that name"
                  : "it is a " + segments.get(0).type() + " index")
              + ". Its indexes are "
              + catalog.names()
              + ".");
    }
    int fieldId = segments.get(0).fieldIds().get(0);
    LanceField field =
        dataset
            .lanceSchema()
            .fieldById(fieldId)
            .orElseThrow(
                () ->
                    new ScalarIndexException(
                        "Cannot describe BTree index \""
                            + name
                            + "\": it indexes field id "
                            + fieldId
                            + ", which the dataset's schema no longer has. Drop the index."));
    long rows = 0;
    long nulls = 0;
    int pages = 0;
    int pageSize = 0;
    for (IndexSegment s : segments) {
      try (BTreeSegmentReader reader =
          BTreeSegmentReader.open(
              DatasetInternals.context(dataset).io(),
              DatasetInternals.indexDir(dataset, s),
              s,
              field,
              DatasetInternals.context(dataset).allocator())) {
        rows += reader.numRows();
        nulls += reader.lookup().nullCount();
        pages += reader.lookup().pages().size();
        pageSize = reader.lookup().batchSize();
      }
    }
    List<DataFragment> unindexed = IndexInternals.unindexedFragments(catalog, name);
    long unindexedRows = 0;
    for (DataFragment f : unindexed) {
      unindexedRows += Snapshot.liveRows(f);
    }
    return new BTreeIndexStatistics(
        name,
        field.name(),
        segments.size(),
        rows,
        nulls,
        pages,
        pageSize,
        catalog.indexedFragments(name),
        unindexed.stream().map(DataFragment::getId).toList(),
        unindexedRows);
  }
}
