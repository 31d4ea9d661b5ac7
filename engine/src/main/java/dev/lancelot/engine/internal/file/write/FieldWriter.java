package dev.lancelot.engine.internal.file.write;

import dev.lancelot.engine.schema.LanceField;
import java.io.IOException;
import java.util.List;
import org.apache.arrow.vector.FieldVector;

/** Writes one top-level field into its file columns (one, or one per leaf of a nested field). */
public interface FieldWriter {
  LanceField field();

  /** The field's columns, in file order. */
  List<ColumnWriter> columns();

  /** Appends all rows of {@code v}, writing pages to {@code out} as they fill up. */
  void append(FieldVector v, AlignedOutput out) throws IOException;

  /**
   * A writer for {@code field} (ids assigned) with pages of about {@code maxPageBytes}; a blob
   * column goes into {@code blobFiles} (blob v2) or, when it is null, the legacy layout.
   */
  static FieldWriter create(LanceField field, long maxPageBytes, BlobFiles blobFiles) {
    if (field.isBlob()) {
      return new BlobFieldWriter(field, maxPageBytes, blobFiles);
    }
    return ColumnBuffers.writer(field, maxPageBytes);
  }
}
