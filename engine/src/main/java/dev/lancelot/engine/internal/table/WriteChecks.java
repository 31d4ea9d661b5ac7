package dev.lancelot.engine.internal.table;

import dev.lancelot.engine.internal.format.FeatureFlags;
import dev.lancelot.engine.internal.format.proto.TableProtos.Manifest;

/** What must hold before anything is written on top of a version. */
public final class WriteChecks {
  private WriteChecks() {}

  /**
   * Throws unless lancelot may commit on top of {@code manifest} of the dataset at {@code root}:
   * every feature flag is one it writes for an operation of {@code kind}. A branch is written as
   * Lance writes it: its versions and new files under {@code tree/<branch>/} (decision D58).
   */
  public static void check(String root, Manifest manifest, OperationKind kind) {
    FeatureFlags.checkPaired(
        root, manifest.getReaderFeatureFlags(), manifest.getWriterFeatureFlags());
    FeatureFlags.checkWritable(
        root,
        manifest.getWriterFeatureFlags(),
        keepsStableRowIds(kind) ? FeatureFlags.STABLE_ROW_IDS : 0,
        kind.displayName());
  }

  /**
   * Whether lancelot keeps stable row ids (flag 2) consistent for operations of {@code kind}:
   * appends give new fragments fresh ids from {@code next_row_id}, deletes keep every fragment's
   * sequence, index builds store the ids (decision D48), compaction gives the rewritten fragments
   * the ids of the rows they hold, schema and config changes keep every fragment's ids, a restore
   * keeps the restored version's, an overwrite gives its rows fresh ids, and row-level changes
   * (updates, merges) keep the id of each row they rewrite and give new rows fresh ids (decision
   * D56): every operation lancelot writes.
   */
  public static boolean keepsStableRowIds(OperationKind kind) {
    return kind == OperationKind.APPEND
        || kind == OperationKind.DELETE
        || kind == OperationKind.CREATE_INDEX
        || kind == OperationKind.REWRITE
        || kind == OperationKind.PROJECT
        || kind == OperationKind.MERGE
        || kind == OperationKind.UPDATE_CONFIG
        || kind == OperationKind.RESTORE
        || kind == OperationKind.OVERWRITE
        || kind == OperationKind.UPDATE;
  }
}
