package dev.lancelot.engine;

import dev.lancelot.engine.internal.format.FeatureFlags;
import dev.lancelot.engine.internal.format.ManifestFile;
import dev.lancelot.engine.internal.format.proto.TableProtos.BasePath;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFile;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFragment;
import dev.lancelot.engine.internal.format.proto.TableProtos.IndexMetadata;
import dev.lancelot.engine.internal.format.proto.TableProtos.Manifest;
import dev.lancelot.engine.internal.format.proto.TransactionProtos.Transaction;
import dev.lancelot.engine.internal.table.DatasetContext;
import dev.lancelot.engine.internal.table.DatasetPaths;
import dev.lancelot.engine.internal.table.Refs;
import dev.lancelot.engine.internal.table.VersionLog;
import dev.lancelot.engine.io.FileIO;
import dev.lancelot.engine.io.InputFile;
import dev.lancelot.engine.io.StorageException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * Creating and deleting branches as Lance 7 does (decision D58). Package-private; {@link Dataset}
 * uses it.
 *
 * <p>A branch is created as a shallow clone of one version of its parent: the ref {@code
 * _refs/branches/<name>.json} first (put-if-absent, so two creators cannot both win), then the
 * branch's first manifest under {@code tree/<name>/_versions/}, numbered as the parent's version.
 * That manifest is the parent's with every file that had no base id given a new base path naming
 * the parent's location (a dataset root, named after the parent branch), the branch name in field
 * 20, and a {@code Clone} transaction. Nothing is copied: the branch reaches its parent's files
 * through the base path.
 */
final class BranchOps {
  private BranchOps() {}

  /** Creates branch {@code name} from {@code version} of {@code from} (empty: main). */
  static Branch create(FileIO io, String root, String name, Optional<String> from, long version) {
    Refs refs = new Refs(io, root);
    Refs.checkBranchName(name);
    Optional<String> parent = from.filter(b -> !b.equals(Refs.MAIN));
    String source = root;
    if (parent.isPresent()) {
      refs.branch(parent.get()); // exists, else an error naming the branches
      source = Refs.branchLocation(root, parent.get());
    }
    if (io.exists(Refs.branchFileLocation(root, name))) {
      throw refs.branchExists(name);
    }
    DatasetPaths sourcePaths = new DatasetPaths(source);
    VersionLog.Entry entry =
        VersionLog.find(io, sourcePaths, version)
            .orElseThrow(() -> noSuchVersion(io, sourcePaths, root, name, parent, version));
    ManifestFile sourceManifest;
    long sourceSize;
    try (InputFile in = io.newInputFile(entry.location())) {
      sourceSize = in.length();
      sourceManifest = ManifestFile.read(in);
    }
    Refs.BranchFile ref = refs.createBranch(name, parent, version, sourceSize);
    DatasetPaths target = new DatasetPaths(Refs.branchLocation(root, name));
    String uuid = UUID.randomUUID().toString();
    String txnName = version + "-" + uuid + ".txn";
    Transaction.Clone.Builder clone =
        Transaction.Clone.newBuilder()
            .setIsShallow(true)
            .setRefVersion(version)
            .setRefPath(basePath(source))
            .setBranchName(name);
    parent.ifPresent(clone::setRefName);
    Transaction txn =
        Transaction.newBuilder().setReadVersion(version).setUuid(uuid).setClone(clone).build();
    Manifest manifest = cloneManifest(sourceManifest.manifest(), parent, source, name, txnName);
    List<IndexMetadata> indices = new ArrayList<>();
    int baseId = newBaseId(sourceManifest.manifest());
    for (IndexMetadata ix : sourceManifest.indices()) {
      indices.add(ix.hasBaseId() ? ix : ix.toBuilder().setBaseId(baseId).build());
    }
    String manifestAt = target.versionsDir() + "/" + entry.naming().fileName(version);
    boolean published = false;
    try {
      io.putIfAbsent(target.transactionFile(txnName), txn.toByteArray());
      published = io.putIfAbsent(manifestAt, ManifestFile.write(manifest, indices, txn));
    } finally {
      if (!published) {
        io.delete(target.transactionFile(txnName));
        io.delete(Refs.branchFileLocation(root, name));
      }
    }
    if (!published) {
      throw new InvalidInputException(
          "Cannot create branch \""
              + name
              + "\" of "
              + root
              + ": "
              + manifestAt
              + " already exists (files of an earlier branch of that name remain under "
              + target.root()
              + "). Remove that directory, or choose another name.");
    }
    try {
      io.overwrite(
          target.versionHint(), ("{\"version\":" + version + "}").getBytes(StandardCharsets.UTF_8));
    } catch (StorageException e) {
      // Only a hint: readers list _versions/.
    }
    return new Branch(
        name, parent, version, Instant.ofEpochSecond(ref.createdAtSeconds()), ref.metadata());
  }

