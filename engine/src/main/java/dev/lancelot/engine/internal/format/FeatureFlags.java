package dev.lancelot.engine.internal.format;

import dev.lancelot.engine.LancelotException;

/**
 * Manifest feature flags. A reader must refuse a dataset whose {@code reader_feature_flags} has a
 * bit it does not implement; a writer must refuse to commit on top of a manifest whose {@code
 * writer_feature_flags} has a bit it does not implement. Lance defines bits 1 to 2048 (its {@code
 * lance-table/src/feature_flags.rs}); every one of them is named here, supported or not, and any
 * higher bit is refused as unknown.
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

  /** Fragments carry data overlay files (new values for some cells); unstable in Lance. */
  public static final long DATA_OVERLAY_FILES = 64;

  /** Some index declares covering fields: its {@code fields} are keyed ones then carried ones. */
  public static final long COVERED_INDEX_METADATA = 128;

  /**
   * Data files of one snapshot may have different exact 2.x format versions; each is decoded by its
   * own version. Reader and writer bits are set together and stay set in later versions.
   */
  public static final long MIXED_DATA_FILE_VERSIONS = 256;

  /**
   * Stable row ids together with a fragment reuse index. Lance reserves the bit and refuses it
   * itself; lancelot refuses it by name.
   */
  public static final long FRAG_REUSE_WITH_STABLE_ROW_IDS = 512;

  /**
   * A fragment reuse index whose mappings readers must apply. Lance reserves the bit and refuses it
   * itself; lancelot refuses it by name.
   */
  public static final long FRAGMENT_REUSE_INDEX = 1024;

  /** The schema follows Lance's semantic type contract (tables created with format 2.3). */
  public static final long SEMANTIC_TYPES = 2048;

  /** Reader flags this project implements. */
  public static final long SUPPORTED_READER =
      DELETION_FILES
          | STABLE_ROW_IDS
          | USE_V2_FORMAT_DEPRECATED
          | TABLE_CONFIG
          | BASE_PATHS
          | DISABLE_TRANSACTION_FILE
          | MIXED_DATA_FILE_VERSIONS;

  /** Writer flags this project implements (it also keeps table config it does not interpret). */
  public static final long SUPPORTED_WRITER = SUPPORTED_READER & ~STABLE_ROW_IDS;

  /** Flags whose reader and writer bits Lance sets together and keeps in every later version. */
  public static final long STICKY_PAIRED = MIXED_DATA_FILE_VERSIONS | SEMANTIC_TYPES;

  private FeatureFlags() {}

  /**
   * Refuses a dataset whose reader flags name a feature lancelot does not implement, or whose
   * paired flags are half set.
   */
  public static void checkReadable(String location, long readerFlags, long writerFlags) {
    checkPaired(location, readerFlags, writerFlags);
    checkReadable(location, readerFlags);
  }

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

  /**
   * Refuses to write to a dataset whose writer flags name a feature lancelot does not implement, or
   * whose paired flags are half set.
   */
  public static void checkWritable(String location, long readerFlags, long writerFlags) {
    checkPaired(location, readerFlags, writerFlags);
    checkWritable(location, writerFlags);
  }

  public static void checkWritable(String location, long writerFlags) {
    checkWritable(location, writerFlags, 0, "");
  }

  /**
   * Refuses a write of {@code operation} to a dataset whose writer flags name a feature lancelot
   * does not implement for that operation: the flags of {@link #SUPPORTED_WRITER}, plus {@code
   * alsoSupported}, the ones the operation keeps consistent beyond those (stable row ids for
   * appends and deletes). An unsupported {@link #STABLE_ROW_IDS} is refused naming the operation.
   */
  public static void checkWritable(
      String location, long writerFlags, long alsoSupported, String operation) {
    long unknown = writerFlags & ~(SUPPORTED_WRITER | alsoSupported);
    if ((unknown & STABLE_ROW_IDS) != 0) {
      throw new LancelotException(
          "Cannot "
              + (operation.isEmpty() ? "write to" : operation)
              + " dataset "
              + location
              + ": it uses writer feature flag "
              + describe(STABLE_ROW_IDS)
              + ", and lancelot keeps stable row ids consistent only for appends and deletes so"
              + " far"
              + (operation.isEmpty() ? "" : "; a " + operation + " is refused")
              + " (decision D48). Run it with Lance itself.");
    }
    if (unknown != 0) {
      throw new LancelotException(
          "Cannot write to dataset "
              + location
              + ": it uses writer feature flags "
              + describe(unknown)
              + " that lancelot does not implement. Write to it with Lance itself.");
    }
  }

  /**
   * Refuses a manifest where one of the paired flags is set for readers but not for writers or the
   * other way round: Lance defines no meaning for that state.
   */
  public static void checkPaired(String location, long readerFlags, long writerFlags) {
    long halfSet = (readerFlags ^ writerFlags) & STICKY_PAIRED;
    if (halfSet != 0) {
      throw new CorruptFileException(
          location,
          "its manifest sets feature flag "
              + describe(halfSet)
              + " for "
              + ((readerFlags & halfSet) != 0
                  ? "readers but not writers"
                  : "writers but not readers")
              + "; Lance sets that flag for both or neither, so the manifest is corrupt");
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
      sb.append(Long.toUnsignedString(f)).append(" (").append(name(f)).append(')');
    }
    return sb.toString();
  }

  /** Lance's meaning of one flag bit, or "unknown". */
  public static String name(long flag) {
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
    } else if (flag == DATA_OVERLAY_FILES) {
      return "data overlay files";
    } else if (flag == COVERED_INDEX_METADATA) {
      return "covering index fields";
    } else if (flag == MIXED_DATA_FILE_VERSIONS) {
      return "mixed data file versions";
    } else if (flag == FRAG_REUSE_WITH_STABLE_ROW_IDS) {
      return "fragment reuse index with stable row ids";
    } else if (flag == FRAGMENT_REUSE_INDEX) {
      return "fragment reuse index";
    } else if (flag == SEMANTIC_TYPES) {
      return "semantic types";
    }
    return "unknown";
  }
}
