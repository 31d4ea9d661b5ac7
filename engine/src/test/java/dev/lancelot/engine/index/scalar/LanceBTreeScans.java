package dev.lancelot.engine.index.scalar;

import dev.lancelot.engine.testing.LanceOracle;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.lance.Dataset;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.Query;
import org.lance.ipc.ScanOptions;
import org.lance.ipc.ScanStats;

/**
 * Filtered scans and prefiltered nearest queries run by lance-core 7.0.0, for the BTree oracle
 * tests.
 */
final class LanceBTreeScans {
  private LanceBTreeScans() {}

  /** Row addresses and the scan's statistics. */
  record Scan(TreeSet<Long> addresses, ScanStats stats) {}

  /** Lance's filtered scan with {@code _rowaddr}, using scalar indexes or not. */
  static Scan scan(BufferAllocator allocator, Path dir, String filter, boolean useScalarIndex) {
    return scan(allocator, dir, filter, useScalarIndex, "id");
  }

  /** Lance's filtered scan with scalar indexes, reading {@code column} and {@code _rowaddr}. */
  static Scan scanColumn(BufferAllocator allocator, Path dir, String filter, String column) {
    return scan(allocator, dir, filter, true, column);
  }

  /** The same, projecting {@code column}, using scalar indexes or not. */
  static Scan scan(
      BufferAllocator allocator, Path dir, String filter, boolean useScalarIndex, String column) {
    TreeSet<Long> out = new TreeSet<>();
    try (Dataset ds = LanceOracle.open(allocator, dir);
        LanceScanner scanner =
            ds.newScan(
                new ScanOptions.Builder()
                    .columns(List.of(column))
                    .filter(filter)
                    .withRowAddress(true)
                    .useScalarIndex(useScalarIndex)
                    .collectStats(true)
                    .build())) {
      try (ArrowReader reader = scanner.scanBatches()) {
        while (reader.loadNextBatch()) {
          VectorSchemaRoot root = reader.getVectorSchemaRoot();
          FieldVector a = root.getVector("_rowaddr");
          for (int i = 0; i < root.getRowCount(); i++) {
            out.add(((Number) a.getObject(i)).longValue());
          }
        }
      }
      return new Scan(out, scanner.getStats().orElse(null));
    } catch (Exception e) {
      throw new RuntimeException("Lance scan with filter " + filter + " failed", e);
    }
  }

  /**
   * Lance's flat nearest query with {@code prefilter=true}: ids of the k rows found, nearest first.
   */
  static List<Long> nearestPrefiltered(
      BufferAllocator allocator,
      Path dir,
      float[] q,
      int k,
      String filter,
      boolean useScalarIndex) {
    List<Long> out = new ArrayList<>();
    try (Dataset ds = LanceOracle.open(allocator, dir)) {
      Query query =
          new Query.Builder().setColumn("vector").setKey(q).setK(k).setUseIndex(false).build();
      ScanOptions options =
          new ScanOptions.Builder()
              .nearest(query)
              .columns(List.of("id", "_distance"))
              .filter(filter)
              .prefilter(true)
              .useScalarIndex(useScalarIndex)
              .build();
      try (LanceScanner scanner = ds.newScan(options);
          ArrowReader reader = scanner.scanBatches()) {
        while (reader.loadNextBatch()) {
          VectorSchemaRoot root = reader.getVectorSchemaRoot();
          BigIntVector ids = (BigIntVector) root.getVector("id");
          for (int i = 0; i < root.getRowCount(); i++) {
            out.add(ids.get(i));
          }
        }
      }
    } catch (Exception e) {
      throw new RuntimeException("Lance nearest query with filter " + filter + " failed", e);
    }
    return out;
  }
}
