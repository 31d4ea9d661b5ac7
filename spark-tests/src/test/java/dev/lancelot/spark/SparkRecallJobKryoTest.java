package dev.lancelot.spark;

/** {@link SparkRecallJobTest} with Kryo, registration required. */
@SharedSpark.WithKryo
class SparkRecallJobKryoTest extends SparkRecallJobTest {}
