package dev.lancelot.spark.read;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancelot.engine.expr.FilterParser;
import dev.lancelot.engine.expr.Predicate;
import java.math.BigDecimal;
import java.sql.Date;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.sources.AlwaysFalse;
import org.apache.spark.sql.sources.AlwaysTrue;
import org.apache.spark.sql.sources.And;
import org.apache.spark.sql.sources.EqualNullSafe;
import org.apache.spark.sql.sources.EqualTo;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.sources.GreaterThan;
import org.apache.spark.sql.sources.GreaterThanOrEqual;
import org.apache.spark.sql.sources.In;
import org.apache.spark.sql.sources.IsNotNull;
import org.apache.spark.sql.sources.IsNull;
import org.apache.spark.sql.sources.LessThan;
import org.apache.spark.sql.sources.LessThanOrEqual;
import org.apache.spark.sql.sources.Not;
import org.apache.spark.sql.sources.Or;
import org.apache.spark.sql.sources.StringContains;
import org.apache.spark.sql.sources.StringEndsWith;
import org.apache.spark.sql.sources.StringStartsWith;
import org.junit.jupiter.api.Test;

/**
 * Spark's data source filters (as the V2 predicates Spark hands the scan, {@link Filter#toV2()}) to
 * engine predicates through {@link SparkPredicates}, compared as the engine's filter text ({@link
 * Predicate#toSql()}): every supported form, quoting, and what stays with Spark.
 */
class SparkFiltersTest {
  private static final Schema SCHEMA =
      new Schema(
          List.of(
              field("id", new ArrowType.Int(64, true)),
              field("n", new ArrowType.Int(32, true)),
              field("name", ArrowType.Utf8.INSTANCE),
              field("score", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
              field("flag", ArrowType.Bool.INSTANCE),
              field("day", new ArrowType.Date(DateUnit.DAY)),
              field("ts", new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC")),
              field("ts_paris", new ArrowType.Timestamp(TimeUnit.MICROSECOND, "Europe/Paris")),
              field("ts_ntz", new ArrowType.Timestamp(TimeUnit.MICROSECOND, null)),
              field("price", new ArrowType.Decimal(10, 2, 128)),
              field("blob", ArrowType.Binary.INSTANCE),
              field("my.col", ArrowType.Utf8.INSTANCE),
              field("select", new ArrowType.Int(32, true)),
              new Field(
                  "vector",
                  FieldType.nullable(new ArrowType.FixedSizeList(4)),
                  List.of(
                      field("item", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)))),
              new Field(
                  "tags",
                  FieldType.nullable(ArrowType.List.INSTANCE),
                  List.of(field("item", ArrowType.Utf8.INSTANCE))),
              new Field(
                  "point",
                  FieldType.nullable(ArrowType.Struct.INSTANCE),
                  List.of(
                      field("x", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE))))));

  private static final Map<String, Field> FILTERABLE = SparkFilters.filterableColumns(SCHEMA);

  private static Field field(String name, ArrowType type) {
    return new Field(name, FieldType.nullable(type), null);
  }

  private static Optional<Predicate> translate(Filter filter, Schema schema) {
    return SparkPredicates.translate(filter.toV2(), schema)
        .map(SparkPredicates.Translation::predicate);
  }

  private static String sql(Filter filter) {
    Optional<Predicate> p = translate(filter, SCHEMA);
    assertThat(p).as("translation of %s", filter).isPresent();
    return p.get().toSql();
  }

  private static void staysWithSpark(Filter filter) {
    assertThat(translate(filter, SCHEMA)).as("translation of %s", filter).isEmpty();
  }

  @Test
  void scalarColumnsAreFilterableAndVectorsListsAndStructsAreNot() {
    assertThat(FILTERABLE.keySet())
        .containsExactlyInAnyOrder(
            "id",
            "n",
            "name",
            "score",
            "flag",
            "day",
            "ts",
            "ts_paris",
            "ts_ntz",
            "price",
            "blob",
            "my.col",
            "select");
    assertThat(FILTERABLE.get("id")).isSameAs(SCHEMA.getFields().get(0));
  }

