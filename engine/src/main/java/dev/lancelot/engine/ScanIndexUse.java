package dev.lancelot.engine;

import java.io.Serializable;
import java.util.List;

/**
 * How a {@link Scanner} uses scalar indexes for its filter ({@link Scanner#indexUse()}): which
 * indexes answered which part, what the lookup cost and what it selected. Rows an index selects are
 * the only rows read from the fragments it covers; the filter is applied to them again, so the
 * result is the same as a full scan's. Fragments the indexes do not cover are read in full.
 *
 * @param used whether the scan reads by an index selection
 * @param explain one line saying what was used, or why no index was
 * @param indexes the indexes used (empty when none)
 * @param exact whether the indexes answer the whole filter (else they answer a superset, rechecked)
 * @param indexLookups index segments searched
 * @param rowsSelected live rows the indexes selected in the scanned fragments they cover
 * @param fragmentsSkipped scanned fragments the indexes cover where they selected no row
 * @param fragmentsReadInFull scanned fragments read in full: not covered by every index used, or
 *     where the selection holds more than half of the fragment's rows (reading it whole is then
 *     cheaper than taking the rows)
 */
public record ScanIndexUse(
    boolean used,
    String explain,
    List<String> indexes,
    boolean exact,
    int indexLookups,
    long rowsSelected,
    int fragmentsSkipped,
    int fragmentsReadInFull)
    implements Serializable {
  public ScanIndexUse {
    indexes = List.copyOf(indexes);
  }

  /** No index used, for {@code reason}. */
  static ScanIndexUse none(String reason) {
    return new ScanIndexUse(false, reason, List.of(), false, 0, 0, 0, 0);
  }
}
