package dev.lancelot.engine.internal.maintenance;

import com.google.protobuf.ByteString;
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
import dev.lancelot.engine.internal.format.RowIdSequence;
import dev.lancelot.engine.internal.format.RowVersions;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFile;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFragment;
import dev.lancelot.engine.internal.format.proto.TableProtos.ExternalFile;
import dev.lancelot.engine.internal.format.proto.TransactionProtos.Transaction.Rewrite.RewriteGroup;
import dev.lancelot.engine.internal.format.proto.TransactionProtos.Transaction.Rewrite.RewrittenIndex;
import dev.lancelot.engine.internal.table.Operation;
import dev.lancelot.engine.internal.table.RowIds;
import dev.lancelot.engine.internal.table.Snapshot;
import dev.lancelot.engine.internal.write.FragmentWriter;
import dev.lancelot.engine.internal.write.TargetBases;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
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

  /**
   * What a compaction of one version does, planned: the fragment groups to rewrite, in order.
   * Serializable; the same plan runs locally ({@link #compact}) or with its groups rewritten
   * elsewhere ({@link #rewrite}) and committed here ({@link #commit}).
   */
  public record Job(String location, long version, CompactionOptions options, List<long[]> groups)
      implements java.io.Serializable {
    public Job {
      groups = List.copyOf(groups);
    }
  }

  public static CompactionResult compact(Dataset dataset, CompactionOptions options) {
    Job job = plan(dataset, options);
    if (job.groups().isEmpty()) {
      return CompactionResult.nothingToDo(dataset);
    }
    List<List<FragmentMetadata>> rewritten = new ArrayList<>();
    try {
      Progress progress = new Progress(dataset.location(), liveRows(dataset, job));
      for (int g = 0; g < job.groups().size(); g++) {
        rewritten.add(rewrite(dataset, job, g, progress));
        LOG.info(
            "Compaction of {}: group {}/{} rewritten, fragments {} -> {} new fragments",
            dataset.location(),
            g + 1,
            job.groups().size(),
            java.util.Arrays.toString(job.groups().get(g)),
            rewritten.get(g).size());
      }
    } catch (RuntimeException e) {
      rewritten.forEach(fs -> deleteFiles(dataset, fs, List.of()));
      throw e;
    }
    return commit(dataset, job, rewritten);
  }

  /** Plans the groups of {@code dataset}'s version to rewrite (none: nothing to compact). */
  public static Job plan(Dataset dataset, CompactionOptions options) {
    if (!"2.1".equals(dataset.dataStorageVersion())
        && !"2.2".equals(dataset.dataStorageVersion())) {
      throw new LancelotException(
          "Cannot compact "
              + dataset.location()
              + ": its data files are Lance format "
              + dataset.dataStorageVersion()
              + " and lancelot writes 2.1 and 2.2 only; a compacted fragment would mix formats. "
              + "Compact it with Lance.");
    }
    Snapshot snapshot = DatasetInternals.snapshot(dataset);
    target(dataset, options); // an unknown base is refused before anything is written
    List<List<DataFragment>> groups =
        CompactionPlanner.plan(
            snapshot.fragments(), dataset.indexes().allSegments(), options, dataset.stableRowIds());
    List<long[]> ids = new ArrayList<>(groups.size());
    for (List<DataFragment> g : groups) {
      ids.add(g.stream().mapToLong(DataFragment::getId).toArray());
    }
    Job job = new Job(dataset.location(), dataset.version(), options, ids);
    if (groups.isEmpty()) {
      LOG.info(
          "Compaction of {} version {}: nothing to compact", dataset.location(), dataset.version());
    } else {
      LOG.info(
          "Compaction of {} version {}: {} groups, {} fragments, {} live rows, target {} rows per fragment",
          dataset.location(),
          dataset.version(),
          groups.size(),
          groups.stream().mapToInt(List::size).sum(),
          liveRows(dataset, job),
          options.targetRowsPerFragment());
    }
    return job;
  }

  /**
   * Rewrites group {@code group} of {@code job} on {@code dataset} (the job's version): its live
   * rows, in order, into new fragments of at most the target rows each, not committed.
   */
  public static List<FragmentMetadata> rewrite(Dataset dataset, Job job, int group) {
    checkVersion(dataset, job);
    long rows = 0;
    for (DataFragment f : fragments(dataset, job.groups().get(group))) {
      rows += Snapshot.liveRows(f);
    }
    return rewrite(dataset, job, group, new Progress(dataset.location(), rows));
  }

  private static List<FragmentMetadata> rewrite(
      Dataset dataset, Job job, int group, Progress progress) {
    checkVersion(dataset, job);
    return rewriteGroup(
        dataset, fragments(dataset, job.groups().get(group)), job.options(), progress);
  }

  /**
   * Commits the rewritten groups of {@code job} ({@code rewritten.get(g)} for group {@code g}) as
   * one {@code Rewrite} version, with every index segment that covered a rewritten fragment
   * remapped to the new row addresses. The old address of each copied row follows from the plan:
   * the groups' live rows in order. On failure the rewritten files are deleted.
   */
  public static CompactionResult commit(
      Dataset dataset, Job job, List<List<FragmentMetadata>> rewritten) {
    List<RewrittenIndex> remapped = new ArrayList<>();
    try {
      checkVersion(dataset, job);
      if (rewritten.size() != job.groups().size()) {
        throw new IllegalArgumentException(
            "Compaction of "
                + dataset.location()
                + " planned "
                + job.groups().size()
                + " groups but got "
                + rewritten.size()
                + " rewritten");
      }
      Snapshot snapshot = DatasetInternals.snapshot(dataset);
      RowAddressMap map = new RowAddressMap();
      List<RewriteGroup> rewriteGroups = new ArrayList<>();
      long nextId = snapshot.nextFragmentId();
      int oldFragments = 0;
      long totalRows = 0;
      int filesRemoved = 0;
      StableIds stableIds = dataset.stableRowIds() ? new StableIds(dataset) : null;
      for (int g = 0; g < job.groups().size(); g++) {
        List<DataFragment> group = fragments(dataset, job.groups().get(g));
        if (stableIds != null) {
          stableIds.startGroup(group);
        }
        oldFragments += group.size();
        RewriteGroup.Builder rg = RewriteGroup.newBuilder().addAllOldFragments(group);
        Iterator<Long> oldAddresses = liveAddresses(dataset, group).iterator();
        long read = 0;
        for (DataFragment f : group) {
          map.addFragment(f.getId(), f.getPhysicalRows());
          filesRemoved += f.getFilesCount() + (f.hasDeletionFile() ? 1 : 0);
        }
        for (FragmentMetadata f : rewritten.get(g)) {
          long id = nextId++;
          long[] moved = new long[Math.toIntExact(f.physicalRows())];
          for (int offset = 0; offset < moved.length; offset++) {
            if (!oldAddresses.hasNext()) {
              throw new IllegalStateException(
                  "compaction group " + g + " wrote more rows than its fragments hold");
            }
            moved[offset] = oldAddresses.next();
            map.put(moved[offset], (id << 32) | offset);
            read++;
          }
          DataFragment.Builder nf = DatasetInternals.fragment(f).toBuilder().setId(id);
          if (stableIds != null) {
            stableIds.carry(nf, moved);
          }
          rg.addNewFragments(nf);
        }
        if (oldAddresses.hasNext()) {
          throw new IllegalStateException(
              "compaction group " + g + " wrote fewer rows (" + read + ") than it read");
        }
        totalRows += read;
        rewriteGroups.add(rg.build());
      }
      // With stable row ids the index segments stay valid as they are (they are keyed by id); the
      // commit moves their fragment coverage to the new fragments (decision D56).
      for (IndexSegment s :
          stableIds != null ? List.<IndexSegment>of() : dataset.indexes().allSegments()) {
        boolean touched = false;
        for (long[] group : job.groups()) {
          touched |= s.fragments().contains((int) group[0]);
        }
        if (touched && !IndexRemapper.keptAsIs(s.type())) {
          long t = System.nanoTime();
          remapped.add(IndexRemapper.remap(dataset, s, map));
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
          DatasetInternals.commit(dataset, new Operation.Rewrite(rewriteGroups, remapped));
      int newFragments = rewritten.stream().mapToInt(List::size).sum();
      int filesAdded =
          rewritten.stream().flatMap(List::stream).mapToInt(f -> f.dataFiles().size()).sum();
      LOG.info(
          "Compaction of {}: committed version {}: {} fragments -> {}, {} rows, {} index segments remapped",
          dataset.location(),
          committed.version(),
          oldFragments,
          newFragments,
          totalRows,
          remapped.size());
      return new CompactionResult(
          committed,
          true,
          oldFragments,
          newFragments,
          filesRemoved,
          filesAdded,
          totalRows,
          remapped.size());
    } catch (RuntimeException e) {
      rewritten.forEach(fs -> deleteFiles(dataset, fs, List.of()));
      deleteFiles(dataset, List.of(), remapped);
      throw e;
    }
  }

  private static void deleteFiles(
      Dataset dataset, List<FragmentMetadata> written, List<RewrittenIndex> rewritten) {
    var ctx = DatasetInternals.context(dataset);
    var bases = DatasetInternals.snapshot(dataset).bases();
    for (FragmentMetadata f : written) {
      for (DataFile file : DatasetInternals.fragment(f).getFilesList()) {
        ctx.io().delete(bases.dataFile(file)); // at the root, or under the target base
      }
    }
    for (RewrittenIndex ri : rewritten) {
      ctx.io()
          .deleteRecursively(
              ctx.paths().indexDir(IndexUuids.uuidOf(ri.getNewId().getUuid()).toString()));
    }
  }

  private static void checkVersion(Dataset dataset, Job job) {
    if (dataset.version() != job.version()) {
      throw new IllegalStateException(
          "Compaction planned on version "
              + job.version()
              + " of "
              + job.location()
              + " run on version "
              + dataset.version());
    }
  }

  private static List<DataFragment> fragments(Dataset dataset, long[] ids) {
    Snapshot snapshot = DatasetInternals.snapshot(dataset);
    List<DataFragment> out = new ArrayList<>(ids.length);
    for (long id : ids) {
      out.add(
          snapshot
              .fragment(id)
              .orElseThrow(
                  () ->
                      new LancelotException(
                          "Cannot compact fragment "
                              + id
                              + " of "
                              + dataset.location()
                              + "@v"
                              + dataset.version()
                              + ": the version has no such fragment")));
    }
    return out;
  }

  /** The live rows' addresses of {@code group}, in the order a scan of it returns them. */
  private static List<Long> liveAddresses(Dataset dataset, List<DataFragment> group) {
    List<Long> out = new ArrayList<>();
    for (DataFragment f : group) {
      org.roaringbitmap.RoaringBitmap deleted = DatasetInternals.deletedRows(dataset, f);
      for (long offset = 0; offset < f.getPhysicalRows(); offset++) {
        if (!deleted.contains((int) offset)) {
          out.add((f.getId() << 32) | offset);
        }
      }
    }
    return out;
  }

  private static long liveRows(Dataset dataset, Job job) {
    long rows = 0;
    for (long[] group : job.groups()) {
      for (DataFragment f : fragments(dataset, group)) {
        rows += Snapshot.liveRows(f);
      }
    }
    return rows;
  }

  /** Copies the live rows of {@code group}, in order, into new fragments. */
  private static List<FragmentMetadata> rewriteGroup(
      Dataset dataset, List<DataFragment> group, CompactionOptions options, Progress progress) {
    List<Long> ids = group.stream().map(DataFragment::getId).toList();
    WriteOptions write =
        WriteOptions.of(WriteMode.APPEND)
            .withMaxRowsPerFile(options.targetRowsPerFragment())
            .resolvedFor(dataset.dataStorageVersion());
    List<String> columns = dataset.lanceSchema().names();
    try (CloseableIterator<VectorSchemaRoot> batches =
        dataset.newScan().columns(columns).fragments(ids).batches()) {
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
              int rows = batch.getRowCount();
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
          DatasetInternals.context(dataset),
          dataset.lanceSchema(),
          data,
          write,
          target(dataset, options));
    }
  }

  /** Where {@code options} put the rewritten fragments of {@code dataset}'s version. */
  private static FragmentWriter.Target target(Dataset dataset, CompactionOptions options) {
    return TargetBases.resolve(
        dataset.location(),
        Optional.of(DatasetInternals.snapshot(dataset)),
        options.targetBase(),
        "Cannot compact " + dataset.location() + ": cannot write the rewritten fragments");
  }

  /**
   * The stable row ids (and, where the old fragments carry them, the row version sequences) a
   * rewritten fragment carries: those of the rows it holds, in order, so every row keeps its {@code
   * _rowid} (decision D56).
   */
  private static final class StableIds {
    private final Dataset dataset;
    private final RowIds rowIds;
    private final Map<Long, long[]> created = new HashMap<>();
    private final Map<Long, long[]> updated = new HashMap<>();
    private boolean versions;

    StableIds(Dataset dataset) {
      this.dataset = dataset;
      this.rowIds = DatasetInternals.rowIds(dataset);
    }

    private byte[] versionFile(ExternalFile file) {
      return rowIds.readExternal(file, "row version");
    }

    /** Loads the version sequences of {@code group}: kept only when every fragment has them. */
    void startGroup(List<DataFragment> group) {
      created.clear();
      updated.clear();
      versions = true;
      String where = dataset.location() + "@v" + dataset.version();
      for (DataFragment f : group) {
        long[] c = RowVersions.of(f, RowVersions.Kind.CREATED, where, this::versionFile);
        long[] u = RowVersions.of(f, RowVersions.Kind.LAST_UPDATED, where, this::versionFile);
        versions &= c != null && u != null;
        created.put(f.getId(), c);
        updated.put(f.getId(), u);
      }
    }

    /** Gives {@code fragment}, holding the rows of old addresses {@code moved}, their ids. */
    void carry(DataFragment.Builder fragment, long[] moved) {
      fragment.setInlineRowIds(
          ByteString.copyFrom(RowIdSequence.ofIds(rowIds.idsOf(moved)).serialize()));
      if (versions) {
        long[] c = new long[moved.length];
        long[] u = new long[moved.length];
        for (int i = 0; i < moved.length; i++) {
          int offset = (int) (moved[i] & 0xFFFFFFFFL);
          c[i] = created.get(moved[i] >>> 32)[offset];
          u[i] = updated.get(moved[i] >>> 32)[offset];
        }
        fragment
            .setInlineCreatedAtVersions(RowVersions.encode(c))
            .setInlineLastUpdatedAtVersions(RowVersions.encode(u));
      }
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
