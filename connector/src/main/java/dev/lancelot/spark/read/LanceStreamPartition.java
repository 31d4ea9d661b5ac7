package dev.lancelot.spark.read;

import dev.lancelot.engine.distributed.ScanPlan;
import org.apache.spark.sql.connector.read.InputPartition;

/**
 * One piece of a micro-batch of the lance source: a fragment row range of one version, with the
 * scan planned on that version (a micro-batch may span several versions).
 */
record LanceStreamPartition(LanceInputPartition partition, ScanPlan plan)
    implements InputPartition {
  @Override
  public String[] preferredLocations() {
    return partition.preferredLocations();
  }
}
