package dev.lancelot.engine.expr.oracle;

import dev.lancelot.engine.expr.Arithmetic;
import dev.lancelot.engine.expr.ArithmeticOp;
import dev.lancelot.engine.expr.Call;
import dev.lancelot.engine.expr.Cast;
import dev.lancelot.engine.expr.CastType;
import dev.lancelot.engine.expr.Column;
import dev.lancelot.engine.expr.CompareOp;
import dev.lancelot.engine.expr.DoubleLiteral;
import dev.lancelot.engine.expr.Expr;
import dev.lancelot.engine.expr.FilterFunction;
import dev.lancelot.engine.expr.LongLiteral;
import dev.lancelot.engine.expr.Negate;
import dev.lancelot.engine.expr.NullLiteral;
import dev.lancelot.engine.expr.Predicate;
import dev.lancelot.engine.expr.Predicates;
import dev.lancelot.engine.expr.StringLiteral;
import dev.lancelot.engine.expr.TruthTest;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Random predicates over value expressions on {@link TypedData}: arithmetic trees over numeric
 * columns of every width (so overflow wraps and types meet in common types), column-to-column
 * comparisons, casts, functions and truth tests. Only forms that cannot fail on the data are
 * generated: divisors are non-zero literals other than -1, casts widen or go to float or string,
 * {@code abs} takes floats or int64 sums, and uint64 never meets a signed integer in arithmetic
 * (Lance computes that in decimal, which this engine refuses).
 */
final class TypedExpressions {
  private static final String[] SIGNED = {"i8", "i16", "i32", "st.x", "Odd name-1", "id"};
  private static final String[] UNSIGNED = {"u8", "u16", "u32"};
  private static final String[] FLOATS = {"f32", "f64", "f16"};
  private static final String[] STRINGS = {"s", "ls", "st.s"};
  private static final String[] WORDS = {"apple", "a", "b", "ba", "é", "%", "Ünï", ""};

  private final Random r;

  TypedExpressions(Random random) {
    this.r = random;
  }

  Predicate predicate(int depth) {
    if (depth > 0 && r.nextInt(4) == 0) {
      return switch (r.nextInt(3)) {
        case 0 -> Predicates.not(predicate(depth - 1));
        case 1 -> Predicates.and(predicate(depth - 1), predicate(depth - 1));
        default -> Predicates.or(predicate(depth - 1), predicate(depth - 1));
      };
    }
    int shape = r.nextInt(12);
    if (shape <= 5) {
      Expr left = number(2);
      Expr right = r.nextBoolean() ? number(1) : small();
      return Predicates.compareValues(notBare(left), op(), notBare(right));
    } else if (shape == 6) {
      List<Expr> items = new ArrayList<>();
      for (int i = 0, n = 1 + r.nextInt(3); i < n; i++) {
        items.add(r.nextInt(6) == 0 ? NullLiteral.INSTANCE : r.nextBoolean() ? small() : number(1));
      }
      return Predicates.inValues(notBare(number(2)), items, r.nextBoolean());
    } else if (shape == 7) {
      return Predicates.betweenValues(notBare(number(2)), number(1), number(1), r.nextBoolean());
    } else if (shape == 8) {
      return Predicates.isNullValue(number(2), r.nextBoolean());
    } else if (shape == 9) {
      return strings();
    } else if (shape == 10) {
      Predicate inner = predicate(depth - 1);
      TruthTest.Truth truth = TruthTest.Truth.values()[r.nextInt(3)];
      if (truth == TruthTest.Truth.NULL
          && (inner instanceof dev.lancelot.engine.expr.BooleanValue
              || inner instanceof dev.lancelot.engine.expr.BooleanColumn)) {
        truth = TruthTest.Truth.TRUE;
      }
      return new TruthTest(inner, truth, r.nextBoolean());
    }
    // CAST of an integer expression to STRING compared with a string.
    Expr text = new Cast(integer(1, r.nextBoolean()), CastType.STRING);
    return Predicates.compareValues(
        text,
        op(),
        new StringLiteral(List.of("0", "1", "-3", "10", "2", "-1", "127").get(r.nextInt(7))));
  }

