package dev.lancelot.engine;

import dev.lancelot.engine.expr.BoundPredicate;
import dev.lancelot.engine.internal.format.DeletionFiles;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFragment;
import dev.lancelot.engine.internal.scan.RowAddress;
import dev.lancelot.engine.internal.scan.ScanSpec;
import dev.lancelot.engine.internal.table.Operation;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.roaringbitmap.RoaringBitmap;

/**
 * Plans a delete by filter against one version: finds the matching rows of each fragment (reading
 * only the filter's columns, and only the rows scalar indexes select where they answer it), merges
 * them into the fragment's deletion vector and writes new deletion files. Fragments left without
 * rows are removed from the manifest.
 */
final class DeletePlanner {
  private DeletePlanner() {}

  static Optional<Operation> plan(Dataset dataset, BoundPredicate filter) {
    List<DataFragment> updated = new ArrayList<>();
    List<Long> removed = new ArrayList<>();
    // The scan reads only the rows scalar indexes select where they answer the filter (D52).
    Scanner scan =
        dataset
            .newScan()
            .columns(List.of())
            .filter(filter)
            .batchSize(64 * 1024)
            .withRowAddress(true);
    Map<Long, RoaringBitmap> matchesOf = new HashMap<>();
    for (ScanTask task : scan.planTasks(Long.MAX_VALUE)) {
      RoaringBitmap matches =
          matchesOf.computeIfAbsent(task.fragmentId(), id -> new RoaringBitmap());
      try (CloseableIterator<VectorSchemaRoot> it = scan.execute(task)) {
        while (it.hasNext()) {
          VectorSchemaRoot batch = it.next();
          UInt8Vector addresses = (UInt8Vector) batch.getVector(ScanSpec.ROW_ADDRESS);
          for (int i = 0; i < batch.getRowCount(); i++) {
            matches.add(RowAddress.offset(addresses.get(i)));
          }
        }
      }
    }
    for (DataFragment fragment : dataset.snapshot().fragments()) {
      RoaringBitmap matches = matchesOf.get(fragment.getId());
      if (matches == null || matches.isEmpty()) {
        continue;
      }
      RoaringBitmap all = RoaringBitmap.or(dataset.deletedRows(fragment), matches);
      if (all.getLongCardinality() >= fragment.getPhysicalRows()) {
        removed.add(fragment.getId());
      } else {
        var file =
            DeletionFiles.write(
                dataset.context().io(),
                dataset.location(),
                fragment.getId(),
                dataset.version(),
                all);
        updated.add(fragment.toBuilder().setDeletionFile(file).build());
      }
    }
    if (updated.isEmpty() && removed.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(new Operation.Delete(updated, removed, filter.predicate().toSql()));
  }
}
