package dev.lancelot.spark.procedures;

import org.apache.spark.sql.types.DataType;

/**
 * A parameter of a {@link LanceProcedure}, the same on every Spark line (D76).
 *
 * @param name its name, for named arguments ({@code name => value})
 * @param dataType the type its argument is cast to
 * @param defaultSql the SQL expression of its default value ({@code NULL} for most), or null when
 *     it is required
 */
public record Parameter(String name, DataType dataType, String defaultSql) {
  /** Whether an argument must be given for it. */
  public boolean required() {
    return defaultSql == null;
  }
}
