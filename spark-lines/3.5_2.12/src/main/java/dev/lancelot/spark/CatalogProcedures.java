package dev.lancelot.spark;

/**
 * Spark 3.5's stand-in for the Spark 4 lines' class of this name (D53, D76): Spark 3.5 has no
 * stored procedures ({@code org.apache.spark.sql.connector.catalog.procedures} came with Spark
 * 4.0), so {@link LanceCatalog} is no procedure catalog here; its procedures ({@code
 * dev.lancelot.spark.procedures}) run through the {@code CALL} statement of lancelot's parser
 * extension ({@code dev.lancelot.spark.shim.LanceParser}).
 */
abstract class CatalogProcedures extends LancePathCatalog {}
