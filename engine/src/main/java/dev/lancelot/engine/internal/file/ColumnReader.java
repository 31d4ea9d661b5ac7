package dev.lancelot.engine.internal.file;

import dev.lancelot.engine.internal.file.codec.DecodeException;
import dev.lancelot.engine.internal.file.container.ColumnInfo;
import dev.lancelot.engine.internal.file.container.PageInfo;
import dev.lancelot.engine.internal.file.layout.Layouts;
import dev.lancelot.engine.internal.file.layout.PageReader;
import java.nio.BufferUnderflowException;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Supplier;

/**
 * The pages of one column, with page readers created on first use and shared by all reads
 * (thread-safe). Turns internal decoding failures into errors naming file, column and page.
 */
final class ColumnReader {
  private final String location;
  private final ColumnInfo column;
  private final String fieldName;
  private final AtomicReferenceArray<PageReader> readers;

  ColumnReader(String location, ColumnInfo column, String fieldName) {
    this.location = location;
    this.column = column;
    this.fieldName = fieldName;
    this.readers = new AtomicReferenceArray<>(column.pages().size());
  }

  ColumnInfo info() {
    return column;
  }

  PageReader page(int index) {
    PageReader r = readers.get(index);
    if (r == null) {
      PageInfo page = column.pages().get(index);
      r = guard(index, () -> Layouts.reader(page));
      if (!readers.compareAndSet(index, null, r)) {
        r = readers.get(index);
      }
    }
    return r;
  }

  /** Runs decoding work on page {@code pageIndex}, translating failures. */
  <T> T guard(int pageIndex, Supplier<T> work) {
    try {
      return work.get();
    } catch (DecodeException e) {
      String where = where(pageIndex);
      if (e.isUnsupported()) {
        throw new UnsupportedFileFeatureException(
            "Cannot read " + where + ": " + e.getMessage() + " is not supported by lancelot yet.",
            e);
      }
      throw new CorruptFileException(
          "Cannot read " + where + ": " + e.getMessage() + ". The file is corrupt.", e);
    } catch (IndexOutOfBoundsException | BufferUnderflowException | NegativeArraySizeException e) {
      throw new CorruptFileException(
          "Cannot read "
              + where(pageIndex)
              + ": encoded data is shorter or"
              + " larger than its description says ("
              + e
              + "). The file is corrupt.",
          e);
    }
  }

  void guardRun(int pageIndex, Runnable work) {
    guard(
        pageIndex,
        () -> {
          work.run();
          return null;
        });
  }

  private String where(int pageIndex) {
    PageInfo page = column.pages().get(pageIndex);
    return "column \""
        + fieldName
        + "\" (column "
        + column.index()
        + ") page "
        + pageIndex
        + " ["
        + Layouts.describe(page)
        + "] of "
        + location;
  }
}
