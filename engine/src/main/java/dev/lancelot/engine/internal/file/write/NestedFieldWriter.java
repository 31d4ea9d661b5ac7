package dev.lancelot.engine.internal.file.write;

import dev.lancelot.engine.schema.LanceField;
import java.io.IOException;
import java.util.List;
import org.apache.arrow.vector.FieldVector;

/**
 * A struct or list field: each slice of rows is shredded into every leaf's column, and each leaf
 * column writes a page when it has gathered about {@code maxPageBytes}; leaves page independently.
 */
final class NestedFieldWriter implements FieldWriter {
  /** Rows shredded at a time. */
  private static final int SLICE_ROWS = 256;

  private final LanceField field;
  private final List<ColumnWriter> columns;
  private final List<Shredder> shredders;

  NestedFieldWriter(LanceField field, List<ColumnWriter> columns, List<Shredder> shredders) {
    this.field = field;
    this.columns = List.copyOf(columns);
    this.shredders = List.copyOf(shredders);
  }

  @Override
  public LanceField field() {
    return field;
  }

  @Override
  public List<ColumnWriter> columns() {
    return columns;
  }

  @Override
  public void append(FieldVector v, AlignedOutput out) throws IOException {
    int n = v.getValueCount();
    for (int row = 0; row < n; row += SLICE_ROWS) {
      int take = Math.min(SLICE_ROWS, n - row);
      for (int i = 0; i < columns.size(); i++) {
        shredders.get(i).shred(v, row, take);
        columns.get(i).flushIfFull(out);
      }
    }
  }
}
