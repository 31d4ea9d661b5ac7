package dev.lancelot.spark.procedures;

import dev.lancelot.engine.InvalidInputException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StringType;

/**
 * The arguments of one {@code CALL} as Java values by parameter name ({@code String}, {@code Long},
 * {@code Boolean}; absent optional arguments are null). Spark hands them over in parameter order,
 * already cast to the parameters' types.
 */
public final class ProcedureArguments {
  private final Map<String, Object> values = new LinkedHashMap<>();

  ProcedureArguments(Parameter[] parameters, InternalRow input) {
    for (int i = 0; i < parameters.length; i++) {
      DataType type = parameters[i].dataType();
      Object v = input.isNullAt(i) ? null : input.get(i, type);
      values.put(parameters[i].name(), type instanceof StringType && v != null ? v.toString() : v);
    }
  }

  /** Whether argument {@code name} was given (not null). */
  public boolean has(String name) {
    return values.get(name) != null;
  }

  /** A string argument; a required one must be given and not blank. */
  public String string(String name) {
    Object v = values.get(name);
    if (v == null || v.toString().isBlank()) {
      throw new InvalidInputException("argument " + name + " must be a non-empty string.");
    }
    return v.toString();
  }

  /** An optional boolean argument, {@code otherwise} when absent. */
  public boolean bool(String name, boolean otherwise) {
    Object v = values.get(name);
    return v == null ? otherwise : (Boolean) v;
  }

  /**
   * The given arguments except {@code excluded}, by name, e.g. for the engine's {@code fromMap}
   * specs.
   */
  public Map<String, Object> given(String... excluded) {
    Map<String, Object> out = new LinkedHashMap<>();
    values.forEach(
        (k, v) -> {
          if (v != null && !java.util.List.of(excluded).contains(k)) {
            out.put(k, v);
          }
        });
    return out;
  }
}
