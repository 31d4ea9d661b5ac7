package dev.lancelot.engine;

/**
 * What {@link Dataset#compact} did.
 *
 * @param dataset the version committed by the compaction, or the dataset compacted when there was
 *     nothing to do ({@link #committed()} false)
 * @param fragmentsRemoved fragments replaced
 * @param fragmentsAdded fragments written in their place
 * @param filesRemoved data and deletion files no longer referenced by the new version
 * @param filesAdded data files written
 * @param rowsRewritten live rows copied into the new fragments
 * @param indexSegmentsRemapped index segments rewritten for the new row addresses
 */
public record CompactionResult(
    Dataset dataset,
    boolean committed,
    int fragmentsRemoved,
    int fragmentsAdded,
    int filesRemoved,
    int filesAdded,
    long rowsRewritten,
    int indexSegmentsRemapped) {

  public static CompactionResult nothingToDo(Dataset dataset) {
    return new CompactionResult(dataset, false, 0, 0, 0, 0, 0, 0);
  }
}
