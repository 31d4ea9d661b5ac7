package dev.lancelot.spark;

/**
 * SparkSqlTablesTest under Kryo with registration required: every SQL statement on the lance
 * catalog.
 */
@SharedSpark.WithKryo
class SparkSqlTablesKryoTest extends SparkSqlTablesTest {}
