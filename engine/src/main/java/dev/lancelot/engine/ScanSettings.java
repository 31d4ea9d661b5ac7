package dev.lancelot.engine;

import dev.lancelot.engine.expr.BoundPredicate;
import java.io.Serializable;
import java.util.List;

/**
 * What a {@link Scanner} returns, apart from the dataset and the allocator: the settings a
 * coordinator plans with and every task of the same scan applies ({@link Scanner#settings()},
 * {@link Scanner#with(ScanSettings)}). Serializable.
 *
 * @param columns top-level columns in output order; null for every column
 * @param filter the filter bound on the coordinator; null for none
 * @param batchSize rows per batch
 * @param withRowId whether {@code _rowid} is returned
 * @param withRowAddress whether {@code _rowaddr} is returned
 * @param useScalarIndex whether scalar indexes may select the rows read ({@link
 *     Scanner#useScalarIndex})
 */
public record ScanSettings(
    List<String> columns,
    BoundPredicate filter,
    int batchSize,
    boolean withRowId,
    boolean withRowAddress,
    boolean useScalarIndex)
    implements Serializable {
  public ScanSettings {
    columns = columns == null ? null : List.copyOf(columns);
    if (batchSize < 1) {
      throw new InvalidInputException(
          "Cannot scan: batch size must be at least 1, got " + batchSize);
    }
  }

  /** Settings that let scalar indexes select the rows read. */
  public ScanSettings(
      List<String> columns,
      BoundPredicate filter,
      int batchSize,
      boolean withRowId,
      boolean withRowAddress) {
    this(columns, filter, batchSize, withRowId, withRowAddress, true);
  }
}
