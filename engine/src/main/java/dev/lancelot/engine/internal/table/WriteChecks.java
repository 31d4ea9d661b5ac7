package dev.lancelot.engine.internal.table;

import dev.lancelot.engine.LancelotException;
import dev.lancelot.engine.internal.format.FeatureFlags;
import dev.lancelot.engine.internal.format.proto.TableProtos.Manifest;

/** What must hold before anything is written on top of a version. */
public final class WriteChecks {
  private WriteChecks() {}

  /**
   * Throws unless lancelot may commit on top of {@code manifest} of the dataset at {@code root}:
   * every feature flag is one it writes, and the version is not on a branch (decision D47).
   */
  public static void check(String root, Manifest manifest) {
    FeatureFlags.checkWritable(
        root, manifest.getReaderFeatureFlags(), manifest.getWriterFeatureFlags());
    if (!manifest.getBranch().isEmpty()) {
      throw new LancelotException(
          "Cannot write to branch \""
              + manifest.getBranch()
              + "\" of "
              + Refs.mainRoot(root, manifest.getBranch())
              + ": lancelot reads branches but does not write to them yet (decision D47). "
              + "Write to the main branch, or to the branch with Lance.");
    }
  }
}
