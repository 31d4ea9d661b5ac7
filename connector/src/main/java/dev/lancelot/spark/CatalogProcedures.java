package dev.lancelot.spark;

import dev.lancelot.spark.procedures.LanceProcedure;
import dev.lancelot.spark.procedures.Parameter;
import dev.lancelot.spark.procedures.Procedures;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.ProcedureCatalog;
import org.apache.spark.sql.connector.catalog.procedures.BoundProcedure;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.connector.catalog.procedures.UnboundProcedure;
import org.apache.spark.sql.connector.read.LocalScan;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.types.StructType;

/**
 * The procedures of {@link LanceCatalog} ({@code CALL lance.system.…}), through Spark's stored
 * procedures ({@link ProcedureCatalog}, Spark 4.0 and later). {@link LanceCatalog} extends this
 * class, so it is a procedure catalog on the lines that have them.
 *
 * <p>A shim (D53, D76): the Spark 3.5 line, which has no stored procedures, compiles its own class
 * of this name, and runs the same {@link LanceProcedure}s through the {@code CALL} statement of its
 * parser extension.
 */
abstract class CatalogProcedures extends LancePathCatalog implements ProcedureCatalog {
  @Override
  public UnboundProcedure loadProcedure(Identifier ident) {
    return new StoredProcedure(Procedures.load((LanceCatalog) this, ident));
  }

  // ProcedureCatalog.listProcedures exists from Spark 4.1 on (SHOW PROCEDURES); the 4.0 line
  // compiles this class too (D50), so no @Override.
  @SuppressWarnings("MissingOverride")
  public Identifier[] listProcedures(String[] namespace) {
    return Procedures.list(namespace);
  }

  /**
   * A {@link LanceProcedure} as Spark's stored procedure. It has no overloads, so it is its own
   * bound procedure; Spark orders the arguments and casts them to the parameters' types before
   * {@link #call}.
   */
  private record StoredProcedure(LanceProcedure procedure)
      implements UnboundProcedure, BoundProcedure {
    @Override
    public String name() {
      return procedure.name();
    }

    @Override
    public String description() {
      return procedure.description();
    }

    @Override
    public BoundProcedure bind(StructType inputType) {
      procedure.bind(inputType);
      return this;
    }

    @Override
    public ProcedureParameter[] parameters() {
      return Arrays.stream(procedure.parameters())
          .map(StoredProcedure::parameter)
          .toArray(ProcedureParameter[]::new);
    }

    @Override
    public boolean isDeterministic() {
      return false;
    }

    @Override
    public Iterator<Scan> call(InternalRow input) {
      List<InternalRow> rows = procedure.execute(input);
      return List.<Scan>of(new Result(procedure.outputType(), rows.toArray(new InternalRow[0])))
          .iterator();
    }

    private static ProcedureParameter parameter(Parameter p) {
      ProcedureParameter.Builder b = ProcedureParameter.in(p.name(), p.dataType());
      return p.required() ? b.build() : b.defaultValue(p.defaultSql()).build();
    }
  }

  /** The rows of a procedure's result. */
  private record Result(StructType readSchema, InternalRow[] rows) implements LocalScan {
    @Override
    public String description() {
      return "ProcedureResult";
    }
  }
}
