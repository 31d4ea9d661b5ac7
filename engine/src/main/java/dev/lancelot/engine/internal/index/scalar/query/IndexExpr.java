package dev.lancelot.engine.internal.index.scalar.query;

import dev.lancelot.engine.internal.index.scalar.btree.Condition;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;

/**
 * A filter rewritten for scalar indexes: AND / OR over conditions on indexed columns, with every
 * NOT already pushed into the conditions, so the rows a filter selects are the intersections and
 * unions of the rows each condition selects. {@link All} and {@link None} only ever stand for a
 * whole filter: the constructors here fold them away inside AND and OR.
 */
public sealed interface IndexExpr {
  /** A condition on the column in slot {@code slot} of the bound filter. */
  record Leaf(int slot, Condition condition) implements IndexExpr {}

  record And(List<IndexExpr> terms) implements IndexExpr {
    public And {
      terms = List.copyOf(terms);
    }
  }

  record Or(List<IndexExpr> terms) implements IndexExpr {
    public Or {
      terms = List.copyOf(terms);
    }
  }

  /** Every row (e.g. the filter {@code TRUE}). */
  record All() implements IndexExpr {}

  /** No row (e.g. {@code x = NULL}). */
  record None() implements IndexExpr {}

  /**
   * Every row. A method, not a constant: a constant of a nested implementation would risk a
   * class-initialization deadlock between this interface and the record.
   */
  static IndexExpr all() {
    return new All();
  }

  /** No row. */
  static IndexExpr none() {
    return new None();
  }

  static IndexExpr and(List<IndexExpr> terms) {
    List<IndexExpr> kept = new ArrayList<>();
    for (IndexExpr t : terms) {
      if (t instanceof None) {
        return none();
      } else if (t instanceof And a) {
        kept.addAll(a.terms());
      } else if (!(t instanceof All)) {
        kept.add(t);
      }
    }
    kept = mergeLeaves(kept, true);
    return kept.isEmpty() ? all() : kept.size() == 1 ? kept.get(0) : new And(kept);
  }

  static IndexExpr or(List<IndexExpr> terms) {
    List<IndexExpr> kept = new ArrayList<>();
    for (IndexExpr t : terms) {
      if (t instanceof All) {
        return all();
      } else if (t instanceof Or o) {
        kept.addAll(o.terms());
      } else if (!(t instanceof None)) {
        kept.add(t);
      }
    }
    kept = mergeLeaves(kept, false);
    return kept.isEmpty() ? none() : kept.size() == 1 ? kept.get(0) : new Or(kept);
  }

  /**
   * Joins the leaves on one column into one leaf, so an index reads only pages every (AND) or some
   * (OR) of them may match: {@code x >= 3 AND x <= 7} reads the pages of [3, 7], not of both
   * halves.
   */
  private static List<IndexExpr> mergeLeaves(List<IndexExpr> terms, boolean conjunction) {
    java.util.Map<Integer, List<Condition>> bySlot = new java.util.LinkedHashMap<>();
    for (IndexExpr t : terms) {
      if (t instanceof Leaf l) {
        bySlot.computeIfAbsent(l.slot(), s -> new ArrayList<>()).add(l.condition());
      }
    }
    List<IndexExpr> out = new ArrayList<>();
    java.util.Set<Integer> emitted = new java.util.HashSet<>();
    for (IndexExpr t : terms) {
      if (!(t instanceof Leaf l)) {
        out.add(t);
      } else if (emitted.add(l.slot())) {
        List<Condition> conditions = bySlot.get(l.slot());
        out.add(
            conditions.size() == 1
                ? l
                : new Leaf(
                    l.slot(),
                    conjunction
                        ? new Condition.AllOf(conditions)
                        : new Condition.AnyOf(conditions)));
      }
    }
    return out;
  }

  /** Every leaf, left to right. */
  default List<Leaf> leaves() {
    List<Leaf> out = new ArrayList<>();
    collect(this, out);
    return out;
  }

  private static void collect(IndexExpr e, List<Leaf> out) {
    if (e instanceof Leaf l) {
      out.add(l);
    } else if (e instanceof And a) {
      a.terms().forEach(t -> collect(t, out));
    } else if (e instanceof Or o) {
      o.terms().forEach(t -> collect(t, out));
    }
  }

  /** Text for explain output, naming each leaf's column with {@code columnName}. */
  default String describe(IntFunction<String> columnName) {
    if (this instanceof Leaf l) {
      return columnName.apply(l.slot()) + " " + l.condition().describe();
    } else if (this instanceof And a) {
      return join(a.terms(), " AND ", columnName);
    } else if (this instanceof Or o) {
      return join(o.terms(), " OR ", columnName);
    }
    return this instanceof All ? "all rows" : "no rows";
  }

  private static String join(List<IndexExpr> terms, String op, IntFunction<String> columnName) {
    List<String> parts = new ArrayList<>();
    for (IndexExpr t : terms) {
      String s = t.describe(columnName);
      parts.add(t instanceof Leaf ? s : "(" + s + ")");
    }
    return String.join(op, parts);
  }
}
