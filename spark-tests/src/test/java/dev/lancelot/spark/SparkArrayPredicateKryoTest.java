package dev.lancelot.spark;

/** SparkArrayPredicateTest under Kryo with registration required. */
@SharedSpark.WithKryo
class SparkArrayPredicateKryoTest extends SparkArrayPredicateTest {}
