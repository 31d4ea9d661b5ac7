package dev.lancelot.spark;

/** SparkMaintenanceProcedureTest under Kryo with registration required. */
@SharedSpark.WithKryo
class SparkMaintenanceProcedureKryoTest extends SparkMaintenanceProcedureTest {}
