package dev.lancelot.spark;

/** SparkWriteTest under Kryo with registration required: writes in every save mode. */
@SharedSpark.WithKryo
class SparkWriteKryoTest extends SparkWriteTest {}
