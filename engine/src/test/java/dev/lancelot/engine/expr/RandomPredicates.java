package dev.lancelot.engine.expr;

import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/** Random predicates over every construct and awkward names and literals (model only). */
final class RandomPredicates {
  private static final String[] NAMES = {
    "x",
    "tenant_id",
    "Name",
    "weird name",
    "a.b",
    "in",
    "Date",
    "x`y",
    "é",
    "_1",
    "1abc",
    "NULL",
    "true",
    "select",
    "a-b",
    "double",
    "timestamp"
  };
  private static final String[] STRINGS = {
    "", "a", "it's", "''", "a\\b", "\\", "%_", "line\nbreak", "tab\t", "é😀", "\"dq\"", "`"
  };

  private final Random random;

  RandomPredicates(Random random) {
    this.random = random;
  }

  Predicate predicate(int depth) {
    int choice = random.nextInt(depth <= 0 ? 7 : 10);
    return switch (choice) {
      case 0 -> new Comparison(column(), CompareOp.values()[random.nextInt(6)], literal());
      case 1 -> new InList(column(), literals(1 + random.nextInt(4)), random.nextBoolean());
      case 2 -> new Between(column(), literal(), literal(), random.nextBoolean());
      case 3 -> new IsNull(column(), random.nextBoolean());
      case 4 ->
          new Like(column(), STRINGS[random.nextInt(STRINGS.length)] + "%", random.nextBoolean());
      case 5 -> new BooleanColumn(column());
      case 6 -> Constant.of(random.nextBoolean());
      case 7 -> new Not(predicate(depth - 1));
      case 8 -> new And(terms(depth));
      default -> new Or(terms(depth));
    };
  }

  private List<Predicate> terms(int depth) {
    List<Predicate> terms = new ArrayList<>();
    int n = 2 + random.nextInt(3);
    for (int i = 0; i < n; i++) {
      terms.add(predicate(depth - 1));
    }
    return terms;
  }

  Column column() {
    int parts = random.nextInt(5) == 0 ? 2 + random.nextInt(2) : 1;
    List<String> path = new ArrayList<>();
    for (int i = 0; i < parts; i++) {
      path.add(NAMES[random.nextInt(NAMES.length)]);
    }
    return new Column(path);
  }

  private List<Literal> literals(int n) {
    List<Literal> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(literal());
    }
    return out;
  }

  Literal literal() {
    return switch (random.nextInt(9)) {
      case 0 ->
          new LongLiteral(
              switch (random.nextInt(4)) {
                case 0 -> Long.MIN_VALUE;
                case 1 -> Long.MAX_VALUE;
                case 2 -> random.nextLong();
                default -> random.nextInt(201) - 100;
              });
      case 1 ->
          new DoubleLiteral(
              switch (random.nextInt(6)) {
                case 0 -> Double.longBitsToDouble(random.nextLong()); // any bits: NaNs, subnormals
                case 1 ->
                    new double[] {
                          Double.NaN,
                          Double.POSITIVE_INFINITY,
                          Double.NEGATIVE_INFINITY,
                          -0.0,
                          0.0,
                          Double.MIN_VALUE,
                          Double.MAX_VALUE,
                          -Double.MIN_NORMAL
                        }
                        [random.nextInt(8)];
                case 2 -> Math.round(random.nextGaussian() * 1000) / 8.0;
                default -> random.nextGaussian() * Math.pow(10, random.nextInt(40) - 20);
              });
      case 2 ->
          new StringLiteral(
              STRINGS[random.nextInt(STRINGS.length)]
                  + (random.nextBoolean() ? "" : Integer.toString(random.nextInt(100))));
      case 3 -> BooleanLiteral.of(random.nextBoolean());
      case 4 -> NullLiteral.INSTANCE;
      case 5 -> new DateLiteral(LocalDate.ofEpochDay(random.nextInt(4_000_000) - 1_000_000));
      case 6 ->
          new TimestampLiteral(
              LocalDateTime.of(
                  LocalDate.ofEpochDay(random.nextInt(40_000) - 10_000),
                  java.time.LocalTime.ofNanoOfDay(
                      random.nextBoolean()
                          ? random.nextLong(86_400_000_000_000L)
                          : random.nextInt(86_400) * 1_000_000_000L)));
      case 7 -> {
        byte[] b = new byte[random.nextInt(6)];
        random.nextBytes(b);
        yield new BinaryLiteral(b);
      }
      default -> new LongLiteral(random.nextInt(10));
    };
  }
}
