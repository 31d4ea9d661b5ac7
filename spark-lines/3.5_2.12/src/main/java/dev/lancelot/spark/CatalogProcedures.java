package dev.lancelot.spark;

/**
 * Spark 3.5's stand-in for the Spark 4 lines' class of this name (D53): Spark 3.5 has no stored
 * procedures ({@code org.apache.spark.sql.connector.catalog.procedures} came with Spark 4.0), so
 * {@link LanceCatalog} is no procedure catalog here, and {@code CALL} fails with an error naming
 * the line ({@code dev.lancelot.spark.shim.CallRefusingParser}). The operations of the procedures
 * have DataFrame entry points on every line ({@code LanceIndexBuilder}, {@code LanceVectorSearch},
 * the engine's {@code Dataset}).
 */
abstract class CatalogProcedures extends LancePathCatalog {}
