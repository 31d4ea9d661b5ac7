package dev.lancelot.engine.internal.format;

import dev.lancelot.engine.LancelotException;

/**
 * Manifest feature flags. A reader must refuse a dataset whose {@code reader_feature_flags} has a
 * bit it does not implement; a writer must refuse to commit on top of a manifest whose {@code
 * writer_feature_flags} has a bit it does not implement.
 */
public final class FeatureFlags {
  /** Fragments may carry deletion files. */
  public static final long DELETION_FILES = 1;

  /** Stable row ids: fragments carry row-id sequences; indexes store row ids, not addresses. */
  public static final long STABLE_ROW_IDS = 2;

  /** Historic marker of v2 data files; no longer meaningful. */
  public static final long USE_V2_FORMAT_DEPRECATED = 4;

  /** The manifest carries table config. */
  public static final long TABLE_CONFIG = 8;

  /** Data may live under several base paths (shallow clones, multi-base datasets). */
  public static final long BASE_PATHS = 16;

  /** Transactions are only inline in the manifest, not under _transactions/. */
  public static final long DISABLE_TRANSACTION_FILE = 32;

  /** Reader flags this project implements. */
  public static final long SUPPORTED_READER =
      DELETION_FILES | STABLE_ROW_IDS | USE_V2_FORMAT_DEPRECATED | TABLE_CONFIG;

  /** Writer flags this project implements (it also keeps table config it does not interpret). */
  public static final long SUPPORTED_WRITER =
      DELETION_FILES | USE_V2_FORMAT_DEPRECATED | TABLE_CONFIG | DISABLE_TRANSACTION_FILE;

  private FeatureFlags() {}

  public static void checkReadable(String location, long readerFlags) {
    long unknown = readerFlags & ~SUPPORTED_READER;
    if (unknown != 0) {
      throw new LancelotException(
          "Cannot read dataset "
              + location
              + ": it uses reader feature flags "
              + describe(unknown)
              + " that lancelot does not implement. Rewrite the dataset without "
              + "those features (e.g. without stable row ids) or read it with Lance itself.");
    }
  }

  public static void checkWritable(String location, long writerFlags) {
    long unknown = writerFlags & ~SUPPORTED_WRITER;
    if (unknown != 0) {
      throw new LancelotException(
          "Cannot write to dataset "
              + location
              + ": it uses writer feature flags "
              + describe(unknown)
              + " that lancelot does not implement. Write to it with Lance itself.");
    }
  }

  /** Flags a manifest must carry given its content, as Lance computes them. */
  public static long readerFlagsFor(boolean hasDeletionFiles) {
    return hasDeletionFiles ? DELETION_FILES : 0;
  }

  public static String describe(long flags) {
    StringBuilder sb = new StringBuilder();
    for (int bit = 0; bit < 64; bit++) {
      long f = 1L << bit;
      if ((flags & f) == 0) {
        continue;
      }
      if (sb.length() > 0) {
        sb.append(", ");
      }
      sb.append(f).append(" (").append(name(f)).append(')');
    }
    return sb.toString();
  }

  private static String name(long flag) {
    if (flag == DELETION_FILES) {
      return "deletion files";
    } else if (flag == STABLE_ROW_IDS) {
      return "stable row ids";
    } else if (flag == USE_V2_FORMAT_DEPRECATED) {
      return "v2 format (deprecated)";
    } else if (flag == TABLE_CONFIG) {
      return "table config";
    } else if (flag == BASE_PATHS) {
      return "multiple base paths";
    } else if (flag == DISABLE_TRANSACTION_FILE) {
      return "inline transactions only";
    }
    return "unknown";
  }
}
