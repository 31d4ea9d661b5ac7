package dev.lancelot.spark;

/** SparkRowLevelTest under Kryo with registration required: row-level task results cross Kryo. */
@SharedSpark.WithKryo
class SparkRowLevelKryoTest extends SparkRowLevelTest {}
