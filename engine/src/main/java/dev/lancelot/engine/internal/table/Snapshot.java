package dev.lancelot.engine.internal.table;

import dev.lancelot.engine.FragmentInfo;
import dev.lancelot.engine.internal.format.ManifestFile;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFragment;
import dev.lancelot.engine.internal.format.proto.TableProtos.IndexMetadata;
import dev.lancelot.engine.internal.format.proto.TableProtos.Manifest;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * One committed version of a dataset: its manifest, index section and the transaction that made it.
 */
public record Snapshot(DatasetPaths paths, VersionLog.Entry entry, ManifestFile file) {

  public long version() {
    return file.manifest().getVersion();
  }

  public Manifest manifest() {
    return file.manifest();
  }

  /** Where this version's files live (the root and its registered base paths). */
  public BasePaths bases() {
    return BasePaths.of(paths, file.manifest());
  }

  public List<DataFragment> fragments() {
    return file.manifest().getFragmentsList();
  }

  /** What the public API shows of a fragment of this version. */
  public FragmentInfo info(DataFragment f) {
    BasePaths bases = bases();
    return new FragmentInfo(
        f.getId(),
        f.getPhysicalRows(),
        f.hasDeletionFile() ? f.getDeletionFile().getNumDeletedRows() : 0,
        f.getFilesList().stream().map(d -> d.getPath()).toList(),
        f.getFilesList().stream().map(bases::dataFile).toList());
  }

  public Optional<DataFragment> fragment(long id) {
    for (DataFragment f : fragments()) {
      if (f.getId() == id) {
        return Optional.of(f);
      }
    }
    return Optional.empty();
  }

  public List<IndexMetadata> indices() {
    return file.indices();
  }

  public Instant timestamp() {
    var ts = file.manifest().getTimestamp();
    return Instant.ofEpochSecond(ts.getSeconds(), ts.getNanos());
  }

  /** Rows visible in this version (physical rows minus deleted rows), from the manifest alone. */
  public long countRows() {
    long n = 0;
    for (DataFragment f : fragments()) {
      n += liveRows(f);
    }
    return n;
  }

  /** A fragment's live rows by its manifest entry: physical rows less the deletion file's count. */
  public static long liveRows(DataFragment f) {
    return f.getPhysicalRows()
        - (f.hasDeletionFile() ? f.getDeletionFile().getNumDeletedRows() : 0);
  }

  /** The id the next new fragment gets. */
  public long nextFragmentId() {
    Manifest m = file.manifest();
    long next = m.hasMaxFragmentId() ? Integer.toUnsignedLong(m.getMaxFragmentId()) + 1 : 0;
    for (DataFragment f : fragments()) {
      next = Math.max(next, f.getId() + 1);
    }
    return next;
  }
}
