package dev.lancelot.engine;

import dev.lancelot.engine.internal.table.DatasetContext;
import dev.lancelot.engine.internal.table.Operation;
import dev.lancelot.engine.internal.table.OperationKind;
import dev.lancelot.engine.internal.table.Snapshot;
import dev.lancelot.engine.internal.table.VersionLog;
import dev.lancelot.engine.internal.table.WriteChecks;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Restores an old version of a {@link Dataset} (Lance's {@code Restore}, decision D55): the new
 * latest version carries the old version's manifest content and index section. Package-private;
 * {@link Dataset#restore(long)} and {@link Dataset#versionAt(Instant)} delegate here. Every check
 * runs before anything is written, so a refused restore leaves the dataset as it was.
 */
final class DatasetRestore {
  private DatasetRestore() {}

  /** Commits version {@code version} of {@code dataset}'s branch as its new latest version. */
  static Dataset restore(Dataset dataset, long version) {
    DatasetContext ctx = dataset.context();
    List<VersionLog.Entry> all = VersionLog.list(ctx.io(), ctx.paths());
    if (all.isEmpty()) {
      throw DatasetStorage.notFound(ctx.paths());
    }
    // A branch, or feature flags lancelot does not write, refuse before the version is looked up.
    Snapshot latest = DatasetStorage.readSnapshot(ctx, all.get(all.size() - 1));
    WriteChecks.check(ctx.paths().root(), latest.manifest(), OperationKind.RESTORE);
    if (all.stream().noneMatch(e -> e.version() == version)) {
      throw new InvalidInputException(
          "Cannot restore version "
              + version
              + " of "
              + dataset.location()
              + ": no such version"
              + (version < all.get(0).version()
                  ? " (versions before " + all.get(0).version() + " were removed by cleanup)"
                  : "")
              + ". Available versions: "
              + DatasetStorage.availableVersions(all)
              + ".");
    }
    Snapshot old = version == latest.version() ? latest : DatasetStorage.loadVersion(ctx, version);
    // The restored content must be something lancelot writes too.
    WriteChecks.check(ctx.paths().root(), old.manifest(), OperationKind.RESTORE);
    Snapshot s =
        dataset
            .committer()
            .commit(latest, new Operation.Restore(version, old.manifest(), old.indices()));
    return new Dataset(ctx, s, false);
  }

  /**
   * The latest version committed at or before {@code timestamp} (by the timestamps the versions'
   * manifests record).
   */
  static long versionAt(Dataset dataset, Instant timestamp) {
    Instant now = Instant.now();
    if (timestamp.isAfter(now)) {
      throw new InvalidInputException(
          "Cannot find the version of "
              + dataset.location()
              + " as of "
              + timestamp
              + ": that time is in the future (now is "
              + now
              + "). Give a past time, or a version number.");
    }
    List<VersionInfo> versions = DatasetStorage.versions(dataset.context());
    if (versions.isEmpty()) {
      throw DatasetStorage.notFound(dataset.context().paths());
    }
    Optional<VersionInfo> at =
        versions.stream()
            .filter(v -> !v.timestamp().isAfter(timestamp))
            .reduce((a, b) -> b.version() > a.version() ? b : a);
    if (at.isEmpty()) {
      throw new InvalidInputException(
          "Cannot find the version of "
              + dataset.location()
              + " as of "
              + timestamp
              + ": no version was committed at or before that time (the oldest kept version, "
              + versions.get(0).version()
              + ", was committed at "
              + versions.get(0).timestamp()
              + "). Give a later time, or a version number.");
    }
    return at.get().version();
  }
}
