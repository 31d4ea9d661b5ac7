package dev.lancelot.engine.probe;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.internal.DatasetInternals;
import dev.lancelot.engine.internal.format.FragmentBitmaps;
import dev.lancelot.engine.internal.format.RowIdSequence;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFragment;
import dev.lancelot.engine.internal.format.proto.TableProtos.IndexMetadata;
import dev.lancelot.engine.internal.format.proto.TransactionProtos.Transaction;
import dev.lancelot.engine.internal.table.Snapshot;
import dev.lancelot.engine.testing.ArrowStreams;
import dev.lancelot.engine.testing.ClusteredData;
import dev.lancelot.engine.testing.LanceOracle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.Test;
import org.lance.WriteParams;
import org.lance.merge.MergeInsertParams;

class ProbeRowIdsTest {
  static BufferAllocator allocator = new RootAllocator();

  static void write(Path dir, long first, int rows, WriteParams.WriteMode mode) {
    try (VectorSchemaRoot batch = ClusteredData.generate(allocator, first, rows, 8, 6, 5)) {
      org.lance.Dataset.write()
          .allocator(allocator)
          .reader(ArrowStreams.readerOf(allocator, List.of(batch)))
          .uri(dir.toString())
          .mode(mode)
          .maxRowsPerFile(50)
          .enableStableRowIds(true)
          .execute()
          .close();
    }
  }

  static String seq(byte[] b) {
    long[] a = RowIdSequence.parse(b, "x").toArray();
    if (a.length > 12) {
      return a.length + " ids " + Arrays.toString(Arrays.copyOf(a, 6)) + "..." + a[a.length - 1];
    }
    return Arrays.toString(a);
  }

  static void dump(Path dir, String what) throws Exception {
    try (Dataset ds = Dataset.open(dir.toString())) {
      Snapshot s = DatasetInternals.snapshot(ds);
      var m = s.manifest();
      System.out.println(
          "=== "
              + what
              + " v"
              + ds.version()
              + " next_row_id="
              + m.getNextRowId()
              + " rflags="
              + m.getReaderFeatureFlags()
              + " wflags="
              + m.getWriterFeatureFlags()
              + " maxfrag="
              + m.getMaxFragmentId());
      for (DataFragment f : s.fragments()) {
        System.out.println(
            "  frag "
                + f.getId()
                + " rows="
                + f.getPhysicalRows()
                + " del="
                + (f.hasDeletionFile() ? f.getDeletionFile().getNumDeletedRows() : 0)
                + " files="
                + f.getFilesCount()
                + " rowids="
                + f.getRowIdSequenceCase()
                + " "
                + (f.hasInlineRowIds() ? seq(f.getInlineRowIds().toByteArray()) : "")
                + " lastUpd="
                + f.getLastUpdatedAtVersionSequenceCase()
                + " created="
                + f.getCreatedAtVersionSequenceCase()
                + (f.hasInlineLastUpdatedAtVersions()
                    ? " LU=" + f.getInlineLastUpdatedAtVersions().size() + "B"
                    : "")
                + (f.hasInlineCreatedAtVersions()
                    ? " CR=" + f.getInlineCreatedAtVersions().size() + "B"
                    : ""));
      }
      for (IndexMetadata i : s.indices()) {
        System.out.println(
            "  index "
                + i.getName()
                + " uuid="
                + dev.lancelot.engine.internal.format.IndexUuids.uuidOf(i.getUuid().getUuid())
                + " ver="
                + i.getDatasetVersion()
                + " bitmap="
                + FragmentBitmaps.of(i));
      }
      Path t = dir.resolve("_transactions").resolve(m.getTransactionFile());
      if (!m.getTransactionFile().isEmpty() && Files.exists(t)) {
        Transaction txn = Transaction.parseFrom(Files.readAllBytes(t));
        String str = txn.toString();
        int ri = str.indexOf("rewritten_indices");
        if (ri >= 0) System.out.println("  REWRITTEN: " + str.substring(ri).replace('\n', ' '));
        if (txn.hasRewrite())
          System.out.println(
              "  groups="
                  + txn.getRewrite().getGroupsCount()
                  + " ri="
                  + txn.getRewrite().getRewrittenIndicesCount());
        str = str.replaceAll("inline_row_ids: \"[^\"]*\"", "inline_row_ids: ...");
        System.out.println(
            "  txn: " + (str.length() > 3000 ? str.substring(0, 3000) : str).replace('\n', ' '));
      }
    }
  }

