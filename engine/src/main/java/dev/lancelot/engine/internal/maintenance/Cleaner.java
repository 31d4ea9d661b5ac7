package dev.lancelot.engine.internal.maintenance;

import dev.lancelot.engine.CleanupOptions;
import dev.lancelot.engine.CleanupResult;
import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.internal.format.DeletionFiles;
import dev.lancelot.engine.internal.format.IndexUuids;
import dev.lancelot.engine.internal.format.ManifestFile;
import dev.lancelot.engine.internal.format.proto.TableProtos.BasePath;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFile;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFragment;
import dev.lancelot.engine.internal.format.proto.TableProtos.IndexMetadata;
import dev.lancelot.engine.internal.table.BasePaths;
import dev.lancelot.engine.internal.table.DatasetPaths;
import dev.lancelot.engine.internal.table.Refs;
import dev.lancelot.engine.internal.table.Snapshot;
import dev.lancelot.engine.internal.table.VersionLog;
import dev.lancelot.engine.io.FileEntry;
import dev.lancelot.engine.io.FileIO;
import dev.lancelot.engine.io.InputFile;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removes old versions and the files only they referenced, with Lance 7's rules ({@code
 * rust/lance/src/dataset/cleanup.rs}):
 *
 * <ul>
 *   <li>A version is removed when {@link CleanupOptions} selects it, unless it is the latest, a tag
 *       names it, or a branch was created from it. Its manifest is deleted first, so that a cleanup
 *       interrupted half-way never leaves a version whose files are gone.
 *   <li>Branches ({@code _refs/branches/}, versions under {@code tree/<branch>/}) reach this
 *       dataset's data, deletion and index files through a base path naming its root: every file
 *       any version of any branch reaches that way stays. Branch directories are never swept.
 *   <li>A branch is cleaned up like main, within its own directory: its versions, the tags on it
 *       and the branches created from it play the parts main's, main's tags and main's branches
 *       play; files it shares with its parent lie outside its directory and are never candidates,
 *       and a directory holding another branch (branch {@code a/data} lies in {@code a}'s {@code
 *       data/}) is never swept (decision D62).
 *   <li>A data file, deletion file, transaction file or index directory referenced by a kept
 *       version stays. One referenced only by removed versions ("verified" unreferenced) is
 *       deleted.
 *   <li>One that no manifest references at all may belong to a write in progress, whose manifest is
 *       not published yet; it is deleted only when older than {@link
 *       CleanupOptions#UNVERIFIED_WINDOW} (or when {@code deleteUnverified}). This is how leftovers
 *       of failed writes go: data files of a task that never committed, transaction files and index
 *       directories of a lost commit, hidden temporary manifest files under {@code _versions/}.
 *   <li>With {@code olderThan}, files modified at or after that instant are never deleted (Lance
 *       lists only files modified before it).
 * </ul>
 */
public final class Cleaner {
  private static final Logger LOG = LoggerFactory.getLogger(Cleaner.class);

  private final FileIO io;
  private final DatasetPaths paths;
  private final String mainRoot;
  private final Optional<String> branch;
  private final CleanupOptions options;
  private final Instant now;
  private ParallelIo par;

  /**
   * Directories under this root (relative to it) that hold another branch: a branch {@code a/x}
   * lives in {@code tree/a/x/}, which is {@code tree/a/}'s {@code x/}, and a branch {@code a/data}
   * lives in branch {@code a}'s {@code data/}. No sweep removes such a directory or one above it.
   */
  private final Set<String> otherBranchDirs = new HashSet<>();

  private final Set<String> referenced = new HashSet<>();
  private final Set<String> verified = new HashSet<>();
  private long data;
  private long deletions;
  private long transactions;
  private long indexDirs;
  private long unreferenced;
  private long bytes;

  private Cleaner(
      FileIO io,
      DatasetPaths paths,
      String mainRoot,
      Optional<String> branch,
      CleanupOptions options,
      Instant now) {
    this.io = io;
    this.paths = paths;
    this.mainRoot = mainRoot;
    this.branch = branch;
    this.options = options;
    this.now = now;
  }

  /** Cleans up the main branch of the dataset at {@code paths}. */
  public static CleanupResult cleanup(FileIO io, DatasetPaths paths, CleanupOptions options) {
    return new Cleaner(io, paths, paths.root(), Optional.empty(), options, Instant.now()).run();
  }

  /**
   * Cleans up branch {@code branch} (empty: main) of the dataset whose main branch is at {@code
   * mainRoot}; {@code paths} are the branch's own ({@code <mainRoot>/tree/<branch>}). Only the
   * branch's own versions and the files under its directory are candidates: files it shares with
   * its parent lie outside it, and are its parent's to clean up.
   */
  public static CleanupResult cleanup(
      FileIO io,
      DatasetPaths paths,
      String mainRoot,
      Optional<String> branch,
      CleanupOptions options) {
    return new Cleaner(io, paths, mainRoot, branch, options, Instant.now()).run();
  }

  /** Whether a ref's branch (a tag's, a branch's parent) is the branch being cleaned up. */
  private boolean isThisBranch(Optional<String> refBranch) {
    Optional<String> b = refBranch.filter(n -> !n.equals(Refs.MAIN));
    return b.equals(branch);
  }

  private CleanupResult run() {
    try (ParallelIo parallel =
        new ParallelIo(options.parallelism(), "Cleanup of " + paths.root())) {
      this.par = parallel;
      return clean();
    } finally {
      this.par = null;
    }
  }

  private CleanupResult clean() {
    List<VersionLog.Entry> versions = VersionLog.list(io, paths);
    if (versions.isEmpty()) {
      throw new InvalidInputException(
          "Cannot clean up "
              + paths.root()
              + ": no Lance dataset there (no manifest in "
              + paths.versionsDir()
              + ").");
    }
    long latest = versions.get(versions.size() - 1).version();
    Refs refs = new Refs(io, mainRoot);
    Set<Long> tagged = new TreeSet<>();
    for (Refs.TagFile t : refs.tags()) {
      if (isThisBranch(t.branch())) {
        tagged.add(t.version());
      }
    }
    for (Refs.BranchFile b : refs.branches()) {
      if (branch.equals(Optional.of(b.name()))) {
        continue;
      }
      if (isThisBranch(b.parentBranch())) {
        tagged.add(b.parentVersion());
      }
      String location = Refs.branchLocation(mainRoot, b.name());
      underRoot(location).ifPresent(otherBranchDirs::add);
      collectBranch(location);
    }
    List<VersionLog.Entry> removed = new ArrayList<>();
    List<Snapshot> snapshots = par.map(versions, this::read, "read manifest");
    for (int i = 0; i < versions.size(); i++) {
      VersionLog.Entry e = versions.get(i);
      Snapshot s = snapshots.get(i);
      boolean remove =
          e.version() != latest && !tagged.contains(e.version()) && selected(s, latest);
      collect(s, remove ? verified : referenced);
      if (remove) {
        removed.add(e);
      }
    }
    List<Long> removedVersions = new ArrayList<>();
    List<Boolean> gone = par.map(removed, e -> io.delete(e.location()), "deleted manifest");
    for (int i = 0; i < removed.size(); i++) {
      VersionLog.Entry e = removed.get(i);
      if (gone.get(i)) {
        bytes += e.size() >= 0 ? e.size() : 0;
        removedVersions.add(e.version());
      }
    }
    sweepFiles(DatasetPaths.DATA, "data");
    sweepBlobFiles();
    sweepFiles(DeletionFiles.DIR, "deletion");
    sweepFiles(DatasetPaths.TRANSACTIONS, "transaction");
    sweepIndexes();
    sweepTemporaryManifests();
    LOG.info(
        "Cleanup of {}: removed versions {}, {} data files, {} deletion files, {} transaction files, {} index "
            + "segments ({} files no manifest referenced), {} bytes",
        paths.root(),
        removedVersions,
        data,
        deletions,
        transactions,
        indexDirs,
        unreferenced,
        bytes);
    return new CleanupResult(
        removedVersions, data, deletions, transactions, indexDirs, unreferenced, bytes);
  }

  private boolean selected(Snapshot s, long latest) {
    boolean old = options.olderThan().map(t -> s.timestamp().isBefore(t)).orElse(true);
    boolean beyond =
        !options.retainVersions().isPresent()
            || s.version() <= latest - options.retainVersions().getAsInt();
    return old && beyond;
  }

  /**
   * {@code location} relative to the dataset root, when it lies under it: a base path may be the
   * root itself (or a directory in it), and files there that a version references through the base
   * are as referenced as the root's own.
   */
  private Optional<String> underRoot(String location) {
    String prefix = paths.root() + "/";
    return location.startsWith(prefix)
        ? Optional.of(location.substring(prefix.length()))
        : Optional.empty();
  }

  /** Whether directory {@code relative} (to the root) is in, is, or holds another branch's. */
  private boolean holdsABranch(String relative) {
    for (String b : otherBranchDirs) {
      if (b.equals(relative) || b.startsWith(relative + "/") || relative.startsWith(b + "/")) {
        return true;
      }
    }
    return false;
  }

  /** Records every file a version references, as paths relative to the dataset root. */
  private void collect(Snapshot s, Set<String> into) {
    BasePaths bases = s.bases();
    for (DataFragment f : s.fragments()) {
      for (DataFile d : f.getFilesList()) {
        if (!d.hasBaseId()) {
          into.add(DatasetPaths.DATA + "/" + d.getPath());
        } else {
          underRoot(bases.dataFile(d)).ifPresent(into::add);
        }
      }
      if (f.hasDeletionFile() && !f.getDeletionFile().hasBaseId()) {
        into.add(DeletionFiles.relativePath(f.getId(), f.getDeletionFile()));
      } else if (f.hasDeletionFile()) {
        underRoot(bases.deletionFile(f.getId(), f.getDeletionFile())).ifPresent(into::add);
      }
    }
    if (!s.manifest().getTransactionFile().isEmpty()) {
      into.add(DatasetPaths.TRANSACTIONS + "/" + s.manifest().getTransactionFile());
    }
    for (IndexMetadata i : s.indices()) {
      into.add(DatasetPaths.INDICES + "/" + IndexUuids.uuidOf(i.getUuid().getUuid()));
    }
  }

  private void sweepFiles(String dir, String kind) {
    List<FileEntry> candidates = new ArrayList<>();
    for (FileEntry f : io.list(paths.root() + "/" + dir)) {
      if (f.isDirectory()) {
        continue;
      }
      String relative = dir + "/" + f.name();
      if (referenced.contains(relative)) {
        continue;
      }
      if (deletable(verified.contains(relative), f.modificationTime())) {
        candidates.add(f);
      }
    }
    List<Boolean> gone =
        par.map(candidates, f -> io.delete(f.location()), "deleted " + kind + " file");
    for (int i = 0; i < candidates.size(); i++) {
      FileEntry f = candidates.get(i);
      if (!gone.get(i)) {
        continue;
      }
      bytes += f.length();
      unreferenced += verified.contains(dir + "/" + f.name()) ? 0 : 1;
      switch (kind) {
        case "data" -> data++;
        case "deletion" -> deletions++;
        default -> transactions++;
      }
    }
  }

  /** A directory swept as one: the files it held and their bytes, when it was deleted. */
  private record SweptDir(boolean deleted, boolean isVerified, long bytes, int files) {}

  /**
   * Sweeps {@code dirs} ({@code verifiedDirs}: whether a removed version referenced each) in
   * parallel; counts the bytes and unreferenced directories of those deleted, and returns them.
   */
  private List<SweptDir> sweepDirs(List<FileEntry> dirs, List<Boolean> verifiedDirs, String phase) {
    List<Integer> order = java.util.stream.IntStream.range(0, dirs.size()).boxed().toList();
    List<SweptDir> deleted = new ArrayList<>();
    for (SweptDir swept : par.map(order, i -> sweepDir(dirs.get(i), verifiedDirs.get(i)), phase)) {
      if (swept.deleted()) {
        bytes += swept.bytes();
        unreferenced += swept.isVerified() ? 0 : 1;
        deleted.add(swept);
      }
    }
    return deleted;
  }

  /**
   * Lists directory {@code d} and deletes it when {@link #deletable} (its newest file decides); one
   * storage listing per directory, run in parallel by the callers.
   */
  private SweptDir sweepDir(FileEntry d, boolean isVerified) {
    long newest = d.modificationTime();
    long size = 0;
    int files = 0;
    for (FileEntry f : io.list(d.location())) {
      newest = Math.max(newest, f.modificationTime());
      size += f.length();
      files++;
    }
    boolean deleted = deletable(isVerified, newest) && io.deleteRecursively(d.location());
    return new SweptDir(deleted, isVerified, size, files);
  }

  /**
   * The blob files of 2.2 data files ({@code data/<stem>/*.blob} beside {@code data/<stem>.lance}):
   * they go with their data file, under the same rules (kept while a kept version references the
   * data file; a data file no version ever referenced only once old enough). Each counts as a data
   * file removed.
   */
  private void sweepBlobFiles() {
    List<FileEntry> dirs = new ArrayList<>();
    List<Boolean> verifiedDirs = new ArrayList<>();
    for (FileEntry d : io.list(paths.root() + "/" + DatasetPaths.DATA)) {
      if (!d.isDirectory()) {
        continue;
      }
      String dataFile = DatasetPaths.DATA + "/" + d.name() + ".lance";
      if (referenced.contains(dataFile) || holdsABranch(DatasetPaths.DATA + "/" + d.name())) {
        continue;
      }
      dirs.add(d);
      verifiedDirs.add(verified.contains(dataFile));
    }
    for (SweptDir swept : sweepDirs(dirs, verifiedDirs, "swept blob directory")) {
      data += swept.files();
    }
  }

  private void sweepIndexes() {
    List<FileEntry> dirs = new ArrayList<>();
    List<Boolean> verifiedDirs = new ArrayList<>();
    for (FileEntry d : io.list(paths.root() + "/" + DatasetPaths.INDICES)) {
      if (!d.isDirectory()) {
        continue;
      }
      String relative = DatasetPaths.INDICES + "/" + d.name();
      if (referenced.contains(relative) || holdsABranch(relative)) {
        continue;
      }
      dirs.add(d);
      verifiedDirs.add(verified.contains(relative));
    }
    indexDirs += sweepDirs(dirs, verifiedDirs, "swept index segment").size();
  }

  /**
   * Hidden temporary files a commit left in {@code _versions/} when it failed between writing and
   * publishing.
   */
  private void sweepTemporaryManifests() {
    for (FileEntry f : io.list(paths.versionsDir())) {
      if (!f.isDirectory()
          && f.name().startsWith(".")
          && f.name().endsWith(".tmp")
          && deletable(false, f.modificationTime())
          && io.delete(f.location())) {
        bytes += f.length();
        unreferenced++;
      }
    }
  }

  private boolean deletable(boolean isVerified, long modifiedMillis) {
    Instant modified = Instant.ofEpochMilli(modifiedMillis);
    if (options.olderThan().isPresent() && !modified.isBefore(options.olderThan().get())) {
      return false;
    }
    if (isVerified || options.deleteUnverified()) {
      return true;
    }
    return modified.isBefore(now.minus(CleanupOptions.UNVERIFIED_WINDOW));
  }

  /**
   * Marks as referenced every file of the branch being cleaned up that a version of the branch at
   * {@code location} reaches through a base path naming its root (main's root, or the root of the
   * branch being cleaned up for the branches created from it and theirs).
   */
  private void collectBranch(String location) {
    DatasetPaths other = new DatasetPaths(location);
    List<Snapshot> snapshots =
        par.map(VersionLog.list(io, other), e -> read(other, e), "read branch manifest");
    for (Snapshot s : snapshots) {
      Set<Integer> here = new HashSet<>();
      BasePaths bases = s.bases();
      for (BasePath b : s.manifest().getBasePathsList()) {
        if (bases.root(b.getId()).equals(paths.root())) {
          here.add(b.getId());
        }
      }
      for (DataFragment f : s.fragments()) {
        for (DataFile d : f.getFilesList()) {
          if (d.hasBaseId() && here.contains(d.getBaseId())) {
            referenced.add(DatasetPaths.DATA + "/" + d.getPath());
          }
        }
        if (f.hasDeletionFile()
            && f.getDeletionFile().hasBaseId()
            && here.contains(f.getDeletionFile().getBaseId())) {
          referenced.add(DeletionFiles.relativePath(f.getId(), f.getDeletionFile()));
        }
      }
      for (IndexMetadata i : s.indices()) {
        if (i.hasBaseId() && here.contains(i.getBaseId())) {
          referenced.add(DatasetPaths.INDICES + "/" + IndexUuids.uuidOf(i.getUuid().getUuid()));
        }
      }
    }
  }

  private Snapshot read(VersionLog.Entry e) {
    return read(paths, e);
  }

  private Snapshot read(DatasetPaths at, VersionLog.Entry e) {
    try (InputFile in =
        e.size() >= 0 ? io.newInputFile(e.location(), e.size()) : io.newInputFile(e.location())) {
      return new Snapshot(at, e, ManifestFile.read(in));
    }
  }
}
