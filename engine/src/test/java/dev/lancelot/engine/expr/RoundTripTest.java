package dev.lancelot.engine.expr;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** toSql -> parse gives an equal predicate; Java serialization keeps predicates equal. */
class RoundTripTest {
  private static final long SEED = Long.getLong("roundtrip.seed", 20240531L);
  private static final int CASES = 3000;

  @Test
  void renderedSqlParsesBackToAnEqualPredicate() {
    RandomPredicates gen = new RandomPredicates(new Random(SEED));
    for (int i = 0; i < CASES; i++) {
      Predicate p = gen.predicate(3);
      String sql = p.toSql();
      Predicate back;
      try {
        back = FilterParser.parse(sql);
      } catch (FilterParseException e) {
        throw new AssertionError(
            "seed "
                + SEED
                + " case "
                + i
                + ": "
                + p
                + " rendered as "
                + sql
                + " does not parse: "
                + e.getMessage(),
            e);
      }
      assertThat(back).as("seed %d case %d: %s", SEED, i, sql).isEqualTo(p);
      assertThat(p.toString()).isEqualTo(sql);
    }
  }

  @Test
  void javaSerializationRoundTrip() throws Exception {
    RandomPredicates gen = new RandomPredicates(new Random(SEED + 1));
    for (int i = 0; i < 300; i++) {
      Predicate p = gen.predicate(3);
      assertThat(deserialize(serialize(p))).as("seed %d case %d: %s", SEED + 1, i, p).isEqualTo(p);
    }
    for (String filter :
        List.of(
            "a % 7 = b + 1",
            "-(a * 2.5) IN (b, NULL, 3)",
            "CAST(a AS INT UNSIGNED) BETWEEN lower(s) AND 5",
            "abs(a) IS NOT NULL",
            "s NOT ILIKE 'x%'",
            "(a > 1) IS NOT TRUE",
            "starts_with(s, 'x')")) {
      Predicate p = FilterParser.parse(filter);
      assertThat(deserialize(serialize(p))).as(filter).isEqualTo(p);
    }
    // literals, columns and constants on their own too
    for (Object o :
        List.of(
            new BinaryLiteral(new byte[] {1, 2}),
            NullLiteral.INSTANCE,
            new DoubleLiteral(Double.NaN),
            Column.of("a", "b"),
            Constant.TRUE)) {
      assertThat(deserialize(serialize(o))).isEqualTo(o);
    }
  }

  @Test
  void handPickedRenderings() {
    assertThat(FilterParser.parse("a = 1 AND (b = 2 OR c = 3) AND NOT (d = 4 AND e = 5)").toSql())
        .isEqualTo("a = 1 AND (b = 2 OR c = 3) AND NOT (d = 4 AND e = 5)");
    assertThat(FilterParser.parse("`weird name` <> 'it''s'").toSql())
        .isEqualTo("`weird name` != 'it''s'");
    assertThat(FilterParser.parse("x = 1e3").toSql()).isEqualTo("x = 1000.0");
    assertThat(FilterParser.parse("x = 1e-7").toSql()).isEqualTo("x = 1.0E-7");
    assertThat(FilterParser.parse("x > double 'nan'").toSql()).isEqualTo("x > double 'NaN'");
    assertThat(FilterParser.parse("ts < timestamp '2024-01-01T10:00:00.120'").toSql())
        .isEqualTo("ts < timestamp '2024-01-01 10:00:00.12'");
    assertThat(FilterParser.parse("`in` IN (1) AND `select`.`Date`.x IS NULL").toSql())
        .isEqualTo("`in` IN (1) AND `select`.`Date`.x IS NULL");
    assertThat(FilterParser.parse("select.date.x IS NULL").toSql())
        .isEqualTo("`select`.`date`.x IS NULL");
  }

  private static byte[] serialize(Object o) throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(o);
    }
    return bytes.toByteArray();
  }

  private static Object deserialize(byte[] data) throws Exception {
    try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(data))) {
      return in.readObject();
    }
  }
}
