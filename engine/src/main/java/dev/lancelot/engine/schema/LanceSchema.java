package dev.lancelot.engine.schema;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * An immutable Lance schema: a tree of {@link LanceField}s plus schema metadata.
 *
 * <p>Three representations are interchangeable:
 *
 * <ul>
 *   <li>Arrow: {@link #fromArrow(Schema)} (assigns field ids in pre-order from 0, as Lance does
 *       when a dataset is created) and {@link #toArrow()};
 *   <li>the flattened, parents-before-children list of {@code lance.file.Field} messages stored in
 *       manifests and in data files (converted by the engine's format layer);
 *   <li>this tree, for lookups by id or name and for projections.
 * </ul>
 *
 * <p>In Lance file format 2.1 every leaf field (pre-order) is one column of a data file, except
 * that a packed struct is one column for the whole struct; the column index of such a field is its
 * position in {@link #columnFields()}; see {@link #leafColumnIndices()}.
 */
public final class LanceSchema {
  private final List<LanceField> fields;
  private final Map<String, String> metadata;
  private final Map<Integer, LanceField> byId;

  private LanceSchema(List<LanceField> fields, Map<String, String> metadata) {
    this.fields = List.copyOf(fields);
    this.metadata =
        metadata == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(metadata));
    Map<Integer, LanceField> ids = new HashMap<>();
    for (LanceField top : this.fields) {
      for (LanceField f : top.preOrder()) {
        checkChildren(f);
        if (f.id() >= 0 && ids.put(f.id(), f) != null) {
          throw new SchemaException(
              "Cannot build schema: field id "
                  + f.id()
                  + " is used twice. The schema is corrupt or was assembled incorrectly.");
        }
      }
    }
    this.byId = Collections.unmodifiableMap(ids);
  }

  private static void checkChildren(LanceField f) {
    String t = f.logicalType();
    int n = f.children().size();
    boolean ok =
        switch (t) {
          case "struct" -> true;
          case "list", "large_list", "list.struct", "large_list.struct", "map" -> n == 1;
          default -> n == 0;
        };
    if (!ok) {
      throw new SchemaException(
          "Cannot build schema: field \""
              + f.name()
              + "\" of type "
              + t
              + " has "
              + n
              + " child fields. The schema is corrupt.");
    }
  }

  /** A schema from fields whose ids are already assigned. */
  public static LanceSchema of(List<LanceField> fields, Map<String, String> metadata) {
    return new LanceSchema(fields, metadata);
  }

  /** Converts an Arrow schema, assigning field ids in pre-order starting at 0. */
  public static LanceSchema fromArrow(Schema arrow) {
    return fromArrow(arrow, 0);
  }

  /** Converts an Arrow schema, assigning field ids in pre-order starting at {@code firstId}. */
  public static LanceSchema fromArrow(Schema arrow, int firstId) {
    List<LanceField> unnumbered = new ArrayList<>();
    for (Field f : arrow.getFields()) {
      unnumbered.add(LanceField.fromArrow(f));
    }
    int[] next = {firstId};
    List<LanceField> numbered = new ArrayList<>();
    for (LanceField f : unnumbered) {
      numbered.add(assignIds(f, -1, next));
    }
    Map<String, String> meta =
        arrow.getCustomMetadata() == null ? Map.of() : arrow.getCustomMetadata();
    return new LanceSchema(numbered, meta);
  }

  /**
   * This schema with its blob columns in the encoding Lance 7 uses for files of {@code
   * dataStorageVersion}: in 2.2 every top-level legacy blob ({@link LanceField#isLegacyBlob()})
   * becomes a blob v2 struct ({@link LanceField#isBlobV2()}, members {@code data: large_binary} and
   * {@code uri: string}) keeping its id, name, nullability and other metadata, the members taking
   * new ids after the largest; other versions and schemas without legacy blobs are returned as they
   * are. Used when a dataset is created: Lance 7 writes legacy blobs in 2.0 and 2.1 files only,
   * blob v2 in 2.2 only.
   */
  public LanceSchema withBlobEncodingFor(String dataStorageVersion) {
    if (!"2.2".equals(dataStorageVersion) || fields.stream().noneMatch(LanceField::isLegacyBlob)) {
      return this;
    }
    int[] next = {fields.stream().mapToInt(LanceField::maxId).max().orElse(-1) + 1};
    List<LanceField> out = new ArrayList<>(fields.size());
    for (LanceField f : fields) {
      if (!f.isLegacyBlob()) {
        out.add(f);
        continue;
      }
      Map<String, String> meta = new java.util.LinkedHashMap<>(f.metadata());
      meta.remove(LanceField.BLOB_KEY);
      meta.put(LogicalTypes.ARROW_EXT_NAME, LanceField.BLOB_V2_EXTENSION);
      LanceField struct =
          new LanceField(
              f.id(),
              f.parentId(),
              f.name(),
              "struct",
              f.nullable(),
              meta,
              List.of(
                  LanceField.of("data", "large_binary", true),
                  LanceField.of("uri", "string", true)),
              LanceField.defaultLegacyEncoding("struct"),
              f.unenforcedPrimaryKey());
      out.add(assignIds(struct, f.parentId(), next));
    }
    return new LanceSchema(out, metadata);
  }

  /** Assigns ids to fields whose id is negative, keeping existing ones (as Lance's set_id). */
  private static LanceField assignIds(LanceField f, int parentId, int[] next) {
    int id = f.id() >= 0 ? f.id() : next[0]++;
    List<LanceField> children = new ArrayList<>(f.children().size());
    for (LanceField c : f.children()) {
      children.add(assignIds(c, id, next));
    }
    return f.withIds(id, parentId).withChildren(children);
  }

  /** The Arrow schema (fields in order, with metadata). */
  public Schema toArrow() {
    List<Field> arrow = new ArrayList<>(fields.size());
    for (LanceField f : fields) {
      arrow.add(f.toArrow());
    }
    return new Schema(arrow, metadata.isEmpty() ? null : metadata);
  }

  /** Top-level fields in order. */
  public List<LanceField> fields() {
    return fields;
  }

  public Map<String, String> metadata() {
    return metadata;
  }

  /** The field with this id anywhere in the tree. */
  public Optional<LanceField> fieldById(int id) {
    return Optional.ofNullable(byId.get(id));
  }

  /** The top-level field with this name. */
  public Optional<LanceField> field(String name) {
    for (LanceField f : fields) {
      if (f.name().equals(name)) {
        return Optional.of(f);
      }
    }
    return Optional.empty();
  }

  /**
   * The field at a dotted path such as {@code "a.b"} (struct members and list items, e.g. {@code
   * "tags.item"}). A top-level name containing dots is matched first.
   */
  public Optional<LanceField> fieldByPath(String path) {
    Optional<LanceField> direct = field(path);
    if (direct.isPresent()) {
      return direct;
    }
    String[] parts = path.split("\\.", -1);
    Optional<LanceField> cur = field(parts[0]);
    for (int i = 1; i < parts.length && cur.isPresent(); i++) {
      String part = parts[i];
      cur = cur.get().children().stream().filter(c -> c.name().equals(part)).findFirst();
    }
    return cur;
  }

  /** All fields, pre-order (parents before children). */
  public List<LanceField> preOrder() {
    List<LanceField> out = new ArrayList<>();
    for (LanceField f : fields) {
      out.addAll(f.preOrder());
    }
    return out;
  }

  /**
   * Fields without children, in pre-order. The columns of a data file are {@link #columnFields()}:
   * the same list unless the schema has packed structs.
   */
  public List<LanceField> leaves() {
    List<LanceField> out = new ArrayList<>();
    for (LanceField f : preOrder()) {
      if (f.isLeaf()) {
        out.add(f);
      }
    }
    return out;
  }

  /**
   * The fields stored in columns of their own in a 2.1 data file written with this schema, in
   * pre-order ({@link LanceField#columnFields()}): fields without children, and packed structs
   * instead of their members.
   */
  public List<LanceField> columnFields() {
    List<LanceField> out = new ArrayList<>();
    for (LanceField f : fields) {
      out.addAll(f.columnFields());
    }
    return out;
  }

  /**
   * Field id to column index for a 2.1 file written with exactly this schema. This is what Lance 7
   * records in a manifest's {@code DataFile.fields} / {@code column_indices}: the ids of the {@link
   * #columnFields()} and 0, 1, 2, ... (a vector {@code fixed_size_list} column is one leaf, a
   * packed struct one column).
   */
  public Map<Integer, Integer> leafColumnIndices() {
    Map<Integer, Integer> out = new LinkedHashMap<>();
    List<LanceField> columns = columnFields();
    for (int i = 0; i < columns.size(); i++) {
      out.put(columns.get(i).id(), i);
    }
    return out;
  }

  /** The largest field id, or -1 for an empty schema. */
  public int maxFieldId() {
    int max = -1;
    for (LanceField f : fields) {
      max = Math.max(max, f.maxId());
    }
    return max;
  }

  /** The schema restricted to these top-level fields, in the order given. */
  public LanceSchema project(Collection<String> names) {
    List<LanceField> out = new ArrayList<>(names.size());
    for (String name : names) {
      out.add(
          field(name)
              .orElseThrow(
                  () ->
                      new SchemaException(
                          "Cannot project column \""
                              + name
                              + "\": the schema has no such top-level field. Available: "
                              + names())));
    }
    return new LanceSchema(out, metadata);
  }

  /**
   * The schema restricted to the fields at these dotted paths (see {@link #fieldByPath}): the
   * ancestors of a path keep only the members on the paths asked for (e.g. {@code "s.y"} gives
   * {@code s} with the single child {@code y}, so reads touch only {@code y}'s columns; {@code
   * "l.item.a"} keeps member {@code a} of the structs in list {@code l}); the field a path names is
   * kept whole. Paths into a map's entries are refused. Top-level fields come in the order of their
   * first path, children in schema order; field ids are kept.
   */
  public LanceSchema projectPaths(Collection<String> paths) {
    Map<Integer, Boolean> keepWhole = new LinkedHashMap<>();
    Map<Integer, Boolean> keepPart = new HashMap<>();
    List<LanceField> tops = new ArrayList<>();
    for (String path : paths) {
      LanceField target =
          fieldByPath(path)
              .orElseThrow(
                  () ->
                      new SchemaException(
                          "Cannot project column \""
                              + path
                              + "\": the schema has no such field. Available: "
                              + names()
                              + " (use a dotted path such as \"struct.member\" for nested fields)"));
      keepWhole.put(target.id(), true);
      LanceField cur = target;
      while (cur.parentId() != -1) {
        keepPart.put(cur.parentId(), true);
        cur = byId.get(cur.parentId());
        if (cur == null) {
          throw new SchemaException(
              "Cannot project column \""
                  + path
                  + "\": a parent field is missing from the"
                  + " schema. The schema is corrupt.");
        }
        if (cur.logicalType().equals("map")) {
          throw new SchemaException(
              "Cannot project column \""
                  + path
                  + "\": it lies inside map \""
                  + cur.name()
                  + "\", whose entries are read whole. Project the map itself.");
        }
      }
      if (!tops.contains(cur)) {
        tops.add(cur);
      }
    }
    List<LanceField> out = new ArrayList<>(tops.size());
    for (LanceField top : tops) {
      out.add(prune(top, keepWhole, keepPart));
    }
    return new LanceSchema(out, metadata);
  }

  private static LanceField prune(
      LanceField f, Map<Integer, Boolean> whole, Map<Integer, Boolean> part) {
    if (whole.containsKey(f.id()) || f.isLeaf()) {
      return f;
    }
    List<LanceField> kept = new ArrayList<>();
    for (LanceField c : f.children()) {
      if (whole.containsKey(c.id()) || part.containsKey(c.id())) {
        kept.add(prune(c, whole, part));
      }
    }
    return f.withChildren(kept);
  }

  /** The schema restricted to the top-level fields with these ids, in the order given. */
  public LanceSchema projectByIds(int... ids) {
    List<LanceField> out = new ArrayList<>(ids.length);
    for (int id : ids) {
      LanceField f = byId.get(id);
      if (f == null || f.parentId() != -1) {
        throw new SchemaException(
            "Cannot project field id "
                + id
                + ": it is not a top-level field of the schema "
                + this
                + ".");
      }
      out.add(f);
    }
    return new LanceSchema(out, metadata);
  }

  /** Top-level field names in order. */
  public List<String> names() {
    List<String> out = new ArrayList<>(fields.size());
    for (LanceField f : fields) {
      out.add(f.name());
    }
    return out;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof LanceSchema s && s.fields.equals(fields) && s.metadata.equals(metadata);
  }

  @Override
  public int hashCode() {
    return fields.hashCode() * 31 + metadata.hashCode();
  }

  @Override
  public String toString() {
    return "LanceSchema" + fields;
  }
}
