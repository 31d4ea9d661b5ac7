package dev.lancelot.engine;

import dev.lancelot.engine.schema.LanceField;
import dev.lancelot.engine.schema.LanceSchema;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/** Whether data can be appended to a dataset: same columns (any order) with the same types. */
final class SchemaCompatibility {
  private SchemaCompatibility() {}

  static LanceSchema forAppend(String location, LanceSchema dataset, Schema data) {
    List<String> problems = new ArrayList<>();
    for (Field f : data.getFields()) {
      Optional<LanceField> existing = dataset.field(f.getName());
      if (existing.isEmpty()) {
        problems.add("column \"" + f.getName() + "\" is not in the dataset");
        continue;
      }
      Field expected = existing.get().toArrow();
      if (!sameType(expected, f)) {
        problems.add(
            "column \""
                + f.getName()
                + "\" is "
                + describe(f)
                + " in the data but "
                + describe(expected)
                + " in the dataset");
      }
    }
    for (LanceField f : dataset.fields()) {
      if (data.getFields().stream().noneMatch(d -> d.getName().equals(f.name()))) {
        problems.add("column \"" + f.name() + "\" of the dataset is missing from the data");
      }
    }
    if (!problems.isEmpty()) {
      throw new SchemaMismatchException(
          "Cannot append to "
              + location
              + ": the data's schema does not match the "
              + "dataset's: "
              + String.join("; ", problems)
              + ". Dataset schema: "
              + dataset
              + ". Cast the data to the dataset's schema, or overwrite the dataset.");
    }
    return dataset;
  }

  static boolean sameType(Field a, Field b) {
    if (!a.getType().equals(b.getType()) || a.getChildren().size() != b.getChildren().size()) {
      return false;
    }
    for (int i = 0; i < a.getChildren().size(); i++) {
      Field ca = a.getChildren().get(i);
      Field cb = b.getChildren().get(i);
      boolean listItem =
          a.getType() instanceof org.apache.arrow.vector.types.pojo.ArrowType.FixedSizeList
              || a.getType() instanceof org.apache.arrow.vector.types.pojo.ArrowType.List
              || a.getType() instanceof org.apache.arrow.vector.types.pojo.ArrowType.LargeList;
      if (!listItem && !ca.getName().equals(cb.getName())) {
        return false;
      }
      if (!sameType(ca, cb)) {
        return false;
      }
    }
    return true;
  }

  private static String describe(Field f) {
    StringBuilder sb = new StringBuilder(f.getType().toString());
    if (!f.getChildren().isEmpty()) {
      sb.append('<');
      for (int i = 0; i < f.getChildren().size(); i++) {
        if (i > 0) {
          sb.append(", ");
        }
        sb.append(describe(f.getChildren().get(i)));
      }
      sb.append('>');
    }
    return sb.toString();
  }
}
