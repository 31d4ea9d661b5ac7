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
 * {@code fixed_size_list} vector column is one leaf, and so is a packed struct: one column holds
 * all its members ({@link LanceField#columnFields()}). Manifests record the same mapping per data
 * file as {@code DataFile.fields} (the ids of those fields) and {@code DataFile.column_indices};
 * {@link #fromDataFile} takes it from there, the other factories derive it from the file's own
 * schema.
 *
 * <p>A packed struct's column holds all its stored members; a projection that keeps only some of
 * them (a path such as {@code "p.x"}) says which, per struct, in {@link #packedMembers}.
 */
public final class FileProjection {
  private final LanceSchema schema;
  private final List<int[]> columns;
  private final List<List<int[]>> packedMembers;

  private FileProjection(LanceSchema schema, List<int[]> columns, List<List<int[]>> members) {
    this.schema = schema;
    this.columns = List.copyOf(columns);
    this.packedMembers = List.copyOf(members);
  }

  /** Every top-level field of the file, in file order. */
  public static FileProjection all(LanceSchema fileSchema) {
    return fromColumnMap(fileSchema, fileSchema.leafColumnIndices(), fileSchema);
  }

  /** The named top-level fields, in the order given. */
  public static FileProjection ofNames(LanceSchema fileSchema, List<String> names) {
    return fromColumnMap(fileSchema.project(names), fileSchema.leafColumnIndices(), fileSchema);
  }

  /**
   * The fields at these dotted paths (e.g. {@code "s.y"}: struct {@code s} with only member {@code
   * y}); see {@link LanceSchema#projectPaths}. Only the columns of the kept leaves are read (a
   * packed struct's column is read whole, and only the asked members are returned).
   */
  public static FileProjection ofPaths(LanceSchema fileSchema, List<String> paths) {
    return fromColumnMap(
        fileSchema.projectPaths(paths), fileSchema.leafColumnIndices(), fileSchema);
  }

  /** The top-level fields with these ids, in the order given. */
  public static FileProjection ofFieldIds(LanceSchema fileSchema, int... topLevelFieldIds) {
    return fromColumnMap(
        fileSchema.projectByIds(topLevelFieldIds), fileSchema.leafColumnIndices(), fileSchema);
  }

  /**
   * Projects {@code outputSchema} (top-level fields, e.g. the dataset schema restricted to the
   * wanted columns) onto a data file described by a manifest: {@code fields[i]} is the id of a
   * field stored in column {@code columnIndices[i]} (a leaf, or a packed struct). Ids below 0
   * (tombstones, -2) are ignored. Packed structs are read with all their members.
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
    return fromColumnMap(outputSchema, map, outputSchema);
  }

  /**
   * {@code stored} is the schema of the data as written, for the members of packed structs the
   * output keeps only some of.
   */
  private static FileProjection fromColumnMap(
      LanceSchema output, Map<Integer, Integer> fieldToColumn, LanceSchema stored) {
    List<int[]> cols = new ArrayList<>();
    List<List<int[]>> members = new ArrayList<>();
    for (LanceField top : output.fields()) {
      List<Integer> columns = new ArrayList<>();
      for (LanceField f : top.columnFields()) {
        Integer c = fieldToColumn.get(f.id());
        if (c == null) {
          throw new SchemaException(
              "Cannot read field \""
                  + top.name()
                  + "\": "
                  + (f.isLeaf() ? "leaf field " : "packed struct ")
                  + f.name()
                  + " (id "
                  + f.id()
                  + ") is not stored in this data file.");
        }
        columns.add(c);
      }
      cols.add(columns.stream().mapToInt(Integer::intValue).toArray());
      List<int[]> positions = new ArrayList<>();
      collectMembers(top, false, stored, positions);
      members.add(positions);
    }
    return new FileProjection(output, cols, members);
  }

  /**
   * For each struct that is packed or inside a packed struct, in pre-order: the positions of its
   * output members among its stored members, or null when it keeps all of them in order.
   */
  private static void collectMembers(
      LanceField f, boolean inPacked, LanceSchema stored, List<int[]> out) {
    boolean packed = inPacked || f.isPackedStruct();
    if (packed && f.logicalType().equals("struct")) {
      LanceField all = stored.fieldById(f.id()).orElse(f);
      int[] positions = new int[f.children().size()];
      boolean identity = positions.length == all.children().size();
      for (int k = 0; k < positions.length; k++) {
        int id = f.children().get(k).id();
        positions[k] = -1;
        for (int j = 0; j < all.children().size() && positions[k] < 0; j++) {
          positions[k] = all.children().get(j).id() == id ? j : -1;
        }
        if (positions[k] < 0) {
          throw new SchemaException(
              "Cannot read field \""
                  + f.children().get(k).name()
                  + "\" of packed struct \""
                  + f.name()
                  + "\": it is not one of the struct's stored members "
                  + all.children()
                  + ".");
        }
        identity &= positions[k] == k;
      }
      out.add(identity ? null : positions);
    }
    for (LanceField c : f.children()) {
      collectMembers(c, packed, stored, out);
    }
  }

  /** The schema of the batches a read returns. */
  public LanceSchema schema() {
    return schema;
  }

  /**
   * Column indices of the column fields (leaves and packed structs) of top-level field {@code i},
   * in pre-order.
   */
  public int[] columns(int i) {
    return columns.get(i).clone();
  }

  /**
   * For top-level field {@code i}: per struct that is packed or inside a packed struct, in
   * pre-order, the positions of the members it returns among the members stored in the column
   * (null: all of them, in order).
   */
  public List<int[]> packedMembers(int i) {
    return java.util.Collections.unmodifiableList(packedMembers.get(i));
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
