package dev.lancelot.engine.expr.oracle;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Consumer;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.lance.Dataset;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;

/**
 * Test-only access to the real Lance 7 (lance-core, via JNI): writes a dataset from an Arrow batch
 * and scans it with or without a filter. Every dataset needs an int64 column {@code id}.
 */
final class LanceOracle implements AutoCloseable {
  private final BufferAllocator allocator;
  private final Dataset dataset;

  private LanceOracle(BufferAllocator allocator, Dataset dataset) {
    this.allocator = allocator;
    this.dataset = dataset;
  }

  /** Writes {@code root} as a new dataset at {@code uri}, {@code rowsPerFile} rows a fragment. */
  static LanceOracle write(
      BufferAllocator allocator, VectorSchemaRoot root, String uri, int rowsPerFile)
      throws IOException {
    ByteArrayOutputStream ipc = new ByteArrayOutputStream();
    try (ArrowStreamWriter writer = new ArrowStreamWriter(root, null, ipc)) {
      writer.start();
      writer.writeBatch();
      writer.end();
    }
    try (ArrowStreamReader reader =
        new ArrowStreamReader(new ByteArrayInputStream(ipc.toByteArray()), allocator)) {
      Dataset.write()
          .allocator(allocator)
          .reader(reader)
          .uri(uri)
          .maxRowsPerFile(rowsPerFile)
          .execute()
          .close();
    }
    return new LanceOracle(allocator, Dataset.open(uri, allocator));
  }

  org.apache.arrow.vector.types.pojo.Schema schema() {
    return dataset.getSchema();
  }

  /** Sorted ids of the rows Lance selects with {@code filter}. */
  List<Long> idsMatching(String filter) {
    List<Long> ids = new ArrayList<>();
    scan(
        new ScanOptions.Builder().filter(filter).columns(List.of("id")).build(),
        root -> {
          BigIntVector id = (BigIntVector) root.getVector("id");
          for (int i = 0; i < root.getRowCount(); i++) {
            ids.add(id.get(i));
          }
        });
    Collections.sort(ids);
    return ids;
  }

  /** Every batch of an unfiltered scan of all columns, {@code batchSize} rows at most. */
  void forEachBatch(long batchSize, Consumer<VectorSchemaRoot> consumer) {
    scan(new ScanOptions.Builder().batchSize(batchSize).build(), consumer);
  }

  private void scan(ScanOptions options, Consumer<VectorSchemaRoot> consumer) {
    try (LanceScanner scanner = dataset.newScan(options);
        ArrowReader reader = scanner.scanBatches()) {
      while (reader.loadNextBatch()) {
        consumer.accept(reader.getVectorSchemaRoot());
      }
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException("Lance scan failed: " + e.getMessage(), e);
    }
  }

  @Override
  public void close() {
    dataset.close();
  }

  BufferAllocator allocator() {
    return allocator;
  }
}
