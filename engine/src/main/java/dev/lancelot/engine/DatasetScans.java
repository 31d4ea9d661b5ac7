package dev.lancelot.engine;

import dev.lancelot.engine.internal.format.proto.TableProtos.DataFragment;
import dev.lancelot.engine.internal.scan.FragmentReader;
import dev.lancelot.engine.internal.scan.FragmentScan;
import dev.lancelot.engine.internal.scan.ScanSpec;
import dev.lancelot.engine.internal.table.DatasetContext;
import dev.lancelot.engine.schema.LanceField;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Runs one scan task of a {@link Dataset} version: the fragment's data files through a {@link
 * FragmentReader}, its deletions and the scan's filter through a {@link FragmentScan}.
 * Package-private; {@link Scanner#execute} reaches it through {@link Dataset}.
 */
final class DatasetScans {
  private DatasetScans() {}

  /**
   * Runs {@code task}; batches come from {@code allocator}, or from the dataset's allocator when it
   * is null.
   */
  static CloseableIterator<VectorSchemaRoot> execute(
      Dataset dataset, ScanTask task, ScanSpec spec, BufferAllocator allocator) {
    DataFragment fragment =
        dataset
            .snapshot()
            .fragment(task.fragmentId())
            .orElseThrow(
                () ->
                    new InvalidInputException(
                        "Cannot scan fragment "
                            + task.fragmentId()
                            + " of "
                            + dataset.location()
                            + " version "
                            + dataset.version()
                            + ": no such fragment"));
    if (task.endRow() > fragment.getPhysicalRows()) {
      throw new InvalidInputException(
          "Cannot scan rows ["
              + task.startRow()
              + ", "
              + task.endRow()
              + ") of fragment "
              + task.fragmentId()
              + " of "
              + dataset.location()
              + ": it has "
              + fragment.getPhysicalRows()
              + " rows");
    }
    List<LanceField> filterFields = new ArrayList<>();
    if (spec.filter() != null) {
      for (String c : spec.filter().referencedColumns()) {
        filterFields.add(dataset.field(c));
      }
    }
    DatasetContext ctx =
        allocator == null ? dataset.context() : dataset.context().withAllocator(allocator);
    FragmentReader reader =
        new FragmentReader(
            ctx, fragment, dataset.snapshot().entry().location(), dataset.snapshot().bases());
    FragmentScan scan =
        new FragmentScan(
            reader,
            task,
            spec,
            dataset.deletedRows(fragment),
            spec.withRowId() && dataset.rowIds().stable()
                ? dataset.rowIds().sequence(fragment)
                : null,
            filterFields,
            ctx.allocator());
    return new CloseableIterator<>() {
      @Override
      public boolean hasNext() {
        return scan.hasNext();
      }

      @Override
      public VectorSchemaRoot next() {
        return scan.next();
      }

      @Override
      public void close() {
        scan.close();
        reader.close();
      }
    };
  }
}
