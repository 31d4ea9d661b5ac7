package dev.lancelot.engine.internal.index.vector.build;

import dev.lancelot.engine.CloseableIterator;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFragment;
import dev.lancelot.engine.internal.table.Snapshot;
import dev.lancelot.engine.vector.VectorException;
import java.nio.ByteOrder;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;

/**
 * Streams a vector column of some fragments as blocks of (row address, vector), deletions applied,
 * or (row id, vector) in a dataset with stable row ids, in fragment and row order. Every vector is
 * checked: a null vector, a null element or a non-finite value stops the build with an error naming
 * the row, since an index silently missing rows gives wrong answers later.
 */
final class VectorScan {
  static final int BATCH_ROWS = 8192;

  interface BlockConsumer {
    /**
     * {@code count} rows: {@code addresses[i]}, vector at {@code vectors[i * dim ..]}. Arrays are
     * reused.
     */
    void accept(long[] addresses, float[] vectors, int count);
  }

  private VectorScan() {}

  /** Live rows of {@code fragments}, from the manifest (deleted rows excluded). */
  static long liveRows(List<DataFragment> fragments) {
    long n = 0;
    for (DataFragment f : fragments) {
      n += Snapshot.liveRows(f);
    }
    return n;
  }

  static void scan(
      Dataset dataset,
      VectorColumn column,
      List<DataFragment> fragments,
      String action,
      BlockConsumer consumer) {
    if (fragments.isEmpty()) {
      return;
    }
    int dim = column.dimension();
    // An index of a dataset with stable row ids stores the ids, as Lance's does.
    boolean stable = dataset.stableRowIds();
    String rowColumn =
        stable
            ? dev.lancelot.engine.internal.scan.ScanSpec.ROW_ID
            : dev.lancelot.engine.internal.scan.ScanSpec.ROW_ADDRESS;
    long[] addresses = new long[BATCH_ROWS];
    float[] vectors = new float[BATCH_ROWS * dim];
    try (CloseableIterator<VectorSchemaRoot> it =
        dataset
            .newScan()
            .columns(column.name())
            .withRowAddress(!stable)
            .withRowId(stable)
            .batchSize(BATCH_ROWS)
            .fragments(fragments.stream().map(DataFragment::getId).toList())
            .batches()) {
      while (it.hasNext()) {
        VectorSchemaRoot root = it.next();
        int n = root.getRowCount();
        if (n > addresses.length) {
          addresses = new long[n];
          vectors = new float[n * dim];
        }
        UInt8Vector addr = (UInt8Vector) root.getVector(rowColumn);
        FixedSizeListVector list = (FixedSizeListVector) root.getVector(column.name());
        FieldVector items = list.getDataVector();
        if (!(items instanceof Float4Vector)) {
          throw new IllegalStateException(
              "column " + column.name() + " scanned as " + items.getField());
        }
        addr.getDataBuffer()
            .nioBuffer(0, n * 8)
            .order(ByteOrder.LITTLE_ENDIAN)
            .asLongBuffer()
            .get(addresses, 0, n);
        items
            .getDataBuffer()
            .nioBuffer(0, n * dim * 4)
            .order(ByteOrder.LITTLE_ENDIAN)
            .asFloatBuffer()
            .get(vectors, 0, n * dim);
        if (list.getNullCount() > 0 || items.getNullCount() > 0) {
          for (int i = 0; i < n; i++) {
            if (list.isNull(i)) {
              throw badRow(action, column, addresses[i], "is null");
            }
            for (int d = 0; d < dim; d++) {
              if (items.isNull(i * dim + d)) {
                throw badRow(action, column, addresses[i], "has a null element at position " + d);
              }
            }
          }
        }
        for (int i = 0; i < n * dim; i++) {
          if (!Float.isFinite(vectors[i])) {
            throw badRow(
                action,
                column,
                addresses[i / dim],
                "has a "
                    + (Float.isNaN(vectors[i]) ? "NaN" : "infinite")
                    + " value at position "
                    + (i % dim));
          }
        }
        consumer.accept(addresses, vectors, n);
      }
    }
  }

  private static VectorException badRow(
      String action, VectorColumn column, long address, String what) {
    return new VectorException(
        "Cannot "
            + action
            + ": the vector of column \""
            + column.name()
            + "\" at row address "
            + address
            + " (fragment "
            + (address >>> 32)
            + ", row "
            + (int) address
            + ") "
            + what
            + ". Delete or fix rows with null or non-finite vectors before building the index.");
  }
}
