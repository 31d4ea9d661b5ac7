package dev.lancelot.spark.read;

import org.apache.spark.sql.connector.read.InputPartition;

/** A piece of a change feed: rows of one fragment at one version, their change and version. */
record LanceChangePartition(LanceStreamPartition rows, String changeType, long commitVersion)
    implements InputPartition {
  @Override
  public String[] preferredLocations() {
    return rows.preferredLocations();
  }
}
