package dev.lancelot.spark.procedures;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.LancelotException;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.Test;

/** One CALL's arguments, as Spark hands them over (in parameter order, cast), read by name. */
class ProcedureArgumentsTest {
  private static final Parameter[] PARAMETERS = {
    new Parameter("table", DataTypes.StringType, null),
    new Parameter("column", DataTypes.StringType, "NULL"),
    new Parameter("num_partitions", DataTypes.LongType, "NULL"),
    new Parameter("replace", DataTypes.BooleanType, "NULL"),
  };

  private static ProcedureArguments args(Object... values) {
    return new ProcedureArguments(PARAMETERS, new GenericInternalRow(values));
  }

  @Test
  void valuesAreJavaValuesByName() {
    ProcedureArguments a =
        args(UTF8String.fromString("db.items"), UTF8String.fromString("vector"), 16L, true);
    assertThat(a.string("table")).isEqualTo("db.items");
    assertThat(a.string("column")).isEqualTo("vector");
    assertThat(a.has("num_partitions")).isTrue();
    assertThat(a.bool("replace", false)).isTrue();
    assertThat(a.given())
        .containsExactly(
            java.util.Map.entry("table", "db.items"),
            java.util.Map.entry("column", "vector"),
            java.util.Map.entry("num_partitions", 16L),
            java.util.Map.entry("replace", true));
    assertThat(a.given("table", "column")).containsOnlyKeys("num_partitions", "replace");
  }

  @Test
  void absentOptionalArgumentsAreNullAndTakeTheirDefault() {
    ProcedureArguments a = args(UTF8String.fromString("db.items"), null, null, null);
    assertThat(a.has("column")).isFalse();
    assertThat(a.has("num_partitions")).isFalse();
    assertThat(a.has("no_such_parameter")).isFalse();
    assertThat(a.bool("replace", true)).isTrue();
    assertThat(a.bool("replace", false)).isFalse();
    assertThat(a.given()).containsOnlyKeys("table");
  }

  @Test
  void aStringArgumentMustBeGivenAndNotBlank() {
    assertThatThrownBy(() -> args(UTF8String.fromString(" "), null, null, null).string("table"))
        .isInstanceOf(LancelotException.class)
        .hasMessage("argument table must be a non-empty string.");
    assertThatThrownBy(() -> args(UTF8String.fromString("t"), null, null, null).string("column"))
        .hasMessage("argument column must be a non-empty string.");
  }
}
