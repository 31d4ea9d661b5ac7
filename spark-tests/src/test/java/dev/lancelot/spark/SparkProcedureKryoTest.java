package dev.lancelot.spark;

/** SparkProcedureTest under Kryo with registration required: CTAS, CALL, searches by table name. */
@SharedSpark.WithKryo
class SparkProcedureKryoTest extends SparkProcedureTest {}
