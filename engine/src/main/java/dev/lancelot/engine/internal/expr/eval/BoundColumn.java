package dev.lancelot.engine.internal.expr.eval;

import java.util.List;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * A column reference resolved against a schema.
 *
 * @param slot index among the columns of one bound predicate
 * @param path names from the top-level column down to the field, as spelled in the schema
 * @param field the field at the end of the path
 * @param kind how filters read it
 */
public record BoundColumn(int slot, List<String> path, Field field, ColumnKind kind) {
  public BoundColumn {
    path = List.copyOf(path);
  }

  public String topLevelName() {
    return path.get(0);
  }

  /** The path as one dotted string, for messages. */
  public String displayName() {
    return String.join(".", path);
  }
}
