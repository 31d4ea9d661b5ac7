package dev.lancelot.engine.expr;

import java.io.Serializable;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * A boolean filter over the rows of a table, with SQL's three-valued logic: for a row it is true,
 * false or unknown (NULL), and only rows where it is true are selected.
 *
 * <p>Predicates are immutable and {@link Serializable}, so they can travel to Spark executors.
 * {@link #toSql()} renders SQL that {@link FilterParser#parse} reads back to an equal predicate and
 * that Lance's own filter parser accepts. Build them with {@link Predicates} or parse them with
 * {@link FilterParser}; evaluate them with {@link BoundPredicate}.
 */
public sealed interface Predicate extends Serializable
    permits And,
        Or,
        Not,
        Comparison,
        InList,
        Between,
        IsNull,
        Like,
        BooleanColumn,
        Constant,
        ValueComparison,
        ValueInList,
        ValueBetween,
        ValueIsNull,
        ValueLike,
        BooleanValue,
        TruthTest,
        ArrayContains {

  /** Filter SQL for this predicate (also what {@code toString()} returns). */
  String toSql();

  /** The columns this predicate reads, in order of first appearance. */
  default Set<Column> columns() {
    Set<Column> out = new LinkedHashSet<>();
    collectColumns(this, out);
    return out;
  }

  private static void collectColumns(Predicate p, Set<Column> out) {
    if (p instanceof And and) {
      and.terms().forEach(t -> collectColumns(t, out));
    } else if (p instanceof Or or) {
      or.terms().forEach(t -> collectColumns(t, out));
    } else if (p instanceof Not not) {
      collectColumns(not.child(), out);
    } else if (p instanceof Comparison c) {
      out.add(c.column());
    } else if (p instanceof InList in) {
      out.add(in.column());
    } else if (p instanceof Between b) {
      out.add(b.column());
    } else if (p instanceof IsNull n) {
      out.add(n.column());
    } else if (p instanceof Like l) {
      out.add(l.column());
    } else if (p instanceof BooleanColumn b) {
      out.add(b.column());
    } else if (p instanceof ArrayContains a) {
      out.add(a.column());
    } else if (p instanceof ValueComparison c) {
      collectColumns(c.left(), out);
      collectColumns(c.right(), out);
    } else if (p instanceof ValueInList in) {
      collectColumns(in.value(), out);
      in.items().forEach(i -> collectColumns(i, out));
    } else if (p instanceof ValueBetween b) {
      collectColumns(b.value(), out);
      collectColumns(b.low(), out);
      collectColumns(b.high(), out);
    } else if (p instanceof ValueIsNull n) {
      collectColumns(n.value(), out);
    } else if (p instanceof ValueLike l) {
      collectColumns(l.value(), out);
    } else if (p instanceof BooleanValue b) {
      collectColumns(b.value(), out);
    } else if (p instanceof TruthTest t) {
      collectColumns(t.condition(), out);
    }
  }

  private static void collectColumns(Expr e, Set<Column> out) {
    if (e instanceof Column c) {
      out.add(c);
    } else if (e instanceof Negate n) {
      collectColumns(n.value(), out);
    } else if (e instanceof Arithmetic a) {
      collectColumns(a.left(), out);
      collectColumns(a.right(), out);
    } else if (e instanceof Cast c) {
      collectColumns(c.value(), out);
    } else if (e instanceof Call c) {
      c.arguments().forEach(a -> collectColumns(a, out));
    }
  }
}
