package dev.lancelot.spark;

/**
 * SparkVectorSearchTest under Kryo with registration required: searches from SQL (the table
 * function) and DataFrames, pre- and postfilter, batches.
 */
@SharedSpark.WithKryo
class SparkVectorSearchKryoTest extends SparkVectorSearchTest {}
