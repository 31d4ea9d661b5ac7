package dev.lancelot.spark;

/**
 * SparkAlterTableTest under Kryo with registration required: add_columns' task results cross Kryo.
 */
@SharedSpark.WithKryo
class SparkAlterTableKryoTest extends SparkAlterTableTest {}
