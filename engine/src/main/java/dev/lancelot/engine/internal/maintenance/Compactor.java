package dev.lancelot.engine.internal.maintenance;

import dev.lancelot.engine.CloseableIterator;
import dev.lancelot.engine.CompactionOptions;
import dev.lancelot.engine.CompactionResult;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.FragmentMetadata;
import dev.lancelot.engine.LancelotException;
import dev.lancelot.engine.WriteMode;
import dev.lancelot.engine.WriteOptions;
import dev.lancelot.engine.index.IndexSegment;
import dev.lancelot.engine.internal.DatasetInternals;
import dev.lancelot.engine.internal.format.IndexUuids;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFragment;
import dev.lancelot.engine.internal.format.proto.TransactionProtos.Transaction.Rewrite.RewriteGroup;
import dev.lancelot.engine.internal.format.proto.TransactionProtos.Transaction.Rewrite.RewrittenIndex;
import dev.lancelot.engine.internal.scan.FragmentScan;
import dev.lancelot.engine.internal.table.Operation;
import dev.lancelot.engine.internal.table.Snapshot;
import dev.lancelot.engine.internal.write.FragmentWriter;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Compaction of one dataset version (Lance's {@code compact_files} with {@code defer_index_remap}
 * off): plan the groups ({@link CompactionPlanner}), copy each group's live rows in order into new
 * fragments of at most {@code target_rows_per_fragment} rows while recording where every row went
 * ({@link RowAddressMap}), rewrite every index segment covering a rewritten fragment for the new
 * addresses ({@link IndexRemapper}), and commit all of it as one {@code Rewrite} transaction. On
 * any failure the files written are deleted and nothing is committed.
 */
public final class Compactor {
  private static final Logger LOG = LoggerFactory.getLogger(Compactor.class);
  private static final long LOG_EVERY_ROWS = 1L << 20;

  private Compactor() {}

  public static CompactionResult compact(Dataset dataset, CompactionOptions options) {
    if (!"2.1".equals(dataset.dataStorageVersion())) {
      throw new LancelotException(
          "Cannot compact "
              + dataset.location()
              + ": its data files are Lance format "
              + dataset.dataStorageVersion()
              + " and lancelot writes 2.1 only; a compacted fragment would mix formats. "
              + "Compact it with Lance.");
    }
    Snapshot snapshot = DatasetInternals.snapshot(dataset);
    List<IndexSegment> segments = dataset.indexes().allSegments();
    List<List<DataFragment>> groups =
        CompactionPlanner.plan(snapshot.fragments(), segments, options);
    if (groups.isEmpty()) {
      LOG.info(
          "Compaction of {} version {}: nothing to compact", dataset.location(), dataset.version());
      return CompactionResult.nothingToDo(dataset);
    }
    long totalRows = 0;
    int oldFragments = 0;
    for (List<DataFragment> g : groups) {
      oldFragments += g.size();
      for (DataFragment f : g) {
        totalRows +=
            f.getPhysicalRows()
                - (f.hasDeletionFile() ? f.getDeletionFile().getNumDeletedRows() : 0);
      }
    }
    LOG.info(
        "Compaction of {} version {}: {} groups, {} fragments, {} live rows, target {} rows per fragment",
        dataset.location(),
        dataset.version(),
        groups.size(),
        oldFragments,
        totalRows,
        options.targetRowsPerFragment());

    List<FragmentMetadata> written = new ArrayList<>();
    List<RewrittenIndex> rewritten = new ArrayList<>();
    try {
      RowAddressMap map = new RowAddressMap();
      List<RewriteGroup> rewriteGroups = new ArrayList<>();
      long nextId = snapshot.nextFragmentId();
      Progress progress = new Progress(dataset.location(), totalRows);
      for (int g = 0; g < groups.size(); g++) {
        List<DataFragment> group = groups.get(g);
        group.forEach(f -> map.addFragment(f.getId(), f.getPhysicalRows()));
        List<Long> oldAddresses = new ArrayList<>();
        List<FragmentMetadata> fresh =
            rewriteGroup(dataset, group, options, oldAddresses, progress);
        written.addAll(fresh);
        RewriteGroup.Builder rg = RewriteGroup.newBuilder().addAllOldFragments(group);
        int row = 0;
        for (FragmentMetadata f : fresh) {
          long id = nextId++;
          rg.addNewFragments(DatasetInternals.fragment(f).toBuilder().setId(id));
          for (long offset = 0; offset < f.physicalRows(); offset++) {
            map.put(oldAddresses.get(row++), (id << 32) | offset);
          }
        }
        if (row != oldAddresses.size()) {
          throw new IllegalStateException(
              "compaction wrote " + row + " rows for " + oldAddresses.size() + " read");
        }
        rewriteGroups.add(rg.build());
        LOG.info(
            "Compaction of {}: group {}/{} done, fragments {} -> {} new fragments",
            dataset.location(),
            g + 1,
            groups.size(),
            group.stream().map(DataFragment::getId).toList(),
            fresh.size());
      }
      for (IndexSegment s : segments) {
        boolean touched = false;
        for (List<DataFragment> group : groups) {
          touched |= s.fragments().contains((int) group.get(0).getId());
        }
        if (touched) {
          long t = System.nanoTime();
          rewritten.add(IndexRemapper.remap(dataset, s, map));
          LOG.info(
              "Compaction of {}: remapped {} index \"{}\" segment {} in {} ms",
              dataset.location(),
              s.type(),
              s.name(),
              s.uuid(),
              (System.nanoTime() - t) / 1_000_000);
        }
      }
      Dataset committed =
          DatasetInternals.commit(dataset, new Operation.Rewrite(rewriteGroups, rewritten));
      int filesRemoved = 0;
      for (List<DataFragment> g : groups) {
        for (DataFragment f : g) {
          filesRemoved += f.getFilesCount() + (f.hasDeletionFile() ? 1 : 0);
        }
      }
      int filesAdded = written.stream().mapToInt(f -> f.dataFiles().size()).sum();
      LOG.info(
          "Compaction of {}: committed version {}: {} fragments -> {}, {} rows, {} index segments remapped",
          dataset.location(),
          committed.version(),
          oldFragments,
          written.size(),
          totalRows,
          rewritten.size());
      return new CompactionResult(
          committed,
          true,
          oldFragments,
          written.size(),
          filesRemoved,
          filesAdded,
          totalRows,
          rewritten.size());
    } catch (RuntimeException e) {
      for (FragmentMetadata f : written) {
        for (String path : f.dataFiles()) {
          DatasetInternals.context(dataset)
              .io()
              .delete(DatasetInternals.context(dataset).paths().dataFile(path));
        }
      }
      for (RewrittenIndex ri : rewritten) {
        DatasetInternals.context(dataset)
            .io()
            .deleteRecursively(
                DatasetInternals.context(dataset)
                    .paths()
                    .indexDir(IndexUuids.uuidOf(ri.getNewId().getUuid()).toString()));
      }
      throw e;
    }
  }

