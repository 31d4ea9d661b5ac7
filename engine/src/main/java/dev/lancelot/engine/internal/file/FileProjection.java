package dev.lancelot.engine.internal.file;

import dev.lancelot.engine.schema.LanceField;
import dev.lancelot.engine.schema.LanceSchema;
import dev.lancelot.engine.schema.SchemaException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Which top-level fields a read returns (in which order) and which file columns hold them.
 *
 * <p>In format 2.1 each leaf field is one column, numbered in pre-order over the file's schema; a
 * {@code fixed_size_list} vector column is one leaf. Manifests record the same mapping per data
 * file as {@code DataFile.fields} (leaf field ids) and {@code DataFile.column_indices}; {@link
 * #fromDataFile} takes it from there, the other factories derive it from the file's own schema.
 */
public final class FileProjection {
  private final LanceSchema schema;
  private final List<int[]> columns;

  private FileProjection(LanceSchema schema, List<int[]> columns) {
    this.schema = schema;
    this.columns = List.copyOf(columns);
  }

  /** Every top-level field of the file, in file order. */
  public static FileProjection all(LanceSchema fileSchema) {
    return fromLeafMap(fileSchema, fileSchema.leafColumnIndices());
  }

  /** The named top-level fields, in the order given. */
  public static FileProjection ofNames(LanceSchema fileSchema, List<String> names) {
    return fromLeafMap(fileSchema.project(names), fileSchema.leafColumnIndices());
  }

  /**
   * The fields at these dotted paths (e.g. {@code "s.y"}: struct {@code s} with only member {@code
   * y}); see {@link LanceSchema#projectPaths}. Only the columns of the kept leaves are read.
   */
  public static FileProjection ofPaths(LanceSchema fileSchema, List<String> paths) {
    return fromLeafMap(fileSchema.projectPaths(paths), fileSchema.leafColumnIndices());
  }

  /** The top-level fields with these ids, in the order given. */
  public static FileProjection ofFieldIds(LanceSchema fileSchema, int... topLevelFieldIds) {
    return fromLeafMap(fileSchema.projectByIds(topLevelFieldIds), fileSchema.leafColumnIndices());
  }

  /**
   * Projects {@code outputSchema} (top-level fields, e.g. the dataset schema restricted to the
   * wanted columns) onto a data file described by a manifest: {@code fields[i]} is a leaf field id
   * stored in column {@code columnIndices[i]}. Ids below 0 (tombstones, -2) are ignored.
   */
  public static FileProjection fromDataFile(
      LanceSchema outputSchema, int[] fields, int[] columnIndices) {
    if (fields.length != columnIndices.length) {
      throw new SchemaException(
          "Cannot map fields to columns: the data file lists "
              + fields.length
              + " fields but "
              + columnIndices.length
              + " column indices. The manifest is corrupt.");
    }
    Map<Integer, Integer> map = new HashMap<>();
    for (int i = 0; i < fields.length; i++) {
      if (fields[i] >= 0) {
        map.put(fields[i], columnIndices[i]);
      }
    }
    return fromLeafMap(outputSchema, map);
  }

  private static FileProjection fromLeafMap(
      LanceSchema output, Map<Integer, Integer> leafToColumn) {
    List<int[]> cols = new ArrayList<>();
    for (LanceField top : output.fields()) {
      List<Integer> leaves = new ArrayList<>();
      for (LanceField f : top.preOrder()) {
        if (f.isLeaf()) {
          Integer c = leafToColumn.get(f.id());
          if (c == null) {
            throw new SchemaException(
                "Cannot read field \""
                    + top.name()
                    + "\": leaf field "
                    + f.name()
                    + " (id "
                    + f.id()
                    + ") is not stored in this data file.");
          }
          leaves.add(c);
        }
      }
      cols.add(leaves.stream().mapToInt(Integer::intValue).toArray());
    }
    return new FileProjection(output, cols);
  }

  /** The schema of the batches a read returns. */
  public LanceSchema schema() {
    return schema;
  }

  /** Column indices of the leaves of top-level field {@code i}, in pre-order. */
  public int[] columns(int i) {
    return columns.get(i).clone();
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("FileProjection[");
    for (int i = 0; i < columns.size(); i++) {
      sb.append(i == 0 ? "" : ", ")
          .append(schema.fields().get(i).name())
          .append("->")
          .append(Arrays.toString(columns.get(i)));
    }
    return sb.append(']').toString();
  }
}
