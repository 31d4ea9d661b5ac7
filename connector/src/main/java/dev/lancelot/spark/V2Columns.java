package dev.lancelot.spark;

import org.apache.spark.sql.connector.catalog.Column;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.MetadataBuilder;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * A schema as DataSource V2 columns, for the catalog methods that still take a {@link StructType}.
 * Spark's own converter ({@code CatalogV2Util.structTypeToV2Columns}) changed its signature between
 * Spark lines; this one uses only the public {@link Column} API, which every line has (D50).
 */
final class V2Columns {
  private static final String COMMENT = "comment";

  private V2Columns() {}

  /** One column per field: name, type, nullability, comment, and the rest of its metadata. */
  static Column[] of(StructType schema) {
    StructField[] fields = schema.fields();
    Column[] out = new Column[fields.length];
    for (int i = 0; i < fields.length; i++) {
      StructField f = fields[i];
      Metadata m = f.metadata();
      String comment = m.contains(COMMENT) ? m.getString(COMMENT) : null;
      Metadata rest = new MetadataBuilder().withMetadata(m).remove(COMMENT).build();
      out[i] =
          Column.create(
              f.name(),
              f.dataType(),
              f.nullable(),
              comment,
              rest.equals(Metadata.empty()) ? null : rest.json());
    }
    return out;
  }
}
