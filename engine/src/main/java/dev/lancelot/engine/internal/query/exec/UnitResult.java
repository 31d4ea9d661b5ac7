package dev.lancelot.engine.internal.query.exec;

import dev.lancelot.engine.query.UnitStats;
import java.io.Serializable;
import java.util.List;

/** A unit's candidates, one entry per query vector, and what it did. */
public record UnitResult(String unitId, List<Candidates> perQuery, UnitStats stats)
    implements Serializable {
  public UnitResult {
    perQuery = List.copyOf(perQuery);
  }
}
