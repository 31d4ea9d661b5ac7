package dev.lancelot.engine;

import java.util.List;

/**
 * One fragment of a version: its id, the rows written, the rows deleted since, and its data files
 * (paths as the manifest records them: relative to {@code data/} of the dataset root or of the base
 * path a file lives under), with their fully-qualified locations in the same order.
 */
public record FragmentInfo(
    long id,
    long physicalRows,
    long deletedRows,
    List<String> dataFiles,
    List<String> dataFileLocations) {
  public FragmentInfo {
    dataFiles = List.copyOf(dataFiles);
    dataFileLocations = List.copyOf(dataFileLocations);
  }

  public long rows() {
    return physicalRows - deletedRows;
  }
}
