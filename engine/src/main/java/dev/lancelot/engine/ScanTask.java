package dev.lancelot.engine;

import java.io.Serializable;

/**
 * A unit of scan work: rows {@code [startRow, endRow)} (physical offsets, deleted rows included) of
 * one fragment. Small and serializable so it can travel to a Spark executor.
 */
public record ScanTask(long fragmentId, long startRow, long endRow) implements Serializable {
  public ScanTask {
    if (startRow < 0 || endRow < startRow) {
      throw new IllegalArgumentException("Invalid row range [" + startRow + ", " + endRow + ")");
    }
  }

  public long physicalRows() {
    return endRow - startRow;
  }
}
