package dev.lancelot.engine.index.scalar;

import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.internal.index.scalar.btree.BTreeFiles;
import java.util.List;
import java.util.Locale;

/**
 * What {@link ScalarIndexBuilder} (and {@link dev.lancelot.engine.distributed.ScalarIndexBuild})
 * builds: a scalar index of {@code type} on {@code column}, named {@code name} (default {@code
 * <column>_idx}, as Lance names it), replacing an index of that name only when {@code replace} is
 * set. The other components are the kind's own settings, with Lance 7's defaults: {@code pageSize}
 * rows per BTree page (4,096), {@code rowsPerZone} rows per zone-map zone (8,192), and per
 * bloom-filter zone {@code bloomItems} rows (8,192) with a filter sized for a false-positive {@code
 * bloomProbability} (0.00057).
 */
public record ScalarBuildParams(
    IndexType type,
    String column,
    String name,
    boolean replace,
    int pageSize,
    long rowsPerZone,
    long bloomItems,
    double bloomProbability) {

  /** The kinds lancelot builds. */
  public static final List<IndexType> BUILT =
      List.of(
          IndexType.BTREE,
          IndexType.BITMAP,
          IndexType.ZONEMAP,
          IndexType.BLOOM_FILTER,
          IndexType.LABEL_LIST,
          IndexType.NGRAM);

  public static final long DEFAULT_ROWS_PER_ZONE = 8192;
  public static final long DEFAULT_BLOOM_ITEMS = 8192;
  public static final double DEFAULT_BLOOM_PROBABILITY = 0.00057;

  public ScalarBuildParams {
    if (type == null || !BUILT.contains(type)) {
      throw new InvalidInputException(
          "Cannot build a scalar index of type "
              + type
              + (type != null && type.isVector() ? " (a vector index type)" : "")
              + ": lancelot builds "
              + names()
              + ".");
    }
    if (column == null || column.isBlank()) {
      throw new InvalidInputException("Cannot build a " + type + " index: no column given");
    }
    if (name == null || name.isBlank()) {
      throw new InvalidInputException(
          "Cannot build a " + type + " index on " + column + ": the index name is empty");
    }
    if (pageSize < 1) {
      throw new InvalidInputException(
          "Cannot build a BTree index on "
              + column
              + ": page size must be at least 1, got "
              + pageSize);
    }
    if (rowsPerZone < 1) {
      throw new InvalidInputException(
          "Cannot build a zone-map index on "
              + column
              + ": rows per zone must be at least 1, got "
              + rowsPerZone);
    }
    if (bloomItems < 1) {
      throw new InvalidInputException(
          "Cannot build a bloom-filter index on "
              + column
              + ": items per zone must be at least 1, got "
              + bloomItems);
    }
    if (!(bloomProbability > 0 && bloomProbability < 1)) {
      throw new InvalidInputException(
          "Cannot build a bloom-filter index on "
              + column
              + ": the false-positive probability must be between 0 and 1 (exclusive), got "
              + bloomProbability);
    }
  }

  /** An index of {@code type} on {@code column} with Lance's defaults. */
  public static ScalarBuildParams of(IndexType type, String column) {
    return new ScalarBuildParams(
        type,
        column,
        column + "_idx",
        false,
        BTreeFiles.DEFAULT_BATCH_SIZE,
        DEFAULT_ROWS_PER_ZONE,
        DEFAULT_BLOOM_ITEMS,
        DEFAULT_BLOOM_PROBABILITY);
  }

  /** The BTree build {@code p} asks for. */
  public static ScalarBuildParams of(BTreeBuildParams p) {
    return of(IndexType.BTREE, p.column())
        .withName(p.name())
        .withReplace(p.replace())
        .withPageSize(p.pageSize());
  }

  /**
   * The kind named by {@code name} (case-insensitive; Lance's and lance-spark's spellings: {@code
   * BTREE}, {@code BITMAP}, {@code ZONEMAP}, {@code BLOOM_FILTER} or {@code BLOOMFILTER}, {@code
   * LABEL_LIST} or {@code LABELLIST}, {@code NGRAM} or {@code N_GRAM}).
   *
   * @throws InvalidInputException for another name, naming the kinds lancelot builds
   */
  public static IndexType parseType(String name) {
    String n = name == null ? "" : name.trim().toUpperCase(Locale.ROOT).replace("-", "_");
    if (n.equals("BLOOMFILTER")) {
      n = "BLOOM_FILTER";
    } else if (n.equals("LABELLIST")) {
      n = "LABEL_LIST";
    } else if (n.equals("N_GRAM")) {
      n = "NGRAM";
    } else if (n.equals("ZONE_MAP")) {
      n = "ZONEMAP";
    }
    for (IndexType t : BUILT) {
      if (t.name().equals(n)) {
        return t;
      }
    }
    throw new InvalidInputException(
        "Cannot build a scalar index of type \""
            + name
            + "\": lancelot builds "
            + names()
            + (n.startsWith("IVF") ? " (vector indexes are built as vector indexes)" : "")
            + (n.equals("INVERTED")
                ? "; it reads and uses " + n + " indexes Lance builds, but does not build them"
                : "")
            + ".");
  }

  private static String names() {
    return String.join(", ", BUILT.stream().map(Enum::name).toList());
  }

  /** The BTree settings of this build. */
  public BTreeBuildParams btree() {
    return new BTreeBuildParams(column, name, replace, pageSize);
  }

  public ScalarBuildParams withName(String newName) {
    return new ScalarBuildParams(
        type, column, newName, replace, pageSize, rowsPerZone, bloomItems, bloomProbability);
  }

  public ScalarBuildParams withReplace(boolean newReplace) {
    return new ScalarBuildParams(
        type, column, name, newReplace, pageSize, rowsPerZone, bloomItems, bloomProbability);
  }

  public ScalarBuildParams withPageSize(int rows) {
    return new ScalarBuildParams(
        type, column, name, replace, rows, rowsPerZone, bloomItems, bloomProbability);
  }

  public ScalarBuildParams withRowsPerZone(long rows) {
    return new ScalarBuildParams(
        type, column, name, replace, pageSize, rows, bloomItems, bloomProbability);
  }

  public ScalarBuildParams withBloomFilter(long itemsPerZone, double probability) {
    return new ScalarBuildParams(
        type, column, name, replace, pageSize, rowsPerZone, itemsPerZone, probability);
  }
}
