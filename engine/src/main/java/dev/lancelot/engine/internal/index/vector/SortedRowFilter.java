package dev.lancelot.engine.internal.index.vector;

import java.util.function.LongPredicate;

/**
 * A row filter that can also list the rows it admits, in ascending (unsigned) row address order. A
 * vector search then finds a partition's admitted nodes by looking the admitted rows up among the
 * partition's row addresses instead of testing every node of the partition, which matters when the
 * filter is selective (a few thousand rows of a million).
 */
public interface SortedRowFilter extends LongPredicate {
  /** How many rows the filter admits. */
  long cardinality();

  /** Every admitted row address, ascending as unsigned numbers; the caller must not change it. */
  long[] rowsAscending();
}
