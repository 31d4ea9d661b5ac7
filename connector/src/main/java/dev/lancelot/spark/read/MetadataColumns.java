package dev.lancelot.spark.read;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.connector.catalog.MetadataColumn;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;

/**
 * The hidden columns a Lance table offers (selected by name, never by {@code *}), computed from the
 * row address {@code (fragment id << 32) | offset} (F5) and, for {@code _rowid}, the stable row id
 * sequences of a dataset that has them (F7):
 *
 * <ul>
 *   <li>{@code _rowaddr} (bigint): the row address, as Lance's {@code _rowaddr};
 *   <li>{@code _rowid} (bigint): Lance's {@code _rowid}: the row's stable id in a dataset with
 *       stable row ids (it survives updates and compaction), the row address otherwise;
 *   <li>{@code _fragid} (int): the fragment id, {@code _rowaddr >>> 32}.
 * </ul>
 *
 * A data column of the same name hides the metadata column.
 */
public final class MetadataColumns {
  public static final String ROW_ADDRESS = "_rowaddr";
  public static final String ROW_ID = "_rowid";
  public static final String FRAGMENT_ID = "_fragid";
  private static final Set<String> NAMES = Set.of(ROW_ADDRESS, ROW_ID, FRAGMENT_ID);

  private MetadataColumns() {}

  /** The metadata columns of a table with these data columns. */
  public static MetadataColumn[] offered(Schema data) {
    List<MetadataColumn> out = new ArrayList<>();
    add(
        out,
        data,
        ROW_ADDRESS,
        DataTypes.LongType,
        "Row address: (fragment id << 32) | row offset");
    add(
        out,
        data,
        ROW_ID,
        DataTypes.LongType,
        "Lance row id: the stable row id, or _rowaddr without stable row ids");
    add(out, data, FRAGMENT_ID, DataTypes.IntegerType, "Id of the fragment holding the row");
    return out.toArray(new MetadataColumn[0]);
  }

  /** True when {@code name} in a read schema is a metadata column rather than a data column. */
  public static boolean isMetadata(String name, Schema data) {
    return NAMES.contains(name) && !isDataColumn(name, data);
  }

  private static boolean isDataColumn(String name, Schema data) {
    for (Field f : data.getFields()) {
      if (f.getName().equals(name)) {
        return true;
      }
    }
    return false;
  }

  private static void add(
      List<MetadataColumn> out, Schema data, String name, DataType type, String comment) {
    if (!isDataColumn(name, data)) {
      out.add(new Column(name, type, comment));
    }
  }

  private record Column(String name, DataType dataType, String comment) implements MetadataColumn {
    @Override
    public boolean isNullable() {
      return false;
    }
  }
}
