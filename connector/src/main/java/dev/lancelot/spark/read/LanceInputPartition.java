package dev.lancelot.spark.read;

import dev.lancelot.engine.ScanTask;
import org.apache.spark.sql.connector.read.InputPartition;

/**
 * One fragment (or row range of one) of one dataset version, with the hosts holding its data when
 * the store can say (HDFS: see {@link BlockHosts}), so that Spark runs the task where the data is.
 */
public record LanceInputPartition(String location, long version, ScanTask task, String[] hosts)
    implements InputPartition {
  public LanceInputPartition {
    hosts = hosts.clone();
  }

  @Override
  public String[] preferredLocations() {
    return hosts.clone();
  }
}
