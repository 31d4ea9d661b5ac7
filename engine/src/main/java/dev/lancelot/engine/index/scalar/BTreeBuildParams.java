package dev.lancelot.engine.index.scalar;

import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.internal.index.scalar.btree.BTreeFiles;

/**
 * What {@link BTreeIndexBuilder} builds: a BTree on {@code column}, named {@code name} (default
 * {@code <column>_idx}, as Lance names it), replacing an index of that name only when {@code
 * replace} is set, with {@code pageSize} rows per page (Lance's default, 4,096).
 */
public record BTreeBuildParams(String column, String name, boolean replace, int pageSize) {
  public BTreeBuildParams {
    if (column == null || column.isBlank()) {
      throw new InvalidInputException("Cannot build a BTree index: no column given");
    }
    if (name == null || name.isBlank()) {
      throw new InvalidInputException(
          "Cannot build a BTree index on " + column + ": the index name is empty");
    }
    if (pageSize < 1) {
      throw new InvalidInputException(
          "Cannot build a BTree index on "
              + column
              + ": page size must be at least 1,"
              + " got "
              + pageSize);
    }
  }

  public static BTreeBuildParams of(String column) {
    return new BTreeBuildParams(column, column + "_idx", false, BTreeFiles.DEFAULT_BATCH_SIZE);
  }

  public BTreeBuildParams withName(String newName) {
    return new BTreeBuildParams(column, newName, replace, pageSize);
  }

  public BTreeBuildParams withReplace(boolean newReplace) {
    return new BTreeBuildParams(column, name, newReplace, pageSize);
  }

  public BTreeBuildParams withPageSize(int rows) {
    return new BTreeBuildParams(column, name, replace, rows);
  }
}
