package dev.lancelot.engine.internal.file;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;

/** Writes and reads Lance files with lance-core 7.0.0, the test oracle. */
final class OracleFiles {
  private OracleFiles() {}

  /** Writes {@code batches} to {@code path} with Lance's file writer (version null = default). */
  static void write(
      Path path, BufferAllocator allocator, String version, List<VectorSchemaRoot> batches) {
    try (org.lance.file.LanceFileWriter w =
        org.lance.file.LanceFileWriter.open(
            path.toString(), allocator, null, Optional.ofNullable(version), Map.of())) {
      for (VectorSchemaRoot b : batches) {
        w.write(b);
      }
    } catch (Exception e) {
      throw new AssertionError("lance-core failed to write " + path, e);
    }
  }

  /**
   * Reads all rows of the named columns with Lance's file reader and hands each batch to {@code
   * consumer} (batches are only valid during the call).
   */
  static void read(
      Path path,
      BufferAllocator allocator,
      List<String> columns,
      int batchSize,
      java.util.function.Consumer<VectorSchemaRoot> consumer) {
    try (org.lance.file.LanceFileReader r =
            org.lance.file.LanceFileReader.open(path.toString(), allocator);
        ArrowReader reader =
            r.readAll(columns, List.of(org.lance.util.Range.of(0, (int) r.numRows())), batchSize)) {
      while (reader.loadNextBatch()) {
        consumer.accept(reader.getVectorSchemaRoot());
      }
    } catch (Exception e) {
      throw new AssertionError("lance-core failed to read " + path, e);
    }
  }

  /** All values of the named column as Java objects, read by lance-core. */
  static List<Object> readColumn(Path path, BufferAllocator allocator, String column) {
    List<Object> out = new ArrayList<>();
    read(
        path,
        allocator,
        List.of(column),
        1000,
        root -> out.addAll(Values.of(root.getVector(column))));
    return out;
  }
}
