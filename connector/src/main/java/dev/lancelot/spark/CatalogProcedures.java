package dev.lancelot.spark;

import dev.lancelot.spark.procedures.Procedures;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.ProcedureCatalog;
import org.apache.spark.sql.connector.catalog.procedures.UnboundProcedure;

/**
 * The procedures of {@link LanceCatalog} ({@code CALL lance.system.…}), through Spark's stored
 * procedures ({@link ProcedureCatalog}, Spark 4.0 and later). {@link LanceCatalog} extends this
 * class, so it is a procedure catalog on the lines that have them.
 *
 * <p>A shim (D53): the Spark 3.5 line, which has no stored procedures, leaves this file and the
 * procedures package out and compiles its own class of this name.
 */
abstract class CatalogProcedures extends LancePathCatalog implements ProcedureCatalog {
  @Override
  public UnboundProcedure loadProcedure(Identifier ident) {
    return Procedures.load((LanceCatalog) this, ident);
  }

  // ProcedureCatalog.listProcedures exists from Spark 4.1 on (SHOW PROCEDURES); the 4.0 line
  // compiles this class too (D50), so no @Override.
  @SuppressWarnings("MissingOverride")
  public Identifier[] listProcedures(String[] namespace) {
    return Procedures.list(namespace);
  }
}
