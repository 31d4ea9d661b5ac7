package dev.lancelot.spark;

/** SparkFiltersBindOnceTest under Kryo with registration required. */
@SharedSpark.WithKryo
class SparkFiltersBindOnceKryoTest extends SparkFiltersBindOnceTest {}
