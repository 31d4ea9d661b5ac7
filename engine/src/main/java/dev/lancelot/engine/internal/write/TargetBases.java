package dev.lancelot.engine.internal.write;

import dev.lancelot.engine.BasePathInfo;
import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.internal.table.DatasetPaths;
import dev.lancelot.engine.internal.table.Snapshot;
import java.util.List;
import java.util.Optional;

/**
 * Where a write naming a target base puts its new data files: a base the version registers, by name
 * or path (decisions D58, D68). Every writer of new data files resolves its target here, so a
 * write, a compaction and a column backfill accept and refuse the same names.
 */
public final class TargetBases {
  private TargetBases() {}

  /**
   * The directory and base id of base {@code wanted} of {@code version} (a dataset-root base's
   * {@code data/}, else the base's directory), or {@link FragmentWriter.Target#ROOT} when {@code
   * wanted} is null. {@code action} starts the error ("Cannot compact ...").
   *
   * @throws InvalidInputException no base of that name or path, naming the bases there are
   */
  public static FragmentWriter.Target resolve(
      String root, Optional<Snapshot> version, String wanted, String action) {
    return resolve(
        root,
        version.map(s -> s.bases().infos()).orElse(List.of()),
        version.isPresent(),
        wanted,
        action);
  }

  /**
   * As {@link #resolve(String, Optional, String, String)}, among {@code bases} (a create's initial
   * bases when {@code exists} is false).
   */
  public static FragmentWriter.Target resolve(
      String root, List<BasePathInfo> bases, boolean exists, String wanted, String action) {
    if (wanted == null) {
      return FragmentWriter.Target.ROOT;
    }
    for (BasePathInfo b : bases) {
      if (b.matches(wanted)) {
        String dir = b.datasetRoot() ? b.location() + "/" + DatasetPaths.DATA : b.location();
        return new FragmentWriter.Target(dir, b.id());
      }
    }
    throw new InvalidInputException(
        action
            + " to base \""
            + wanted
            + "\" of "
            + root
            + ": "
            + (bases.isEmpty()
                ? (!exists
                        ? "the dataset does not exist yet"
                        : "the dataset registers no base paths")
                    + " (bases are registered when a dataset is created: WriteOptions"
                    + ".withInitialBases)"
                : "the dataset's bases are "
                    + bases.stream().map(b -> b.name().orElse("") + "=" + b.path()).toList())
            + ". Name a registered base by its name or path, or write without a target base.");
  }
}
