package dev.lancelot.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.apache.spark.sql.catalyst.analysis.UnresolvedAttribute;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.catalyst.expressions.NamedArgumentExpression;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.Test;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;

/** Arguments of the SQL table functions as Java values by name. */
class SqlArgumentsTest {
  private static final String[] POSITIONAL = {"table", "column", "q", "k"};
  private static final String USAGE = "f(table, column, q, k)";

  private static Map<String, Object> parse(Expression... arguments) {
    Seq<Expression> seq = CollectionConverters.asScala(List.of(arguments)).toSeq();
    return SqlArguments.parse(seq, POSITIONAL, "f", USAGE, IllegalArgumentException::new);
  }

  private static Expression named(String name, Expression value) {
    return new NamedArgumentExpression(name, value);
  }

  @Test
  void positionalArgumentsTakeTheirNamesInOrderAndNamedOnesTheirLowerCasedName() {
    Map<String, Object> args =
        parse(
            Literal.create("db.items", DataTypes.StringType),
            Literal.create("vector", DataTypes.StringType),
            named("K", Literal.create(3, DataTypes.IntegerType)),
            named("use_index", Literal.create(false, DataTypes.BooleanType)));
    assertThat(args)
        .containsExactly(
            Map.entry("table", "db.items"),
            Map.entry("column", "vector"),
            Map.entry("k", 3),
            Map.entry("use_index", false));
  }

  @Test
  void arraysBecomeListsOfJavaValuesAndDecimalsDoubles() {
    Expression floats =
        Literal.create(
            new GenericArrayData(new Object[] {1.5f, -2f}),
            DataTypes.createArrayType(DataTypes.FloatType));
    Expression strings =
        Literal.create(
            new GenericArrayData(new Object[] {UTF8String.fromString("id"), null}),
            DataTypes.createArrayType(DataTypes.StringType));
    Expression decimal = Literal.create(Decimal.apply("0.25"), DataTypes.createDecimalType(3, 2));
    Expression nested =
        Literal.create(
            new GenericArrayData(
                new Object[] {
                  new GenericArrayData(new Object[] {1L}),
                  new GenericArrayData(new Object[] {2L, 3L})
                }),
            DataTypes.createArrayType(DataTypes.createArrayType(DataTypes.LongType)));
    Map<String, Object> args =
        parse(
            named("q", floats),
            named("columns", strings),
            named("ratio", decimal),
            named("grid", nested),
            named("filter", Literal.create(null, DataTypes.StringType)));
    assertThat(args.get("q")).isEqualTo(List.of(1.5f, -2f));
    assertThat(args.get("columns")).isEqualTo(java.util.Arrays.asList("id", null));
    assertThat(args.get("ratio")).isEqualTo(0.25);
    assertThat(args.get("grid")).isEqualTo(List.of(List.of(1L), List.of(2L, 3L)));
    assertThat(args).containsEntry("filter", null);
  }

  @Test
  void tooManyPositionalArgumentsAreRefusedWithTheUsage() {
    Expression one = Literal.create(1, DataTypes.IntegerType);
    assertThatThrownBy(() -> parse(one, one, one, one, one))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "Cannot run f: too many positional arguments; name them, e.g. k => .... Usage: "
                + USAGE);
  }

  @Test
  void aNonConstantArgumentIsRefusedNamingIt() {
    assertThatThrownBy(
            () ->
                parse(Literal.create("t", DataTypes.StringType), UnresolvedAttribute.quoted("vec")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot run f: argument column must be a constant.");
    assertThatThrownBy(() -> parse(named("Q", UnresolvedAttribute.quoted("vec"))))
        .hasMessage("Cannot run f: argument Q must be a constant.");
  }
}
