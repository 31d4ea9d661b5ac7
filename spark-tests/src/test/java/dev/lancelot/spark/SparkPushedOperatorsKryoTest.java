package dev.lancelot.spark;

/**
 * SparkPushedOperatorsTest under Kryo with registration required: pushed LIMIT, COUNT(*) from the
 * manifest and statistics.
 */
@SharedSpark.WithKryo
class SparkPushedOperatorsKryoTest extends SparkPushedOperatorsTest {}
