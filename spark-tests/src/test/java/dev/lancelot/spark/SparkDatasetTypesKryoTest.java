package dev.lancelot.spark;

/**
 * SparkDatasetTypesTest under Kryo with registration required: writes into a dataset's own types
 * whose task results cross Kryo.
 */
@SharedSpark.WithKryo
class SparkDatasetTypesKryoTest extends SparkDatasetTypesTest {}
