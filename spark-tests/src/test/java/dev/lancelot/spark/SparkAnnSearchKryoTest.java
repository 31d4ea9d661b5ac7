package dev.lancelot.spark;

/**
 * SparkAnnSearchTest under Kryo with registration required: DataFrame searches on an index with
 * prefilter and postfilter, batches and recall.
 */
@SharedSpark.WithKryo
class SparkAnnSearchKryoTest extends SparkAnnSearchTest {}
