package dev.lancelot.spark;

/**
 * SparkIndexBuildTest under Kryo with registration required: Spark index builds (IVF_PQ,
 * IVF_HNSW_SQ with its graph tasks, IVF_FLAT, optimize, retrain, CALL).
 */
@SharedSpark.WithKryo
class SparkIndexBuildKryoTest extends SparkIndexBuildTest {}
