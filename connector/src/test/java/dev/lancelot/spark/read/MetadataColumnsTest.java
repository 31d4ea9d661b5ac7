package dev.lancelot.spark.read;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.connector.catalog.MetadataColumn;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.Test;

/**
 * The hidden columns {@code _rowaddr}, {@code _rowid}, {@code _fragid} and data columns hiding them
 * (F5).
 */
class MetadataColumnsTest {
  private static Schema schema(String... names) {
    return new Schema(
        Arrays.stream(names)
            .map(n -> new Field(n, FieldType.nullable(new ArrowType.Int(64, true)), null))
            .toList());
  }

  @Test
  void aTableOffersTheThreeColumnsWithTheirTypes() {
    MetadataColumn[] offered = MetadataColumns.offered(schema("id", "vector"));
    assertThat(Arrays.stream(offered).map(MetadataColumn::name))
        .containsExactly("_rowaddr", "_rowid", "_fragid");
    assertThat(offered[0].dataType()).isEqualTo(DataTypes.LongType);
    assertThat(offered[1].dataType()).isEqualTo(DataTypes.LongType);
    assertThat(offered[2].dataType()).isEqualTo(DataTypes.IntegerType);
    assertThat(offered)
        .allSatisfy(
            c -> {
              assertThat(c.isNullable()).isFalse();
              assertThat(c.comment()).isNotBlank();
            });
    assertThat(offered[1].comment())
        .contains("the stable row id, or _rowaddr without stable row ids");
  }

  @Test
  void aDataColumnOfTheSameNameHidesTheMetadataColumn() {
    Schema data = schema("id", "_rowid");
    assertThat(Arrays.stream(MetadataColumns.offered(data)).map(MetadataColumn::name))
        .containsExactly("_rowaddr", "_fragid");
    assertThat(MetadataColumns.isMetadata("_rowid", data)).isFalse();
    assertThat(MetadataColumns.isMetadata("_rowaddr", data)).isTrue();
    assertThat(MetadataColumns.isMetadata("_fragid", data)).isTrue();
  }

  @Test
  void onlyTheThreeNamesAreMetadata() {
    Schema data = schema("id");
    assertThat(List.of("id", "_rowId", "_fragment_id", "rowaddr", ""))
        .allSatisfy(n -> assertThat(MetadataColumns.isMetadata(n, data)).as(n).isFalse());
    assertThat(MetadataColumns.offered(schema("_rowaddr", "_rowid", "_fragid"))).isEmpty();
  }
}
