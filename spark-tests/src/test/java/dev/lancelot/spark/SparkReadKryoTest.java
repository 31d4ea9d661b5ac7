package dev.lancelot.spark;

/** SparkReadTest under Kryo with registration required: reads with pushed filters. */
@SharedSpark.WithKryo
class SparkReadKryoTest extends SparkReadTest {}
