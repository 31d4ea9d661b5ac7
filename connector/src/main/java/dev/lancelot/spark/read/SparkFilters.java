package dev.lancelot.spark.read;

import dev.lancelot.engine.expr.BoundPredicate;
import dev.lancelot.engine.expr.Predicates;
import java.util.HashMap;
import java.util.Map;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Which columns of a table Spark predicates may be pushed on. The translation itself is {@link
 * SparkPredicates} (Spark's V2 predicates).
 */
public final class SparkFilters {
  private SparkFilters() {}

  /**
   * The top-level columns of {@code schema} the engine can filter on: scalar columns it evaluates
   * (no vectors, lists or structs), by name.
   */
  public static Map<String, Field> filterableColumns(Schema schema) {
    Map<String, Field> filterable = new HashMap<>();
    for (Field f : schema.getFields()) {
      if (BoundPredicate.canEvaluate(Predicates.isNotNull(f.getName()), schema)
          && !(f.getType() instanceof ArrowType.FixedSizeList
              || f.getType() instanceof ArrowType.List
              || f.getType() instanceof ArrowType.LargeList
              || f.getType() instanceof ArrowType.Struct)) {
        filterable.put(f.getName(), f);
      }
    }
    return filterable;
  }
}
