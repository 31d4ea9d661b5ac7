package dev.lancelot.engine.internal.scan;

import dev.lancelot.engine.expr.BoundPredicate;
import dev.lancelot.engine.schema.LanceField;
import java.util.List;

/**
 * What a scan produces: the projected top-level fields (in output order), an optional filter, the
 * batch size, and the virtual columns {@code _rowid} / {@code _rowaddr} (uint64; equal unless the
 * dataset uses stable row ids, when {@code _rowid} is the row's stable id).
 */
public record ScanSpec(
    List<LanceField> projection,
    BoundPredicate filter,
    int batchSize,
    boolean withRowId,
    boolean withRowAddress) {
  public static final String ROW_ID = "_rowid";
  public static final String ROW_ADDRESS = "_rowaddr";
  public static final int DEFAULT_BATCH_SIZE = 8192;

  public ScanSpec {
    projection = List.copyOf(projection);
    if (batchSize < 1) {
      throw new IllegalArgumentException("Batch size must be at least 1, got " + batchSize);
    }
  }
}
