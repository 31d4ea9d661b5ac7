package dev.lancelot.engine.query;

import java.io.Serializable;

/**
 * What one unit did, for "analyze" output (SPEC Q12): partitions probed, rows scanned (flat search
 * and prefilter scans), distances computed, candidates returned, time, and where the prefilter mask
 * came from.
 */
public record UnitStats(
    String unitId,
    long partitionsProbed,
    long rowsScanned,
    long distancesComputed,
    long candidates,
    long nanos,
    String maskSource,
    long maskRows)
    implements Serializable {

  public String describe() {
    StringBuilder sb = new StringBuilder();
    if (partitionsProbed > 0) {
      sb.append("partitions_probed=").append(partitionsProbed).append(", ");
    }
    sb.append("rows_scanned=")
        .append(rowsScanned)
        .append(", distances_computed=")
        .append(distancesComputed)
        .append(", candidates=")
        .append(candidates);
    if (maskSource != null) {
      sb.append(", mask=").append(maskSource).append(" (").append(maskRows).append(" rows)");
    }
    sb.append(", time=").append(String.format("%.2fms", nanos / 1e6));
    return sb.toString();
  }
}