  /** The parent's manifest as the branch's first version. */
  private static Manifest cloneManifest(
      Manifest source, Optional<String> parent, String sourceLocation, String name, String txn) {
    int baseId = newBaseId(source);
    Manifest.Builder m = source.toBuilder().clearFragments();
    for (DataFragment f : source.getFragmentsList()) {
      DataFragment.Builder b = f.toBuilder().clearFiles();
      for (DataFile file : f.getFilesList()) {
        b.addFiles(file.hasBaseId() ? file : file.toBuilder().setBaseId(baseId).build());
      }
      if (f.hasDeletionFile() && !f.getDeletionFile().hasBaseId()) {
        b.setDeletionFile(f.getDeletionFile().toBuilder().setBaseId(baseId));
      }
      m.addFragments(b);
    }
    BasePath.Builder base =
        BasePath.newBuilder()
            .setId(baseId)
            .setIsDatasetRoot(true)
            .setPath(basePath(sourceLocation));
    parent.ifPresent(base::setName);
    Instant now = Instant.now();
    return m.addBasePaths(base)
        .setBranch(name)
        .setTransactionFile(txn)
        .setTimestamp(
            com.google.protobuf.Timestamp.newBuilder()
                .setSeconds(now.getEpochSecond())
                .setNanos(now.getNano()))
        .setReaderFeatureFlags(source.getReaderFeatureFlags() | FeatureFlags.BASE_PATHS)
        .setWriterFeatureFlags(source.getWriterFeatureFlags() | FeatureFlags.BASE_PATHS)
        .build();
  }

  private static int newBaseId(Manifest m) {
    int max = -1;
    for (BasePath b : m.getBasePathsList()) {
      max = Math.max(max, b.getId());
    }
    return max + 1;
  }

  /** A location as Lance records a base path: a local file's absolute path, else the URI. */
  static String basePath(String location) {
    URI uri = URI.create(location);
    return "file".equals(uri.getScheme()) ? uri.getPath() : location;
  }

  private static InvalidInputException noSuchVersion(
      FileIO io,
      DatasetPaths source,
      String root,
      String name,
      Optional<String> parent,
      long version) {
    List<VersionLog.Entry> all = VersionLog.list(io, source);
    return new InvalidInputException(
        "Cannot create branch \""
            + name
            + "\" of "
            + root
            + " from version "
            + version
            + parent.map(p -> " of branch \"" + p + "\"").orElse(" of the main branch")
            + ": no such version"
            + (all.isEmpty() ? "" : " (versions: " + DatasetStorage.availableVersions(all) + ")")
            + ".");
  }

  /**
   * Deletes branch {@code name}: refused while another branch was created from it or a tag points
   * into it; then its ref goes, and its directory under {@code tree/} unless a remaining branch
   * lives inside it (Lance's rule: the outermost directory no remaining branch shares).
   */
  static void delete(DatasetContext ctx, String root, String name) {
    FileIO io = ctx.io();
    Refs refs = new Refs(io, root);
    refs.branch(name); // exists, else an error naming the branches
    List<String> children =
        refs.branches().stream()
            .filter(b -> b.parentBranch().filter(name::equals).isPresent())
            .map(Refs.BranchFile::name)
            .toList();
    if (!children.isEmpty()) {
      throw new InvalidInputException(
          "Cannot delete branch \""
              + name
              + "\" of "
              + root
              + ": branches "
              + children
              + " were created from it and read its files. Delete them first.");
    }
    List<String> tags =
        refs.tags().stream()
            .filter(t -> t.branch().filter(name::equals).isPresent())
            .map(Refs.TagFile::name)
            .toList();
    if (!tags.isEmpty()) {
      throw new InvalidInputException(
          "Cannot delete branch \""
              + name
              + "\" of "
              + root
              + ": tags "
              + tags
              + " point to its versions. Delete or move them first.");
    }
    refs.deleteBranchRef(name);
    List<String> remaining = refs.branches().stream().map(Refs.BranchFile::name).toList();
    cleanupDirectory(name, remaining)
        .ifPresent(dir -> io.deleteRecursively(root + "/" + Refs.TREE + "/" + dir));
    // A branch created later under the same name starts again at some version: forget this one's.
    String location = Refs.branchLocation(root, name);
    Dataset.evictCached(location);
    DatasetCache.evict(ctx.cache(), location);
  }

  /**
   * The directory under {@code tree/} to remove with branch {@code deleted}: none when a remaining
   * branch lies inside it; else, below the longest directory it shares with a remaining branch, its
   * next segment.
   */
  static Optional<String> cleanupDirectory(String deleted, List<String> remaining) {
    String[] d = deleted.split("/");
    int shared = 0;
    for (String r : remaining) {
      String[] s = r.split("/");
      if (s.length > d.length && startsWith(s, d)) {
        return Optional.empty();
      }
      int common = 0;
      while (common < Math.min(s.length, d.length) && s[common].equals(d[common])) {
        common++;
      }
      shared = Math.max(shared, common);
    }
    return Optional.of(String.join("/", java.util.Arrays.copyOfRange(d, 0, shared + 1)));
  }

  private static boolean startsWith(String[] s, String[] prefix) {
    for (int i = 0; i < prefix.length; i++) {
      if (!s[i].equals(prefix[i])) {
        return false;
      }
    }
    return true;
  }
}
