package dev.lancelot.engine.schema;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;

/**
 * One field of a Lance schema: an immutable node of the schema tree.
 *
 * <p>Field ids are assigned in pre-order from 0 when a schema is first created (see {@link
 * LanceSchema#fromArrow}); {@code parentId} is -1 for top-level fields. Structs and (large) lists
 * have child fields; a fixed-size list is a single field whose item type is part of its {@linkplain
 * #logicalType() logical type}, e.g. {@code fixed_size_list:float:128}.
 *
 * @param id unique field id within the dataset
 * @param parentId id of the parent field, -1 for top-level fields
 * @param name field name (not the full path)
 * @param logicalType Lance logical type string, see {@link LogicalTypes}
 * @param nullable whether values may be null
 * @param metadata Arrow field metadata (Lance stores values as bytes; kept here as UTF-8)
 * @param children child fields (struct members, the list item), in order
 * @param legacyEncoding value of the legacy {@code encoding} proto field (1 plain, 2 var-binary, 3
 *     dictionary, 0 none); Lance 7 still writes it, so it is kept for byte-identical schemas
 * @param unenforcedPrimaryKey Lance's "unenforced primary key" marker
 */
public record LanceField(
    int id,
    int parentId,
    String name,
    String logicalType,
    boolean nullable,
    Map<String, String> metadata,
    List<LanceField> children,
    int legacyEncoding,
    boolean unenforcedPrimaryKey) {

  /** Metadata key Lance uses to mark unenforced primary keys. */
  public static final String UNENFORCED_PRIMARY_KEY = "lance-schema:unenforced-primary-key";

  /**
   * Metadata keys with which Lance marks a struct as packed (value {@code "true"}, in any case):
   * all its members are stored together, row by row, in one column of a data file.
   */
  public static final List<String> PACKED_STRUCT_KEYS = List.of("packed", "lance-encoding:packed");

  /**
   * Metadata key (value {@code "true"}, any case) with which Lance marks a {@code large_binary}
   * field as a blob column in the legacy blob encoding: the values are stored out of line and the
   * column holds a (position, size) descriptor per row.
   */
  public static final String BLOB_KEY = "lance-encoding:blob";

  /**
   * Arrow extension name of Lance's blob v2 columns (file format 2.2 and later): a struct {@code
   * {data: large_binary, uri: utf8}} in the schema, stored as one column of descriptors (kind,
   * position, size, blob id, uri) with the bytes inline, in packed or dedicated blob files, or at
   * an external URI.
   */
  public static final String BLOB_V2_EXTENSION = "lance.blob.v2";

  public LanceField {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(logicalType, "logicalType");
    metadata =
        metadata == null
            ? Map.of()
            : java.util.Collections.unmodifiableMap(new LinkedHashMap<>(metadata));
    children = children == null ? List.of() : List.copyOf(children);
  }

  /** A field without children, metadata or id (ids are assigned by {@link LanceSchema}). */
  public static LanceField of(String name, String logicalType, boolean nullable) {
    return new LanceField(
        -1,
        -1,
        name,
        logicalType,
        nullable,
        Map.of(),
        List.of(),
        defaultLegacyEncoding(logicalType),
        false);
  }

  /**
   * Converts an Arrow field (and its children) into an unnumbered Lance field; ids are -1 until the
   * field is placed into a schema.
   */
  public static LanceField fromArrow(Field field) {
    String logicalType = LogicalTypes.of(field);
    List<LanceField> children = new ArrayList<>();
    ArrowType type = field.getType();
    if (type instanceof ArrowType.Struct
        || type instanceof ArrowType.List
        || type instanceof ArrowType.LargeList
        || type instanceof ArrowType.Map) {
      for (Field child : field.getChildren()) {
        children.add(fromArrow(child));
      }
    }
    Map<String, String> metadata = field.getMetadata() == null ? Map.of() : field.getMetadata();
    String pk = metadata.get(UNENFORCED_PRIMARY_KEY);
    boolean primaryKey =
        pk != null && (pk.equalsIgnoreCase("true") || pk.equals("1") || pk.equalsIgnoreCase("yes"));
    return new LanceField(
        -1,
        -1,
        field.getName(),
        logicalType,
        field.isNullable(),
        metadata,
        children,
        defaultLegacyEncoding(logicalType),
        primaryKey);
  }

  /**
   * The legacy encoding Lance 7 records for a logical type (plain, var-binary, dictionary, none).
   */
  public static int defaultLegacyEncoding(String logicalType) {
    if (logicalType.startsWith("dict:")) {
      return 3;
    }
    if (logicalType.equals("list")
        || logicalType.equals("large_list")
        || logicalType.equals("list.struct")
        || logicalType.equals("large_list.struct")
        || logicalType.equals("map")) {
      return 1;
    }
    if (logicalType.equals("struct") || logicalType.equals("null")) {
      return 0;
    }
    if (logicalType.equals("json")) {
      return 2;
    }
    try {
      if (LogicalTypes.isBinaryLike(logicalType)) {
        return 2;
      }
      return LogicalTypes.isFixedStride(logicalType) ? 1 : 0;
    } catch (SchemaException e) {
      return 0;
    }
  }

  /**
   * The Arrow field for this Lance field, with children and metadata. A blob column (legacy or v2,
   * {@link #isBlob()}) is {@code large_binary} holding each row's blob bytes, with metadata {@link
   * #BLOB_KEY} = {@code true}.
   */
  public Field toArrow() {
    if (isBlobV2()) {
      Map<String, String> meta = new LinkedHashMap<>(metadata);
      meta.remove(LogicalTypes.ARROW_EXT_NAME);
      meta.put(BLOB_KEY, "true");
      return new Field(
          name, new FieldType(nullable, ArrowType.LargeBinary.INSTANCE, null, meta), List.of());
    }
    ArrowType type = LogicalTypes.toArrow(logicalType);
    Map<String, String> meta = new LinkedHashMap<>(metadata);
    if (logicalType.equals("json")) {
      meta.put(LogicalTypes.ARROW_EXT_NAME, LogicalTypes.ARROW_JSON);
    }
    List<Field> arrowChildren;
    if (type instanceof ArrowType.FixedSizeList) {
      arrowChildren = List.of(LogicalTypes.fixedSizeListItem(logicalType));
    } else {
      arrowChildren = new ArrayList<>(children.size());
      for (LanceField c : children) {
        arrowChildren.add(c.toArrow());
      }
    }
    return new Field(
        name, new FieldType(nullable, type, null, meta.isEmpty() ? null : meta), arrowChildren);
  }

  /** Whether this field has no child fields (fixed-size lists are leaves). */
  public boolean isLeaf() {
    return children.isEmpty();
  }

  /**
   * Whether this field is a struct Lance stores packed (see {@link #PACKED_STRUCT_KEYS}): one
   * column of a data file holds the whole struct, its members have no columns of their own.
   */
  public boolean isPackedStruct() {
    return logicalType.equals("struct") && isPackedStruct(metadata);
  }

  /** Whether Arrow or Lance field metadata marks a struct as packed. */
  public static boolean isPackedStruct(Map<String, String> metadata) {
    if (metadata == null) {
      return false;
    }
    for (String key : PACKED_STRUCT_KEYS) {
      String value = metadata.get(key);
      if (value != null && value.equalsIgnoreCase("true")) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether this field is a blob column in Lance's legacy blob encoding: {@code large_binary} with
   * metadata {@link #BLOB_KEY} = {@code true}.
   */
  public boolean isLegacyBlob() {
    if (!logicalType.equals("large_binary")) {
      return false;
    }
    String value = metadata.get(BLOB_KEY);
    return value != null && value.equalsIgnoreCase("true");
  }

  /** Whether this field is a blob v2 column: a struct with extension {@link #BLOB_V2_EXTENSION}. */
  public boolean isBlobV2() {
    return logicalType.equals("struct") && BLOB_V2_EXTENSION.equals(extensionName());
  }

  /** Whether this field is a blob column, legacy or v2. */
  public boolean isBlob() {
    return isLegacyBlob() || isBlobV2();
  }

  /**
   * Whether this field is stored in a column of its own in a data file of format 2.1 or later,
   * unless it is a member of a packed struct: a field without children, a packed struct (whose
   * members share its column) or a blob v2 struct (one column of descriptors). {@link
   * #columnFields()} takes the whole tree into account.
   */
  public boolean isColumn() {
    return isLeaf() || isPackedStruct() || isBlobV2();
  }

  /**
   * The fields of this subtree stored in columns of their own ({@link #isColumn()}), pre-order: the
   * columns a data file of format 2.1 or later holds for this field, in order.
   */
  public List<LanceField> columnFields() {
    List<LanceField> out = new ArrayList<>();
    collectColumns(this, out);
    return out;
  }

  private static void collectColumns(LanceField f, List<LanceField> out) {
    if (f.isColumn()) {
      out.add(f);
      return;
    }
    for (LanceField c : f.children) {
      collectColumns(c, out);
    }
  }

  /** The Arrow type of this field (children not included). */
  public ArrowType arrowType() {
    return LogicalTypes.toArrow(logicalType);
  }

  /** The Arrow extension name from the metadata, or null. */
  public String extensionName() {
    return metadata.get(LogicalTypes.ARROW_EXT_NAME);
  }

  /** This field with a new id and parent id (children untouched). */
  public LanceField withIds(int newId, int newParentId) {
    return new LanceField(
        newId,
        newParentId,
        name,
        logicalType,
        nullable,
        metadata,
        children,
        legacyEncoding,
        unenforcedPrimaryKey);
  }

  /** This field with other children. */
  public LanceField withChildren(List<LanceField> newChildren) {
    return new LanceField(
        id,
        parentId,
        name,
        logicalType,
        nullable,
        metadata,
        newChildren,
        legacyEncoding,
        unenforcedPrimaryKey);
  }

  /** This field and all descendants, pre-order. */
  public List<LanceField> preOrder() {
    List<LanceField> out = new ArrayList<>();
    collect(this, out);
    return out;
  }

  private static void collect(LanceField f, List<LanceField> out) {
    out.add(f);
    for (LanceField c : f.children) {
      collect(c, out);
    }
  }

  /** The largest field id in this subtree. */
  public int maxId() {
    int max = id;
    for (LanceField c : children) {
      max = Math.max(max, c.maxId());
    }
    return max;
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder();
    sb.append(name).append(':').append(logicalType).append("#").append(id);
    if (!nullable) {
      sb.append(" not null");
    }
    if (!children.isEmpty()) {
      sb.append(" {");
      for (int i = 0; i < children.size(); i++) {
        sb.append(i == 0 ? "" : ", ").append(children.get(i));
      }
      sb.append('}');
    }
    return sb.toString();
  }
}
