package dev.lancelot.spark.read;

import dev.lancelot.engine.ScanTask;
import org.apache.spark.sql.connector.read.InputPartition;

/** One fragment (or row range of one) of one dataset version. */
public record LanceInputPartition(String location, long version, ScanTask task) implements InputPartition {}
