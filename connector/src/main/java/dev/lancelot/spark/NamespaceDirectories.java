package dev.lancelot.spark;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.LancelotException;
import dev.lancelot.engine.io.FileEntry;
import dev.lancelot.engine.io.HadoopFileIO;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The directory side of {@link LanceCatalog}'s namespaces: listing, creating and dropping them. */
final class NamespaceDirectories {
  private static final Logger LOG = LoggerFactory.getLogger(NamespaceDirectories.class);
  private static final String TABLE_SUFFIX = LanceCatalog.TABLE_SUFFIX;

  private NamespaceDirectories() {}

  /** Whether {@code dir} is an existing directory. */
  static boolean exists(String dir, Configuration conf) {
    Path path = new Path(dir);
    try {
      return path.getFileSystem(conf).getFileStatus(path).isDirectory();
    } catch (java.io.FileNotFoundException e) {
      return false;
    } catch (IOException e) {
      throw new LancelotException("Cannot read directory " + dir + ": " + e.getMessage(), e);
    }
  }

  /** The namespaces directly under {@code dir} (namespace {@code namespace}), sorted by name. */
  static String[][] children(String dir, String[] namespace, Configuration conf) {
    List<String[]> out = new ArrayList<>();
    for (FileEntry e : new HadoopFileIO(conf).list(dir)) {
      if (e.isDirectory()
          && !e.name().endsWith(TABLE_SUFFIX)
          && !e.name().startsWith(".")
          && !e.name().startsWith("_")) {
        String[] child = java.util.Arrays.copyOf(namespace, namespace.length + 1);
        child[namespace.length] = e.name();
        out.add(child);
      }
    }
    out.sort((a, b) -> a[a.length - 1].compareTo(b[b.length - 1]));
    return out.toArray(new String[0][]);
  }

  /** Creates namespace directory {@code dir} ({@code label} names the namespace in errors). */
  static void create(String dir, String label, Configuration conf) {
    Path path = new Path(dir);
    try {
      path.getFileSystem(conf).mkdirs(path);
    } catch (IOException e) {
      throw new LancelotException(
          "Cannot create namespace " + label + " at " + dir + ": " + e.getMessage(), e);
    }
  }

  /**
   * Deletes namespace directory {@code dir}: an empty one at once; one holding tables or namespaces
   * only with {@code cascade}, which deletes every table (dataset) and namespace under it. A
   * directory holding anything else (files, or directories that are neither) is never deleted: the
   * call fails naming them, before anything is deleted. False when there is no such directory.
   *
   * @param prefix the namespace as a dotted name ({@code db}), for the tables' names
   * @param label the namespace with its catalog ({@code lance.db}), for messages
   */
  static boolean drop(
      String dir, String prefix, String label, boolean cascade, Configuration conf) {
    if (!exists(dir, conf)) {
      return false;
    }
    List<String> tables = new ArrayList<>();
    List<String> foreign = new ArrayList<>();
    walk(new HadoopFileIO(conf), dir, prefix, conf, tables, foreign);
    java.util.Collections.sort(tables);
    if (!foreign.isEmpty()) {
      throw new InvalidInputException(
          "Cannot drop namespace "
              + label
              + ": its directory "
              + dir
              + " holds entries that are neither tables nor namespaces ("
              + String.join(", ", foreign.subList(0, Math.min(10, foreign.size())))
              + (foreign.size() > 10 ? ", ... " + foreign.size() + " in all" : "")
              + "). Move or delete them first; nothing was dropped.");
    }
    if (!cascade && !new HadoopFileIO(conf).list(dir).isEmpty()) {
      throw new InvalidInputException(
          "Cannot drop namespace "
              + label
              + ": it is not empty (tables "
              + tables
              + "). Drop its tables first, or use DROP NAMESPACE "
              + label
              + " CASCADE to drop them with it.");
    }
    Path path = new Path(dir);
    try {
      if (!path.getFileSystem(conf).delete(path, true)) {
        throw new LancelotException("Cannot drop namespace " + label + ": " + dir + " remains");
      }
    } catch (IOException e) {
      throw new LancelotException(
          "Cannot drop namespace " + label + " at " + dir + ": " + e.getMessage(), e);
    }
    LOG.info("Dropped namespace {} ({}), with tables {}", label, dir, tables);
    return true;
  }

  /**
   * Tables (datasets) under {@code dir}, as dotted names, and entries that are neither tables nor
   * namespaces (files, directories named like tables that hold no dataset, hidden directories).
   */
  private static void walk(
      HadoopFileIO io,
      String dir,
      String prefix,
      Configuration conf,
      List<String> tables,
      List<String> foreign) {
    for (FileEntry e : io.list(dir)) {
      if (!e.isDirectory()) {
        foreign.add(e.location());
      } else if (e.name().endsWith(TABLE_SUFFIX)) {
        if (Dataset.exists(e.location(), conf)) {
          tables.add(
              prefix + "." + e.name().substring(0, e.name().length() - TABLE_SUFFIX.length()));
        } else {
          foreign.add(e.location());
        }
      } else if (e.name().startsWith(".") || e.name().startsWith("_")) {
        foreign.add(e.location());
      } else {
        walk(io, e.location(), prefix + "." + e.name(), conf, tables, foreign);
      }
    }
  }
}
