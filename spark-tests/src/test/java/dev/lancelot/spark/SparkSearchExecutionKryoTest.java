package dev.lancelot.spark;

/**
 * SparkSearchExecutionTest under Kryo with registration required: unit results with their read
 * counters reach the driver, metrics, the executor cache and SQL over the search.
 */
@SharedSpark.WithKryo
class SparkSearchExecutionKryoTest extends SparkSearchExecutionTest {}
