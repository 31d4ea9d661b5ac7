package dev.lancelot.engine.expr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.LancelotException;
import java.util.List;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class BindingTest {
  private static final Schema SCHEMA =
      new Schema(
          List.of(
              Field.nullable("id", new ArrowType.Int(64, true)),
              Field.nullable("tenant_id", new ArrowType.Int(32, true)),
              Field.nullable("name", ArrowType.Utf8.INSTANCE),
              Field.nullable("score", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
              Field.nullable("flag", ArrowType.Bool.INSTANCE),
              Field.nullable("day", new ArrowType.Date(DateUnit.DAY)),
              Field.nullable("ts", new ArrowType.Timestamp(TimeUnit.MICROSECOND, null)),
              Field.nullable("blob", ArrowType.Binary.INSTANCE),
              Field.nullable("a.b", new ArrowType.Int(32, true)),
              Field.nullable("Mixed", new ArrowType.Int(32, true)),
              Field.nullable("dup", new ArrowType.Int(32, true)),
              Field.nullable("DUP", new ArrowType.Int(32, true)),
              new Field(
                  "vec",
                  FieldType.nullable(new ArrowType.FixedSizeList(4)),
                  List.of(
                      Field.nullable(
                          "item", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)))),
              new Field(
                  "st",
                  FieldType.nullable(ArrowType.Struct.INSTANCE),
                  List.of(
                      Field.nullable("x", new ArrowType.Int(32, true)),
                      Field.nullable("y", ArrowType.Utf8.INSTANCE)))));

  private static BoundPredicate bind(String filter) {
    return BoundPredicate.bind(FilterParser.parse(filter), SCHEMA);
  }

  @Test
  void referencedColumnsAreTopLevelInSchemaOrder() {
    assertThat(bind("score > 1 AND id = 2 OR st.x = 1 AND score < 5").referencedColumns())
        .containsExactly("id", "score", "st");
    assertThat(bind("true").referencedColumns()).isEmpty();
    assertThat(bind("`a.b` = 1").referencedColumns()).containsExactly("a.b");
  }

  @Test
  void namesResolveExactlyThenIgnoringCase() {
    assertThat(bind("MIXED = 1").referencedColumns()).containsExactly("Mixed");
    assertThat(bind("Tenant_Id = 1").referencedColumns()).containsExactly("tenant_id");
    assertThat(bind("DUP = 1").referencedFields()).containsExactly(Column.named("DUP"));
    assertThat(bind("st.X = 1").referencedFields()).containsExactly(Column.of("st", "x"));
  }

  @Test
  void canEvaluateTellsWhetherBindingWorks() {
    assertThat(BoundPredicate.canEvaluate(FilterParser.parse("tenant_id = 1"), SCHEMA)).isTrue();
    assertThat(BoundPredicate.canEvaluate(FilterParser.parse("vec IS NULL"), SCHEMA)).isTrue();
    assertThat(BoundPredicate.canEvaluate(FilterParser.parse("nope = 1"), SCHEMA)).isFalse();
    assertThat(BoundPredicate.canEvaluate(FilterParser.parse("name = 1"), SCHEMA)).isFalse();
    assertThat(BoundPredicate.canEvaluate(FilterParser.parse("vec = 1"), SCHEMA)).isFalse();
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '"',
      value = {
        "nam = 'x'|Cannot apply filter \"nam = 'x'\": the schema has no column nam. Available columns: id, tenant_id, name, score, flag, day, ts, blob, a.b, Mixed, dup, DUP, vec, st.",
        "dUp = 1|Cannot apply filter \"dUp = 1\": the schema has no column dUp; dup, DUP differ from it only in case. Write the name with its exact case.",
        "a.b = 1|Cannot apply filter \"a.b = 1\": the schema has no column a. A column named a.b exists; write it in backquotes: `a.b`.",
        "st.z = 1|Cannot apply filter \"st.z = 1\": struct column st has no field z. Its fields: x, y.",
        "id.z = 1|Cannot apply filter \"id.z = 1\": column id has type int64, which has no fields, so id.z does not exist. Refer to the column itself as id.",
        "name = 5|Cannot apply filter \"name = 5\": column name has type utf8 and cannot be compared with the number 5. Compare it with a string in single quotes, e.g. 'abc'.",
        "tenant_id = '5'|Cannot apply filter \"tenant_id = '5'\": column tenant_id has type int32 and cannot be compared with the string '5'. Compare it with a number, e.g. 42 or 1.5.",
        "score IN (1, 'x')|Cannot apply filter \"score IN (1, 'x')\": column score has type float64 and cannot be compared with the string 'x'. Compare it with a number, e.g. 42 or 1.5.",
        "flag = 1|Cannot apply filter \"flag = 1\": column flag has type bool and cannot be compared with the number 1. Compare it with true or false.",
        "day < '2024-01-01'|Cannot apply filter \"day < '2024-01-01'\": column day has type date32 and cannot be compared with the string '2024-01-01'. Compare it with a date literal, e.g. date '2024-01-31'.",
        "ts > 5|Cannot apply filter \"ts > 5\": column ts has type timestamp(us) and cannot be compared with the number 5. Compare it with a timestamp literal, e.g. timestamp '2024-01-31 10:00:00'.",
        "blob = 'x'|Cannot apply filter \"blob = 'x'\": column blob has type binary and cannot be compared with the string 'x'. Compare it with a hex literal, e.g. X'0AFF'.",
        "name = X'00'|Cannot apply filter \"name = X'00'\": column name has type utf8 and cannot be compared with the binary literal X'00'. Compare it with a string in single quotes, e.g. 'abc'.",
        "id = date '2024-01-01'|Cannot apply filter \"id = date '2024-01-01'\": column id has type int64 and cannot be compared with the date literal date '2024-01-01'. Compare it with a number, e.g. 42 or 1.5.",
        "vec = 1|Cannot apply filter \"vec = 1\": column vec has type fixed_size_list<float32, 4>, which filters cannot compare. Only IS NULL and IS NOT NULL apply to it.",
        "id LIKE 'a%'|Cannot apply filter \"id LIKE 'a%'\": LIKE applies to string columns, but column id has type int64. Compare it with a number, e.g. 42 or 1.5.",
        "tenant_id|Cannot apply filter \"tenant_id\": column tenant_id has type int32, not bool, so it cannot be a filter by itself. Compare it with a value, e.g. tenant_id = ....",
        "st = 1|Cannot apply filter \"st = 1\": column st has type struct, which filters cannot compare. Only IS NULL and IS NOT NULL apply to it.",
      })
  void bindingErrorsSayWhatAndHowToFix(String filter, String message) {
    assertThatThrownBy(() -> bind(filter))
        .isInstanceOf(FilterBindException.class)
        .isInstanceOf(LancelotException.class)
        .hasMessage(message);
  }

  @Test
  void errorNamesTheFailingPartOfALargerFilter() {
    assertThatThrownBy(() -> bind("id > 1 AND (name = 'a' OR nope IS NULL)"))
        .hasMessageStartingWith(
            "Cannot apply filter \"nope IS NULL\": the schema has no column nope.");
  }
}
