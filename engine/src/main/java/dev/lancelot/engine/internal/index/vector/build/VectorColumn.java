package dev.lancelot.engine.internal.index.vector.build;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.schema.LanceField;
import dev.lancelot.engine.vector.VectorException;

/**
 * The vector column an index is built on: its field id (what {@code IndexMetadata.fields} records)
 * and dimension. Only {@code fixed_size_list<float32, dim>} columns are indexable here.
 */
public record VectorColumn(String name, int fieldId, int dimension) {
  private static final String PREFIX = "fixed_size_list:float:";

  public static VectorColumn resolve(Dataset dataset, String column, String action) {
    LanceField field =
        dataset
            .lanceSchema()
            .field(column)
            .orElseThrow(
                () ->
                    new InvalidInputException(
                        "Cannot "
                            + action
                            + ": the dataset has no column \""
                            + column
                            + "\". Columns: "
                            + dataset.lanceSchema().names()
                            + "."));
    String type = field.logicalType();
    if (!type.startsWith(PREFIX)) {
      throw new VectorException(
          "Cannot "
              + action
              + ": column \""
              + column
              + "\" has type "
              + type
              + ", but vector indexes need fixed_size_list<float32, dim> vectors. Index a float32 vector column, or"
              + " rewrite this column as fixed-size lists of float32.");
    }
    int dim;
    try {
      dim = Integer.parseInt(type.substring(PREFIX.length()));
    } catch (NumberFormatException e) {
      throw new IllegalStateException("malformed logical type " + type, e);
    }
    return new VectorColumn(column, field.id(), dim);
  }
}
