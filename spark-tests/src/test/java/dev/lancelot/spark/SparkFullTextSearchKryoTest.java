package dev.lancelot.spark;

/**
 * SparkFullTextSearchTest under Kryo with registration required: the tasks and their results travel
 * as bytes through any serializer.
 */
@SharedSpark.WithKryo
class SparkFullTextSearchKryoTest extends SparkFullTextSearchTest {}
