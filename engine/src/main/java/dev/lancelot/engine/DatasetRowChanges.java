package dev.lancelot.engine;

import dev.lancelot.engine.expr.BoundPredicate;
import dev.lancelot.engine.internal.format.DeletionFiles;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFragment;
import dev.lancelot.engine.internal.table.Committer;
import dev.lancelot.engine.internal.table.Operation;
import dev.lancelot.engine.internal.table.Snapshot;
import dev.lancelot.engine.io.CommitOutcomeUnknownException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.roaringbitmap.RoaringBitmap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Row-level changes of a {@link Dataset} version: deletes by a filter, and the commit of changes
 * planned elsewhere (UPDATE, MERGE INTO), with the clean-up of deletion files no committed version
 * refers to. Package-private; {@link Dataset#delete} and {@link Dataset#commitRowChanges} delegate
 * here.
 */
final class DatasetRowChanges {
  private static final Logger LOG = LoggerFactory.getLogger(Dataset.class);

  private DatasetRowChanges() {}

  /**
   * Deletes the rows matching {@code filter} and returns the new version (this one when none
   * match).
   */
  static Dataset delete(Dataset dataset, String filter) {
    BoundPredicate bound = dataset.bindFilter(filter);
    Committer committer = dataset.committer();
    Optional<Operation> first = DeletePlanner.plan(dataset, bound);
    if (first.isEmpty()) {
      return dataset;
    }
    // Every plan writes deletion files; only the committed plan's files may stay.
    List<Operation> plans = new ArrayList<>(List.of(first.get()));
    Snapshot s;
    try {
      s =
          committer.commit(
              dataset.snapshot(),
              newer -> {
                Dataset d = new Dataset(dataset.context(), newer, false);
                Operation replanned =
                    DeletePlanner.plan(d, d.bindFilter(filter))
                        .orElse(new Operation.Delete(List.of(), List.of(), filter));
                plans.add(replanned);
                return replanned;
              },
              first.get());
    } catch (RuntimeException e) {
      if (!(e
          instanceof CommitOutcomeUnknownException)) { // else the version may refer to the files
        plans.forEach(p -> deleteDeletionFiles(dataset, p, e));
      }
      throw e;
    }
    // Committed: a failure to remove the superseded plans' files must not report the delete as
    // failed.
    plans.subList(0, plans.size() - 1).forEach(p -> deleteDeletionFiles(dataset, p, null));
    return new Dataset(dataset.context(), s, false);
  }

  /**
   * Commits row-level changes planned by reading this version (UPDATE, MERGE INTO, DELETE by a
   * condition only Spark evaluates) as one new version, Lance's {@code Update}: the rows in {@code
   * deletes} (fragment id to row offsets) get deletion files, {@code added} (written by {@link
   * dev.lancelot.engine.distributed.DistributedWrite}) become new fragments. A concurrent commit
   * that touched one of the same fragments fails it with {@link
   * dev.lancelot.engine.CommitConflictException}; concurrent appends and changes to other fragments
   * are rebased over. Returns this version when there is nothing to change.
   */
  static Dataset commitRowChanges(
      Dataset dataset, Map<Long, RoaringBitmap> deletes, List<FragmentMetadata> added) {
    Operation.Update op = RowChangesPlanner.plan(dataset, deletes, added);
    if (op.updatedFragments().isEmpty()
        && op.removedFragmentIds().isEmpty()
        && op.newFragments().isEmpty()) {
      return dataset;
    }
    Snapshot s;
    try {
      s = dataset.committer().commit(dataset.snapshot(), op);
    } catch (CommitOutcomeUnknownException e) {
      throw e; // the version may exist and refer to the deletion files: keep them
    } catch (RuntimeException e) {
      RowChangesPlanner.deletionFiles(op)
          .forEach(p -> dataset.context().io().delete(dataset.location() + "/" + p));
      throw e;
    }
    return new Dataset(dataset.context(), s, false);
  }

  /**
   * Removes the deletion files an uncommitted plan wrote; failures go to {@code failure}, or are
   * logged.
   */
  private static void deleteDeletionFiles(Dataset dataset, Operation op, RuntimeException failure) {
    if (op instanceof Operation.Delete d) {
      for (DataFragment f : d.updatedFragments()) {
        if (f.hasDeletionFile()) {
          String file =
              dataset.location() + "/" + DeletionFiles.relativePath(f.getId(), f.getDeletionFile());
          try {
            dataset.context().io().delete(file);
          } catch (RuntimeException e) {
            if (failure != null) {
              failure.addSuppressed(e);
            } else {
              LOG.warn(
                  "Could not remove {}, written by a plan that was not committed (harmless: no version refers "
                      + "to it): {}",
                  file,
                  e.getMessage());
            }
          }
        }
      }
    }
  }
}
