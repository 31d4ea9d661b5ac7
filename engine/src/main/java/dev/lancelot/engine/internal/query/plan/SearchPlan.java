package dev.lancelot.engine.internal.query.plan;

import dev.lancelot.engine.query.VectorQuery;
import java.io.Serializable;
import java.util.List;

/**
 * A planned vector search of one dataset version: independent units plus one merge. The same plan
 * runs on the local executor (a thread pool) and on Spark (one partition per unit). Serializable.
 *
 * @param notes decisions worth telling the user (fallback reasons, warnings), shown by explain
 * @param emptyResult true when the answer is known to be empty without reading data (fast_search
 *     without a usable index, SPEC Q10)
 */
public record SearchPlan(
    String location,
    long version,
    VectorQuery query,
    String vectorColumn,
    int dimension,
    List<SearchUnit> units,
    MergeSpec merge,
    List<String> notes,
    boolean emptyResult)
    implements Serializable {
  public SearchPlan {
    units = List.copyOf(units);
    notes = List.copyOf(notes);
  }

  /** The same plan for other query vectors (a block of a query frame). */
  public SearchPlan withQuery(VectorQuery other) {
    return new SearchPlan(
        location, version, other, vectorColumn, dimension, units, merge, notes, emptyResult);
  }

  /** The same plan with only {@code kept} as its units (one task's share of it). */
  public SearchPlan withUnits(List<SearchUnit> kept) {
    return new SearchPlan(
        location, version, query, vectorColumn, dimension, kept, merge, notes, emptyResult);
  }

  public List<AnnUnit> annUnits() {
    return units.stream().filter(u -> u instanceof AnnUnit).map(u -> (AnnUnit) u).toList();
  }

  public List<FlatUnit> flatUnits() {
    return units.stream().filter(u -> u instanceof FlatUnit).map(u -> (FlatUnit) u).toList();
  }

  /** The explain tree (SPEC Q12), as text. */
  public String explain() {
    return Explain.render(this, null);
  }
}