  private Predicate strings() {
    Expr s = column(STRINGS);
    if (r.nextBoolean()) {
      s = new Call(r.nextBoolean() ? FilterFunction.LOWER : FilterFunction.UPPER, List.of(s));
    }
    String word = WORDS[r.nextInt(WORDS.length)];
    return switch (r.nextInt(6)) {
      case 0 ->
          Predicates.condition(
              new Call(FilterFunction.STARTS_WITH, List.of(s, new StringLiteral(word))));
      case 1 ->
          Predicates.condition(
              new Call(FilterFunction.ENDS_WITH, List.of(s, new StringLiteral(word))));
      case 2 ->
          Predicates.condition(
              new Call(
                  FilterFunction.CONTAINS,
                  List.of(s, r.nextBoolean() ? new StringLiteral(word) : column(STRINGS))));
      case 3 -> Predicates.likeValue(s, word + "%", r.nextBoolean(), true);
      case 4 ->
          Predicates.compareValues(
              new Call(
                  r.nextBoolean() ? FilterFunction.LENGTH : FilterFunction.OCTET_LENGTH,
                  List.of(s)),
              op(),
              new LongLiteral(r.nextInt(4)));
      default ->
          Predicates.compareValues(
              s, op(), r.nextBoolean() ? column(STRINGS) : new StringLiteral(word));
    };
  }

  /** A numeric expression: integers of either signedness, or floats mixed with anything. */
  private Expr number(int depth) {
    return switch (r.nextInt(3)) {
      case 0 -> integer(depth, true);
      case 1 -> integer(depth, false);
      default -> floating(depth);
    };
  }

  private Expr integer(int depth, boolean signed) {
    if (depth <= 0 || r.nextInt(3) == 0) {
      return r.nextInt(5) == 0 ? small() : column(signed ? SIGNED : UNSIGNED);
    }
    Expr l = integer(depth - 1, signed);
    return switch (r.nextInt(7)) {
      case 0, 1 -> new Arithmetic(l, ArithmeticOp.ADD, integer(depth - 1, signed));
      case 2 -> new Arithmetic(l, ArithmeticOp.SUBTRACT, integer(depth - 1, signed));
      case 3 -> new Arithmetic(l, ArithmeticOp.MULTIPLY, integer(depth - 1, signed));
      case 4 ->
          new Arithmetic(
              l,
              r.nextBoolean() ? ArithmeticOp.DIVIDE : ArithmeticOp.MODULO,
              new LongLiteral(List.of(2L, 3L, 7L, -3L, 100L).get(r.nextInt(5))));
      case 5 -> signed ? new Negate(l) : new Cast(l, CastType.BIGINT);
      default ->
          r.nextBoolean()
              ? new Cast(l, CastType.BIGINT)
              : new Call(
                  FilterFunction.ABS,
                  List.of(new Arithmetic(l, ArithmeticOp.ADD, new LongLiteral(0))));
    };
  }

  private Expr floating(int depth) {
    if (depth <= 0 || r.nextInt(3) == 0) {
      return r.nextInt(5) == 0
          ? new DoubleLiteral(List.of(0.5, -1.5, 0.1, 2.0).get(r.nextInt(4)))
          : column(FLOATS);
    }
    Expr l = floating(depth - 1);
    Expr other = r.nextBoolean() ? floating(depth - 1) : integer(depth - 1, r.nextBoolean());
    return switch (r.nextInt(8)) {
      case 0, 1 -> new Arithmetic(l, ArithmeticOp.ADD, other);
      case 2 -> new Arithmetic(other, ArithmeticOp.SUBTRACT, l);
      case 3 -> new Arithmetic(l, ArithmeticOp.MULTIPLY, other);
      case 4 -> new Arithmetic(other, ArithmeticOp.DIVIDE, l);
      case 5 -> new Arithmetic(l, ArithmeticOp.MODULO, other);
      case 6 -> new Negate(l);
      default ->
          r.nextBoolean()
              ? new Call(FilterFunction.ABS, List.of(l))
              : new Cast(other, r.nextBoolean() ? CastType.DOUBLE : CastType.FLOAT);
    };
  }

  /**
   * A bare column becomes {@code column + 0}: a column compared with a literal is the form Lance
   * coerces literal-first and refuses for e.g. {@code u16 > 2.0} (the existing generator in {@link
   * TypedPredicates} covers that form with literals Lance accepts).
   */
  private static Expr notBare(Expr e) {
    return e instanceof Column ? new Arithmetic(e, ArithmeticOp.ADD, new LongLiteral(0)) : e;
  }

  private Expr small() {
    return new LongLiteral(r.nextInt(9) - 4);
  }

  private Expr column(String[] names) {
    String name = names[r.nextInt(names.length)];
    return name.startsWith("st.") ? Column.of(name.split("\\.")) : Column.named(name);
  }

  private CompareOp op() {
    return CompareOp.values()[r.nextInt(CompareOp.values().length)];
  }
}
