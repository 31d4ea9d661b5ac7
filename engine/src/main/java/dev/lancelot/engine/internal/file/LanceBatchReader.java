package dev.lancelot.engine.internal.file;

import dev.lancelot.engine.internal.file.arrow.FieldSink;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Batches of a row range of a Lance file, as an Arrow {@link ArrowReader}: call {@link
 * #loadNextBatch()} until it returns false; {@link #getVectorSchemaRoot()} holds the current batch
 * (the same root object each time, refilled). Created by {@link
 * LanceFileReader#read(FileProjection, long, long, int, BufferAllocator)}.
 *
 * <p>One batch reader is used by one thread at a time. Closing it releases the root's buffers.
 */
public final class LanceBatchReader extends ArrowReader {
  private final LanceFileReader file;
  private final FileProjection projection;
  private final Schema schema;
  private final List<List<ColumnScanner>> scanners;
  private final List<Nested20Field> nested20;
  private final long end;
  private final int batchSize;
  private long next;

  private final java.util.concurrent.atomic.AtomicLong bytesRead;

  LanceBatchReader(
      LanceFileReader file,
      FileProjection projection,
      Schema schema,
      List<List<ColumnScanner>> scanners,
      List<Nested20Field> nested20,
      long start,
      long end,
      int batchSize,
      BufferAllocator allocator,
      java.util.concurrent.atomic.AtomicLong bytesRead) {
    super(allocator);
    this.file = file;
    this.projection = projection;
    this.schema = schema;
    this.scanners = scanners;
    this.nested20 = nested20;
    this.next = start;
    this.end = end;
    this.batchSize = batchSize;
    this.bytesRead = bytesRead;
  }

  @Override
  public boolean loadNextBatch() throws java.io.IOException {
    prepareLoadNextBatch();
    if (next >= end) {
      return false;
    }
    int n = (int) Math.min(batchSize, end - next);
    VectorSchemaRoot root = getVectorSchemaRoot();
    List<FieldSink> sinks = new ArrayList<>(scanners.size());
    try {
      for (int i = 0; i < scanners.size(); i++) {
        if (nested20.get(i) != null) {
          sinks.add(nested20Sink(nested20.get(i), n));
          continue;
        }
        List<ColumnScanner> columns = scanners.get(i);
        FieldSink sink =
            file.newSink(projection, i, schema.getFields().get(i), allocator, n, columns.size());
        sinks.add(sink);
        for (int c = 0; c < columns.size(); c++) {
          columns.get(c).next(n, sink.column(c));
        }
      }
    } catch (RuntimeException e) {
      for (FieldSink s : sinks) {
        s.abort();
      }
      throw e;
    }
    for (int i = 0; i < sinks.size(); i++) {
      FieldVector decoded;
      try {
        decoded = file.finish(sinks.get(i), schema.getFields().get(i));
      } catch (RuntimeException e) {
        for (int j = i + 1; j < sinks.size(); j++) {
          sinks.get(j).abort();
        }
        throw e;
      }
      try {
        decoded.makeTransferPair(root.getVector(i)).transfer();
      } finally {
        decoded.close();
      }
    }
    root.setRowCount(n);
    next += n;
    return true;
  }

  /** A format 2.0 struct or list field: its batch is read whole, top-down. */
  private FieldSink nested20Sink(Nested20Field field, int n) {
    FieldVector v = field.read(List.of(new long[] {next, next + n}), allocator);
    return new FieldSink() {
      @Override
      public int numColumns() {
        return 0;
      }

      @Override
      public dev.lancelot.engine.internal.file.arrow.ColumnSink column(int i) {
        throw new IndexOutOfBoundsException("a format 2.0 nested field has no column sinks");
      }

      @Override
      public FieldVector finish() {
        return v;
      }

      @Override
      public void abort() {
        v.close();
      }
    };
  }

  /** The projection this reader returns. */
  public FileProjection projection() {
    return projection;
  }

  /** Bytes of page data (and page metadata) this reader has requested so far. */
  @Override
  public long bytesRead() {
    return bytesRead.get();
  }

  @Override
  protected void closeReadSource() {
    // The input file belongs to whoever opened it.
  }

  @Override
  protected Schema readSchema() {
    return schema;
  }
}