  /**
   * Copies the live rows of {@code group}, in order, into new fragments; records each row's old
   * address.
   */
  private static List<FragmentMetadata> rewriteGroup(
      Dataset dataset,
      List<DataFragment> group,
      CompactionOptions options,
      List<Long> oldAddresses,
      Progress progress) {
    List<Long> ids = group.stream().map(DataFragment::getId).toList();
    WriteOptions write =
        WriteOptions.of(WriteMode.APPEND).withMaxRowsPerFile(options.targetRowsPerFragment());
    List<String> columns = dataset.lanceSchema().names();
    try (CloseableIterator<VectorSchemaRoot> batches =
        dataset.newScan().columns(columns).withRowAddress(true).fragments(ids).batches()) {
      Iterator<VectorSchemaRoot> data =
          new Iterator<>() {
            @Override
            public boolean hasNext() {
              return batches.hasNext();
            }

            @Override
            public VectorSchemaRoot next() {
              if (!hasNext()) {
                throw new NoSuchElementException();
              }
              VectorSchemaRoot batch = batches.next();
              FieldVector addresses = batch.getVector(FragmentScan.ROW_ADDRESS_FIELD.getName());
              int rows = batch.getRowCount();
              for (int i = 0; i < rows; i++) {
                oldAddresses.add(addresses.getDataBuffer().getLong((long) i << 3));
              }
              progress.add(rows);
              List<FieldVector> vectors = new ArrayList<>();
              for (String c : columns) {
                vectors.add(batch.getVector(c));
              }
              VectorSchemaRoot out = new VectorSchemaRoot(vectors);
              out.setRowCount(rows);
              return out;
            }
          };
      return FragmentWriter.write(
          DatasetInternals.context(dataset), dataset.lanceSchema(), data, write);
    }
  }

  /** Logs progress of long compactions every {@value #LOG_EVERY_ROWS} rows. */
  private static final class Progress {
    private final String location;
    private final long total;
    private long done;
    private long nextLog = LOG_EVERY_ROWS;

    Progress(String location, long total) {
      this.location = location;
      this.total = total;
    }

    void add(long rows) {
      done += rows;
      if (done >= nextLog) {
        LOG.info("Compaction of {}: {} of {} rows copied", location, done, total);
        nextLog += LOG_EVERY_ROWS;
      }
    }
  }
}
