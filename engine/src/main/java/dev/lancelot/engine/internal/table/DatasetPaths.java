package dev.lancelot.engine.internal.table;

import dev.lancelot.engine.LancelotException;
import dev.lancelot.engine.io.HadoopFileIO;
import java.net.URI;
import org.apache.hadoop.conf.Configuration;

/**
 * Locations inside a dataset root. All results are fully-qualified URIs without a trailing slash.
 */
public record DatasetPaths(String root) {
  public static final String VERSIONS = "_versions";
  public static final String DATA = "data";
  public static final String TRANSACTIONS = "_transactions";
  public static final String INDICES = "_indices";
  public static final String HINT = "latest_version_hint.json";

  public static DatasetPaths of(String location) {
    return new DatasetPaths(HadoopFileIO.qualify(location));
  }

  /**
   * The paths of {@code location} qualified under {@code conf} (see {@link
   * HadoopFileIO#qualify(String, Configuration)}).
   */
  public static DatasetPaths of(String location, Configuration conf) {
    return new DatasetPaths(HadoopFileIO.qualify(location, conf));
  }

  public String versionsDir() {
    return root + "/" + VERSIONS;
  }

  public String dataDir() {
    return root + "/" + DATA;
  }

  public String transactionsDir() {
    return root + "/" + TRANSACTIONS;
  }

  public String versionHint() {
    return versionsDir() + "/" + HINT;
  }

  public String transactionFile(String fileName) {
    return transactionsDir() + "/" + fileName;
  }

  public String indexDir(String uuid) {
    return root + "/" + INDICES + "/" + uuid;
  }

  /**
   * Resolves a data file path as recorded in the manifest (relative to {@code data/}). Paths that
   * are absolute or climb out of the dataset root are refused (F6).
   */
  public String dataFile(String relativePath) {
    return resolveInside(DATA, relativePath, "data file");
  }

  /** Resolves {@code relative} under {@code dir}, refusing anything that escapes the root. */
  public String resolveInside(String dir, String relative, String what) {
    return join(root + "/" + dir, relative, what);
  }

  /**
   * Resolves {@code relative} under the fully-qualified directory {@code dir} (of the root or of
   * another base path), refusing anything absolute or climbing out of it.
   */
  public String join(String dir, String relative, String what) {
    if (relative.isEmpty()
        || relative.startsWith("/")
        || relative.startsWith("\\")
        || relative.contains("\\")
        || hasScheme(relative)) {
      throw escape(dir, what, relative);
    }
    for (String part : relative.split("/", -1)) {
      if (part.equals("..") || part.equals(".") || part.isEmpty()) {
        throw escape(dir, what, relative);
      }
    }
    return dir + "/" + relative;
  }

  private static boolean hasScheme(String path) {
    try {
      URI uri = new URI(path);
      return uri.getScheme() != null;
    } catch (Exception e) {
      return path.contains(":");
    }
  }

  private LancelotException escape(String dir, String what, String path) {
    return new LancelotException(
        "Cannot read dataset "
            + root
            + ": the manifest lists "
            + what
            + " path \""
            + path
            + "\", which escapes "
            + (dir.equals(root) || dir.startsWith(root + "/")
                ? "the dataset root"
                : "its base path " + dir)
            + ". The manifest is corrupt or crafted; refusing to follow it.");
  }
}