  @Test
  void comparisons() {
    assertThat(sql(new EqualTo("id", 5L))).isEqualTo("id = 5");
    assertThat(sql(new GreaterThan("n", 5))).isEqualTo("n > 5");
    assertThat(sql(new GreaterThanOrEqual("id", (short) -3))).isEqualTo("id >= -3");
    // Spark puts every NaN above +Infinity; the engine puts a NaN with its sign bit below
    // -Infinity, so a float upper bound keeps the engine from selecting those.
    assertThat(sql(new LessThan("score", 0.5)))
        .isEqualTo("score < 0.5 AND score >= double '-Infinity'");
    assertThat(sql(new LessThanOrEqual("score", 2.5f)))
        .startsWith("score <= 2.5")
        .endsWith("double '-Infinity'");
    assertThat(sql(new EqualTo("flag", true))).isEqualTo("flag = true");
    assertThat(sql(new EqualTo("n", (byte) 7))).isEqualTo("n = 7");
  }

  @Test
  void nullSafeEqualityIsIsNullForNullAndNeverUnknownOtherwise() {
    assertThat(sql(new EqualNullSafe("name", null))).isEqualTo("name IS NULL");
    assertThat(sql(new EqualNullSafe("name", "a"))).isEqualTo("name IS NOT NULL AND name = 'a'");
  }

  @Test
  void nullTests() {
    assertThat(sql(new IsNull("score"))).isEqualTo("score IS NULL");
    assertThat(sql(new IsNotNull("name"))).isEqualTo("name IS NOT NULL");
  }

  @Test
  void inLists() {
    assertThat(sql(new In("id", new Object[] {1L, 2L, 3L}))).isEqualTo("id IN (1, 2, 3)");
    assertThat(sql(new In("name", new Object[] {"a", "b"}))).isEqualTo("name IN ('a', 'b')");
  }

  @Test
  void stringPatternsEscapeLikeWildcards() {
    assertThat(sql(new StringStartsWith("name", "ab"))).isEqualTo("name LIKE 'ab%'");
    assertThat(sql(new StringEndsWith("name", "yz"))).isEqualTo("name LIKE '%yz'");
    assertThat(sql(new StringContains("name", "mid"))).isEqualTo("name LIKE '%mid%'");
    assertThat(sql(new StringStartsWith("name", "50%_off\\")))
        .isEqualTo("name LIKE '50\\%\\_off\\\\%'");
  }

  @Test
  void stringLiteralsDoubleTheirQuotes() {
    assertThat(sql(new EqualTo("name", "O'Brien"))).isEqualTo("name = 'O''Brien'");
    assertThat(sql(new StringContains("name", "it's"))).isEqualTo("name LIKE '%it''s%'");
  }

  @Test
  void namesWithDotsOrKeywordsAreBackquoted() {
    // Spark backquotes a top-level name containing a dot; the engine quotes it again in its text.
    assertThat(sql(new EqualTo("`my.col`", "x"))).isEqualTo("`my.col` = 'x'");
    assertThat(sql(new GreaterThan("select", 1))).isEqualTo("`select` > 1");
  }

  @Test
  void theTextReadsBackToTheSamePredicate() {
    Filter f =
        new And(
            new Or(new EqualTo("`my.col`", "it's"), new IsNull("select")),
            new Not(new StringStartsWith("name", "a_%")));
    Predicate p = translate(f, SCHEMA).orElseThrow();
    assertThat(FilterParser.parse(p.toSql())).isEqualTo(p);
  }

  @Test
  void booleanCombinations() {
    assertThat(sql(new And(new EqualTo("id", 1L), new IsNotNull("name"))))
        .isEqualTo("id = 1 AND name IS NOT NULL");
    assertThat(sql(new Or(new EqualTo("id", 1L), new EqualTo("id", 2L))))
        .isEqualTo("id = 1 OR id = 2");
    assertThat(
            sql(new And(new Or(new EqualTo("id", 1L), new EqualTo("id", 2L)), new EqualTo("n", 3))))
        .isEqualTo("(id = 1 OR id = 2) AND n = 3");
    assertThat(sql(new Not(new EqualTo("id", 1L)))).isEqualTo("NOT id = 1");
    assertThat(sql(new Not(new And(new EqualTo("id", 1L), new EqualTo("n", 2)))))
        .isEqualTo("NOT (id = 1 AND n = 2)");
    assertThat(sql(new AlwaysTrue())).isEqualTo("true");
    assertThat(sql(new AlwaysFalse())).isEqualTo("false");
  }

