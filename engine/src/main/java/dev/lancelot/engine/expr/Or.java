package dev.lancelot.engine.expr;

import java.util.ArrayList;
import java.util.List;

/** Disjunction of two or more predicates; nested disjunctions are flattened like {@link And}. */
public record Or(List<Predicate> terms) implements Predicate {
  public Or {
    terms = flatten(terms);
    if (terms.size() < 2) {
      throw new IllegalArgumentException(
          "OR needs at least two terms, got "
              + terms.size()
              + "; use Predicates.or(...), which accepts any number");
    }
  }

  private static List<Predicate> flatten(List<Predicate> terms) {
    List<Predicate> flat = new ArrayList<>(terms.size());
    for (Predicate t : terms) {
      if (t instanceof Or or) {
        flat.addAll(or.terms());
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
        sb.append(" OR ");
      }
      sb.append(t.toSql()); // AND and NOT bind tighter than OR: no parentheses needed
    }
    return sb.toString();
  }

  @Override
  public String toString() {
    return toSql();
  }
}
