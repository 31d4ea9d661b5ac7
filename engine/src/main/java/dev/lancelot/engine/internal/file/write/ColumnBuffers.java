package dev.lancelot.engine.internal.file.write;

import dev.lancelot.engine.internal.file.repdef.CanonicalLevels;
import dev.lancelot.engine.schema.LanceField;
import dev.lancelot.engine.schema.SchemaException;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/** Builds the writer of a top-level field, or refuses types the writer cannot store yet. */
public final class ColumnBuffers {
  private ColumnBuffers() {}

  /** Verifies that the writer supports this top-level field. */
  public static void check(LanceField field) {
    writer(field, Long.MAX_VALUE);
  }

  static FieldWriter writer(LanceField field, long maxPageBytes) {
    if (field.isBlob() && field.parentId() < 0) {
      return new BlobFieldWriter(field, maxPageBytes, null);
    }
    refusePacked(field);
    Field arrow = field.toArrow();
    if (!isNested(arrow.getType())) {
      if (arrow.getType() instanceof ArrowType.Null) {
        return new ColumnWriter(field, new NullColumnBuffer(), maxPageBytes);
      }
      return new ColumnWriter(field, new FlatColumnBuffer(items(field, arrow)), maxPageBytes);
    }
    List<ColumnWriter> columns = new ArrayList<>();
    List<Shredder> shredders = new ArrayList<>();
    collect(field, arrow, new ArrayList<>(), new ArrayList<>(), columns, shredders, maxPageBytes);
    return new NestedFieldWriter(field, columns, shredders);
  }

  private static void collect(
      LanceField field,
      Field arrow,
      List<Integer> path,
      List<Boolean> ancestors,
      List<ColumnWriter> columns,
      List<Shredder> shredders,
      long maxPageBytes) {
    ArrowType type = arrow.getType();
    if (!isNested(type)) {
      boolean[] kinds = new boolean[ancestors.size() + 1];
      for (int i = 0; i < ancestors.size(); i++) {
        kinds[i + 1] = ancestors.get(ancestors.size() - 1 - i);
      }
      NestedColumnBuffer buffer =
          new NestedColumnBuffer(CanonicalLevels.of(kinds), items(field, arrow));
      columns.add(new ColumnWriter(field, buffer, maxPageBytes));
      shredders.add(new Shredder(path.stream().mapToInt(Integer::intValue).toArray(), buffer));
      return;
    }
    if (field.children().isEmpty()) {
      throw new SchemaException(
          "Cannot write field \""
              + field.name()
              + "\": structs without fields cannot be"
              + " stored. Remove the field or give it a child field.");
    }
    ancestors.add(!(type instanceof ArrowType.Struct));
    for (int i = 0; i < field.children().size(); i++) {
      path.add(i);
      collect(
          field.children().get(i),
          arrow.getChildren().get(i),
          path,
          ancestors,
          columns,
          shredders,
          maxPageBytes);
      path.remove(path.size() - 1);
    }
    ancestors.remove(ancestors.size() - 1);
  }

  /**
   * Refuses packed structs anywhere in the field: Lance reads such a struct from one column holding
   * all its members, which this writer does not produce.
   */
  private static void refusePacked(LanceField field) {
    for (LanceField f : field.preOrder()) {
      if (f.isBlob()) {
        throw new SchemaException(
            "Cannot write field \""
                + f.name()
                + "\": it is a blob column ("
                + (f.isBlobV2()
                    ? "extension " + LanceField.BLOB_V2_EXTENSION
                    : "field metadata " + LanceField.BLOB_KEY + " = true")
                + ") inside the field \""
                + field.name()
                + "\", and the lancelot file writer writes top-level blob columns only. Make it a"
                + " top-level column.");
      }
      if (f.isPackedStruct()) {
        throw new SchemaException(
            "Cannot write field \""
                + f.name()
                + "\": it is a packed struct (field metadata "
                + LanceField.PACKED_STRUCT_KEYS
                + " = true), whose members Lance stores together in one column, and the lancelot"
                + " file writer does not write packed structs. Write the struct without that"
                + " metadata.");
      }
    }
  }

  static boolean isNested(ArrowType type) {
    return type instanceof ArrowType.Struct
        || type instanceof ArrowType.List
        || type instanceof ArrowType.LargeList;
  }

  /** The item buffer of a leaf type. */
  private static ItemBuffer items(LanceField field, Field arrow) {
    ItemBuffer items = plainItems(field, arrow);
    if (items instanceof VarItems || (items instanceof FixedItems f && !f.isBool())) {
      items.compression = ChunkCompression.of(field);
    }
    return items;
  }

  private static ItemBuffer plainItems(LanceField field, Field arrow) {
    ArrowType type = arrow.getType();
    if (type instanceof ArrowType.Bool) {
      return new FixedItems(0);
    }
    int width = fixedWidth(type);
    if (width > 0) {
      return new FixedItems(width);
    }
    switch (type.getTypeID()) {
      case Utf8:
        return new VarItems(4, true);
      case Binary:
        return new VarItems(4);
      case LargeUtf8:
        return new VarItems(8, true);
      case LargeBinary:
        return new VarItems(8);
      case FixedSizeList:
        {
          Field item = arrow.getChildren().get(0);
          int itemWidth = fixedWidth(item.getType());
          if (itemWidth <= 0) {
            break;
          }
          return new FslItems(((ArrowType.FixedSizeList) type).getListSize(), itemWidth);
        }
      default:
        break;
    }
    throw new SchemaException(
        "Cannot write field \""
            + field.name()
            + "\" of type "
            + field.logicalType()
            + ": the lancelot file writer supports primitive, string/binary, fixed-size-list-of-primitive values"
            + " and structs and lists of them only. Convert the column to a supported type.");
  }

  /** Byte width of a fixed-width Arrow type, or -1. */
  static int fixedWidth(ArrowType type) {
    return switch (type.getTypeID()) {
      case Int -> ((ArrowType.Int) type).getBitWidth() / 8;
      case FloatingPoint ->
          switch (((ArrowType.FloatingPoint) type).getPrecision()) {
            case HALF -> 2;
            case SINGLE -> 4;
            case DOUBLE -> 8;
          };
      case Date ->
          ((ArrowType.Date) type).getUnit() == org.apache.arrow.vector.types.DateUnit.DAY ? 4 : 8;
      case Time -> ((ArrowType.Time) type).getBitWidth() / 8;
      case Timestamp, Duration -> 8;
      case Decimal -> ((ArrowType.Decimal) type).getBitWidth() / 8;
      case FixedSizeBinary -> ((ArrowType.FixedSizeBinary) type).getByteWidth();
      default -> -1;
    };
  }
}
