package dev.lancelot.spark.read;

import java.util.OptionalLong;
import org.apache.spark.sql.connector.read.Statistics;

/**
 * What a lance scan tells Spark's planner, from the manifest alone: {@code sizeInBytes}, the bytes
 * of the data files holding the scanned columns (whole files: Lance records no per-column sizes in
 * the manifest), and {@code numRows}, physical minus deleted rows (capped by a pushed limit),
 * unknown under a filter. No column statistics: the manifest has none.
 */
record ScanStatistics(OptionalLong sizeInBytes, OptionalLong numRows) implements Statistics {}
