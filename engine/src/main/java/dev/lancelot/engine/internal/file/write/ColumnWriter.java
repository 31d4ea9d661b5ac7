package dev.lancelot.engine.internal.file.write;

import com.google.protobuf.Any;
import dev.lancelot.engine.internal.file.proto.File2Protos;
import dev.lancelot.engine.schema.LanceField;
import java.io.IOException;
import java.util.List;
import org.apache.arrow.vector.FieldVector;

/**
 * Buffers one file column and writes a page whenever about {@code maxPageBytes} of values have
 * accumulated, so large files keep pages small enough to skip.
 */
public final class ColumnWriter implements FieldWriter {
  /** Most rows appended at a time; slices are sized so pages end close to their target size. */
  private static final int SLICE_ROWS = 1024;

  private final LanceField field;
  private final ColumnBuffer buffer;
  private final long maxPageBytes;
  private final java.util.function.UnaryOperator<
          dev.lancelot.engine.internal.file.proto.Encodings21Protos.PageLayout>
      layouts;
  private final File2Protos.ColumnMetadata.Builder metadata =
      File2Protos.ColumnMetadata.newBuilder();
  private long rowsWritten;

  /**
   * {@code field}: the top-level field of a flat column, or the leaf of a nested field's column.
   */
  ColumnWriter(LanceField field, ColumnBuffer buffer, long maxPageBytes) {
    this(field, buffer, maxPageBytes, java.util.function.UnaryOperator.identity());
  }

  /** As above, each page's layout passed through {@code layouts} before it is written. */
  ColumnWriter(
      LanceField field,
      ColumnBuffer buffer,
      long maxPageBytes,
      java.util.function.UnaryOperator<
              dev.lancelot.engine.internal.file.proto.Encodings21Protos.PageLayout>
          layouts) {
    this.field = field;
    this.buffer = buffer;
    this.maxPageBytes = maxPageBytes;
    this.layouts = layouts;
  }

  @Override
  public LanceField field() {
    return field;
  }

  @Override
  public List<ColumnWriter> columns() {
    return List.of(this);
  }

  /** Appends all rows of {@code v} (flat columns), writing pages to {@code out} as they fill up. */
  @Override
  public void append(FieldVector v, AlignedOutput out) throws IOException {
    int n = v.getValueCount();
    int row = 0;
    while (row < n) {
      int take;
      if (buffer.rows() == 0) {
        take = Math.min(16, n - row);
      } else {
        long perRow = Math.max(1, (buffer.bytes() + buffer.rows() - 1) / buffer.rows());
        long fit = (maxPageBytes - buffer.bytes()) / perRow + 1;
        take = (int) Math.min(n - row, Math.max(1, Math.min(SLICE_ROWS, fit)));
      }
      if (buffer instanceof FlatColumnBuffer flat) {
        flat.append(v, row, take);
      } else if (buffer instanceof NullColumnBuffer nulls) {
        nulls.append(take);
      } else {
        throw new IllegalStateException("column of a nested field appended as a flat column");
      }
      row += take;
      flushIfFull(out);
    }
  }

  /** Writes a page when the buffer has reached the page size. */
  void flushIfFull(AlignedOutput out) throws IOException {
    if (buffer.bytes() >= maxPageBytes) {
      flush(out);
    }
  }

  /** Writes the buffered rows (if any) as pages. */
  public void flush(AlignedOutput out) throws IOException {
    if (buffer.rows() == 0) {
      return;
    }
    for (EncodedPage page : buffer.encode()) {
      File2Protos.ColumnMetadata.Page.Builder p = File2Protos.ColumnMetadata.Page.newBuilder();
      for (ByteSlice b : page.buffers()) {
        p.addBufferOffsets(out.writeAligned(b.array(), b.offset(), b.length()));
        p.addBufferSizes(b.length());
      }
      Any any =
          Any.newBuilder()
              .setTypeUrl("/lance.encodings21.PageLayout")
              .setValue(layouts.apply(page.layout()).toByteString())
              .build();
      p.setLength(page.numRows())
          .setPriority(rowsWritten)
          .setEncoding(
              File2Protos.Encoding.newBuilder()
                  .setDirect(
                      File2Protos.DirectEncoding.newBuilder().setEncoding(any.toByteString())));
      metadata.addPages(p);
      rowsWritten += page.numRows();
    }
  }

  public long rowsWritten() {
    return rowsWritten;
  }

  public int pages() {
    return metadata.getPagesCount();
  }

  /** The column metadata message (call after the final flush). */
  public File2Protos.ColumnMetadata metadata() {
    Any columnEncoding =
        Any.newBuilder()
            .setTypeUrl("/lance.encodings.ColumnEncoding")
            .setValue(
                dev.lancelot.engine.internal.file.proto.Encodings20Protos.ColumnEncoding
                    .newBuilder()
                    .setValues(com.google.protobuf.Empty.getDefaultInstance())
                    .build()
                    .toByteString())
            .build();
    return metadata
        .setEncoding(
            File2Protos.Encoding.newBuilder()
                .setDirect(
                    File2Protos.DirectEncoding.newBuilder()
                        .setEncoding(columnEncoding.toByteString())))
        .build();
  }
}
