package dev.lancelot.engine.testing;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;

/** Turns in-memory batches into an {@link ArrowReader} (what lance-core's writers consume). */
public final class ArrowStreams {
  private ArrowStreams() {}

  public static ArrowReader readerOf(BufferAllocator allocator, List<VectorSchemaRoot> batches) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try {
      VectorSchemaRoot first = batches.get(0);
      try (VectorSchemaRoot staging = VectorSchemaRoot.create(first.getSchema(), allocator);
          ArrowStreamWriter writer = new ArrowStreamWriter(staging, null, bytes)) {
        writer.start();
        for (VectorSchemaRoot batch : batches) {
          try (var rb = new org.apache.arrow.vector.VectorUnloader(batch).getRecordBatch()) {
            new org.apache.arrow.vector.VectorLoader(staging).load(rb);
            writer.writeBatch();
          }
        }
        writer.end();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new ArrowStreamReader(new ByteArrayInputStream(bytes.toByteArray()), allocator);
  }
}
