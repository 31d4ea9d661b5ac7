package dev.lancelot.spark.write;

import dev.lancelot.spark.LanceTable;
import dev.lancelot.spark.read.MetadataColumns;
import org.apache.spark.sql.connector.expressions.Expressions;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.write.DeltaWrite;
import org.apache.spark.sql.connector.write.DeltaWriteBuilder;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.SupportsDelta;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * UPDATE, MERGE INTO and DELETE (when the engine cannot evaluate the condition itself) as a
 * delta-based row-level operation: Spark scans the table's version with its {@code _rowaddr},
 * decides each row's fate, and hands the writers deletes (by row address) and new rows (inserted,
 * or the new version of an updated row). The driver commits it all as one version, Lance's {@code
 * Update} (docs/decisions.md D27).
 */
public final class LanceRowLevelOperation implements SupportsDelta {
  private final LanceTable table;
  private final Command command;

  public LanceRowLevelOperation(LanceTable table, Command command) {
    this.table = table;
    this.command = command;
  }

  @Override
  public Command command() {
    return command;
  }

  @Override
  public String description() {
    return command + " " + table.name();
  }

  /** Reads the version the table was loaded at; the commit is planned against the same version. */
  @Override
  public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
    return table.newScanBuilder(options);
  }

  @Override
  public NamedReference[] rowId() {
    return new NamedReference[] {Expressions.column(MetadataColumns.ROW_ADDRESS)};
  }

  @Override
  public DeltaWriteBuilder newWriteBuilder(LogicalWriteInfo info) {
    return new DeltaWriteBuilder() {
      @Override
      public DeltaWrite build() {
        return new LanceDeltaWrite(table, info, command);
      }
    };
  }
}