  @Test
  void datesDecimalsAndBinaryLiterals() {
    assertThat(sql(new EqualTo("day", Date.valueOf("2026-12-03"))))
        .isEqualTo("day = date '2026-12-03'");
    assertThat(sql(new LessThan("day", LocalDate.of(2020, 2, 29))))
        .isEqualTo("day < date '2020-02-29'");
    staysWithSpark(new GreaterThan("price", new BigDecimal("12.50"))); // decimals stay with Spark
    assertThat(sql(new EqualTo("blob", new byte[] {0x0a, (byte) 0xff})))
        .isEqualTo("blob = X'0AFF'");
  }

  @Test
  void timestampsAreComparedAsWallClockTimeInTheColumnsZone() {
    Instant instant = Instant.parse("2026-06-01T10:15:30.250Z");
    assertThat(sql(new EqualTo("ts", instant)))
        .isEqualTo("ts = timestamp '2026-06-01 10:15:30.25'");
    // Paris is UTC+2 in June: the same instant is 12:15:30.25 on the column's wall clock.
    assertThat(sql(new GreaterThan("ts_paris", instant)))
        .isEqualTo("ts_paris > timestamp '2026-06-01 12:15:30.25'");
    assertThat(sql(new LessThan("ts_paris", Timestamp.from(instant))))
        .isEqualTo("ts_paris < timestamp '2026-06-01 12:15:30.25'");
    assertThat(sql(new EqualTo("ts_ntz", LocalDateTime.of(2026, 1, 2, 3, 4, 5))))
        .isEqualTo("ts_ntz = timestamp '2026-01-02 03:04:05'");
  }

  @Test
  void columnsTheEngineCannotFilterStayWithSpark() {
    staysWithSpark(new IsNotNull("vector"));
    staysWithSpark(new IsNull("tags"));
    staysWithSpark(new GreaterThan("point.x", 1.0));
    staysWithSpark(new EqualTo("missing", 1));
    staysWithSpark(new EqualTo("my.col", "x")); // unquoted, Spark means field col of struct my
  }

  @Test
  void anUnquotedDottedNameIsANestedFieldEvenWhenATopLevelColumnHasThatName() {
    Schema both =
        new Schema(
            List.of(
                field("a.b", new ArrowType.Int(32, true)),
                new Field(
                    "a",
                    FieldType.nullable(ArrowType.Struct.INSTANCE),
                    List.of(field("b", new ArrowType.Int(32, true))))));
    Map<String, Field> filterable = SparkFilters.filterableColumns(both);
    assertThat(filterable).containsOnlyKeys("a.b");
    // a.b is field b of struct a: pushing it as column `a.b` would filter on the wrong column.
    assertThat(translate(new EqualTo("a.b", 1), both)).isEmpty();
    assertThat(translate(new EqualTo("`a.b`", 1), both).orElseThrow().toSql())
        .isEqualTo("`a.b` = 1");
  }

  @Test
  void literalsWithoutAnEngineTypeStayWithSpark() {
    staysWithSpark(new EqualTo("id", new BigDecimal("1e30")));
  }

  @Test
  void aCombinationWithAnUntranslatablePartStaysWithSparkWhole() {
    // AND may push the part it can, as a superset Spark filters again.
    SparkPredicates.Translation and =
        SparkPredicates.translate(
                new And(new EqualTo("id", 1L), new IsNull("vector")).toV2(), SCHEMA)
            .orElseThrow();
    assertThat(and.predicate().toSql()).isEqualTo("id = 1");
    assertThat(and.exact()).isFalse();
    staysWithSpark(new Or(new IsNull("vector"), new EqualTo("id", 1L)));
    staysWithSpark(new Not(new IsNotNull("tags")));
  }

  @Test
  void unknownPredicatesStayWithSpark() {
    org.apache.spark.sql.connector.expressions.filter.Predicate custom =
        new org.apache.spark.sql.connector.expressions.filter.Predicate(
            "MY_UDF",
            new org.apache.spark.sql.connector.expressions.Expression[] {
              org.apache.spark.sql.connector.expressions.Expressions.column("id")
            });
    assertThat(SparkPredicates.translate(custom, SCHEMA)).isEmpty();
  }
}