  @Test
  void probe() throws Exception {
    Path dir = Files.createTempDirectory("probe");
    write(dir, 0, 200, WriteParams.WriteMode.CREATE);
    write(dir, 200, 60, WriteParams.WriteMode.APPEND);
    LanceOracle.createIvfPq(allocator, dir, "vector", 2, 2, org.lance.index.DistanceType.L2);
    LanceOracle.createBTree(allocator, dir, "tenant_id");
    dump(dir, "appended+indexed");
    try (org.lance.Dataset lance = LanceOracle.open(allocator, dir)) {
      lance.delete("id % 7 = 3");
    }
    dump(dir, "deleted");
    try (org.lance.Dataset lance = LanceOracle.open(allocator, dir);
        VectorSchemaRoot batch = ClusteredData.generate(allocator, 40, 30, 8, 6, 77);
        ArrowReader reader = ArrowStreams.readerOf(allocator, List.of(batch));
        ArrowArrayStream stream = ArrowArrayStream.allocateNew(allocator)) {
      Data.exportArrayStream(allocator, reader, stream);
      lance.mergeInsert(new MergeInsertParams(List.of("id")).withMatchedUpdateAll(), stream);
    }
    dump(dir, "merge-updated 40..69");
    try (org.lance.Dataset lance = LanceOracle.open(allocator, dir);
        VectorSchemaRoot batch = ClusteredData.generate(allocator, 250, 20, 8, 6, 78);
        ArrowReader reader = ArrowStreams.readerOf(allocator, List.of(batch));
        ArrowArrayStream stream = ArrowArrayStream.allocateNew(allocator)) {
      Data.exportArrayStream(allocator, reader, stream);
      lance.mergeInsert(
          new MergeInsertParams(List.of("id"))
              .withMatchedUpdateAll()
              .withNotMatched(MergeInsertParams.WhenNotMatched.InsertAll),
          stream);
    }
    dump(dir, "upsert 250..269");
    try (org.lance.Dataset lance = LanceOracle.open(allocator, dir)) {
      lance.compact();
    }
    dump(dir, "compacted");
    try (org.lance.Dataset lance = LanceOracle.open(allocator, dir)) {
      lance.updateConfig(Map.of("k", "v"));
    }
    dump(dir, "config");
    try (org.lance.Dataset lance = LanceOracle.open(allocator, dir)) {
      lance.dropColumns(List.of("name"));
    }
    dump(dir, "dropped name");
    try (org.lance.Dataset lance = LanceOracle.open(allocator, dir)) {
      lance.addColumns(
          new org.lance.schema.SqlExpressions.Builder().withExpression("twice", "id * 2").build(),
          java.util.Optional.empty());
    }
    dump(dir, "added twice");
    try (org.lance.Dataset lance = LanceOracle.open(allocator, dir)) {
      lance.checkoutVersion(3).restore();
    }
    dump(dir, "restored v3");
    write(dir, 1000, 30, WriteParams.WriteMode.APPEND);
    dump(dir, "appended after restore");
    try (VectorSchemaRoot batch = ClusteredData.generate(allocator, 5000, 70, 8, 6, 5)) {
      org.lance.Dataset.write()
          .allocator(allocator)
          .reader(ArrowStreams.readerOf(allocator, List.of(batch)))
          .uri(dir.toString())
          .mode(WriteParams.WriteMode.OVERWRITE)
          .maxRowsPerFile(50)
          .execute()
          .close();
    }
    dump(dir, "overwrite");
  }
}
