package dev.lancelot.engine;

import java.util.List;

/**
 * One fragment of a version: its id, the rows written, the rows deleted since, and its data files
 * (paths relative to {@code data/}).
 */
public record FragmentInfo(long id, long physicalRows, long deletedRows, List<String> dataFiles) {
  public FragmentInfo {
    dataFiles = List.copyOf(dataFiles);
  }

  public long rows() {
    return physicalRows - deletedRows;
  }
}
