package dev.lancelot.spark;

/**
 * SparkQueryFrameSearchTest under Kryo with registration required: query blocks, the shuffle of
 * candidates by query and the carried columns.
 */
@SharedSpark.WithKryo
class SparkQueryFrameSearchKryoTest extends SparkQueryFrameSearchTest {}
