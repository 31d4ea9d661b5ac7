package dev.lancelot.engine.expr;

import java.util.ArrayList;
import java.util.List;

/**
 * Conjunction of two or more predicates. Nested conjunctions are flattened, so {@code a AND (b AND
 * c)} and {@code (a AND b) AND c} are the same {@code And(a, b, c)}.
 */
public record And(List<Predicate> terms) implements Predicate {
  public And {
    terms = flatten(terms);
    if (terms.size() < 2) {
      throw new IllegalArgumentException(
          "AND needs at least two terms, got "
              + terms.size()
              + "; use Predicates.and(...), which accepts any number");
    }
  }

  private static List<Predicate> flatten(List<Predicate> terms) {
    List<Predicate> flat = new ArrayList<>(terms.size());
    for (Predicate t : terms) {
      if (t instanceof And and) {
        flat.addAll(and.terms());
      } else {
        flat.add(java.util.Objects.requireNonNull(t, "term"));
      }
    }
    return List.copyOf(flat);
  }

  @Override
  public String toSql() {
    StringBuilder sb = new StringBuilder();
    for (Predicate t : terms) {
      if (!sb.isEmpty()) {
        sb.append(" AND ");
      }
      sb.append(t instanceof Or ? "(" + t.toSql() + ")" : t.toSql());
    }
    return sb.toString();
  }

  @Override
  public String toString() {
    return toSql();
  }
}
