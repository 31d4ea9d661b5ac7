package dev.lancelot.engine.internal.table;

import dev.lancelot.engine.CommitConflictException;
import dev.lancelot.engine.internal.format.ManifestFile;
import dev.lancelot.engine.internal.format.ManifestNaming;
import dev.lancelot.engine.internal.format.proto.TransactionProtos.Transaction;
import dev.lancelot.engine.io.BytesInputFile;
import dev.lancelot.engine.io.FileIO;
import dev.lancelot.engine.io.InputFile;
import dev.lancelot.engine.io.StorageException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commits operations as new versions (F4).
 *
 * <p>Protocol: write the transaction file under a unique name, then put the manifest of version
 * {@code base + 1} if absent. When another writer already took that version, read the transactions
 * of every version committed since, and for each decide (see {@link Operation#resolve}): rebase
 * onto it, plan the operation again against it, or fail with {@link CommitConflictException}. At
 * most {@value #MAX_ATTEMPTS} attempts. Files written by a writer that never commits are never
 * referenced by a manifest, so readers ignore them.
 */
public final class Committer {
  public static final int MAX_ATTEMPTS = 20;
  private static final Logger LOG = LoggerFactory.getLogger(Committer.class);

  private final FileIO io;
  private final DatasetPaths paths;
  private final ManifestNaming naming;
  private final java.util.Map<String, String> properties;

  public Committer(FileIO io, DatasetPaths paths, ManifestNaming naming) {
    this(io, paths, naming, java.util.Map.of());
  }

  private Committer(
      FileIO io, DatasetPaths paths, ManifestNaming naming, java.util.Map<String, String> props) {
    this.io = io;
    this.paths = paths;
    this.naming = naming;
    this.properties = java.util.Map.copyOf(props);
  }

  /**
   * This committer, recording {@code props} as the transaction properties (Lance's {@code
   * Transaction.transaction_properties}) of what it commits, in the transaction file and the
   * manifest's inline transaction.
   */
  public Committer withProperties(java.util.Map<String, String> props) {
    return new Committer(io, paths, naming, props);
  }

  private Transaction transaction(Operation op, long readVersion, String uuid) {
    Transaction t = op.toTransaction(readVersion, uuid);
    return properties.isEmpty() ? t : t.toBuilder().putAllTransactionProperties(properties).build();
  }

  /** Commits an operation planned once; it is re-applied as-is on each attempt. */
  public Snapshot commit(Snapshot readVersion, Operation op) {
    return commit(readVersion, s -> op, op);
  }

  /**
   * Commits {@code firstPlan}, planned against {@code readVersion} (null to create the dataset).
   * When a concurrent transaction requires it, {@code planner} makes a new plan against the newer
   * version; the planner may throw to abandon the commit.
   */
  public Snapshot commit(
      Snapshot readVersion, Function<Snapshot, Operation> planner, Operation firstPlan) {
    if (readVersion != null) {
      WriteChecks.check(paths.root(), readVersion.manifest(), firstPlan.kind());
    }
    Operation op = firstPlan;
    long readVersionNumber = readVersion == null ? 0 : readVersion.version();
    Snapshot base = readVersion;
    String txnName = writeTransactionFile(op, readVersionNumber);
    for (int attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      long target = base == null ? 1 : base.version() + 1;
      Transaction txn = transaction(op, readVersionNumber, uuidOf(txnName));
      ManifestBuilder.Built built = ManifestBuilder.build(base, op, txnName, Instant.now());
      byte[] bytes = ManifestFile.write(built.manifest(), built.indices(), txn);
      String location = paths.versionsDir() + "/" + naming.fileName(target);
      if (io.putIfAbsent(location, bytes)) {
        writeHint(target);
        LOG.debug(
            "Committed {} as version {} of {}", op.kind().displayName(), target, paths.root());
        // From the bytes just published, not read back: once the version is visible, no storage
        // error
        // may make the commit look failed (a caller retrying it would apply the operation twice).
        return new Snapshot(
            paths,
            new VersionLog.Entry(
                target, naming, location, bytes.length, System.currentTimeMillis()),
            ManifestFile.read(new BytesInputFile(location, bytes)));
      }
      if (base == null) {
        io.delete(paths.transactionFile(txnName));
        throw new CommitConflictException(
            "Cannot create dataset "
                + paths.root()
                + ": another writer created it concurrently. Append to it, or overwrite it.");
      }
      // Another writer committed `target` first: examine every version we have not seen.
      long latest = VersionLog.latest(io, paths).map(VersionLog.Entry::version).orElse(target);
      boolean replan = false;
      Snapshot newest = base;
      for (long v = target; v <= latest; v++) {
        Snapshot other = load(v);
        Transaction otherTxn = transactionOf(other);
        Operation.Resolution r = op.resolve(otherTxn);
        if (r == Operation.Resolution.INCOMPATIBLE) {
          io.delete(paths.transactionFile(txnName));
          throw new CommitConflictException(
              "Cannot commit "
                  + op.kind().displayName()
                  + " to "
                  + paths.root()
                  + ": a concurrent "
                  + OperationKind.of(otherTxn).displayName()
                  + " was committed as version "
                  + v
                  + " (transaction read from "
                  + transactionSource(other)
                  + ") after this operation read version "
                  + readVersionNumber
                  + ", and the two cannot both apply. Retry the operation on the latest version.");
        }
        replan |= r == Operation.Resolution.REPLAN;
        newest = other;
      }
      base = newest;
      if (replan) {
        Operation replanned = planner.apply(base);
        if (replanned != op) {
          io.delete(paths.transactionFile(txnName));
          op = replanned;
          readVersionNumber = base.version();
          txnName = writeTransactionFile(op, readVersionNumber);
        }
      }
      LOG.info(
          "Version {} of {} was taken by a concurrent writer; rebasing {} onto version {} (attempt {}/{})",
          target,
          paths.root(),
          op.kind().displayName(),
          base.version(),
          attempt,
          MAX_ATTEMPTS);
      backoff(attempt);
    }
    io.delete(paths.transactionFile(txnName));
    throw new CommitConflictException(
        "Cannot commit "
            + op.kind().displayName()
            + " to "
            + paths.root()
            + ": "
            + MAX_ATTEMPTS
            + " attempts lost the race to concurrent writers. Retry later or reduce write concurrency.");
  }

  private Snapshot load(long version) {
    VersionLog.Entry entry =
        VersionLog.find(io, paths, version)
            .orElseThrow(
                () ->
                    new StorageException(
                        "Cannot read version "
                            + version
                            + " of "
                            + paths.root()
                            + ": its manifest disappeared during a commit"));
    try (InputFile in = io.newInputFile(entry.location())) {
      return new Snapshot(paths, entry, ManifestFile.read(in));
    }
  }

  /**
   * Where {@link #transactionOf} reads a version's transaction: its manifest or its transaction
   * file.
   */
  private String transactionSource(Snapshot s) {
    String name = s.manifest().getTransactionFile();
    if (s.file().transaction().isPresent() || name.isEmpty()) {
      return s.entry().location();
    }
    return paths.resolveInside(DatasetPaths.TRANSACTIONS, name, "transaction file");
  }

  private Transaction transactionOf(Snapshot s) {
    Optional<Transaction> inline = s.file().transaction();
    if (inline.isPresent()) {
      return inline.get();
    }
    String name = s.manifest().getTransactionFile();
    if (name.isEmpty()) {
      // A version without a recorded transaction: assume the worst.
      return Transaction.getDefaultInstance();
    }
    String location = paths.resolveInside(DatasetPaths.TRANSACTIONS, name, "transaction file");
    try (InputFile in = io.newInputFile(location)) {
      ByteBuffer buf = in.read(0, Math.toIntExact(in.length()));
      byte[] bytes = new byte[buf.remaining()];
      buf.get(bytes);
      return ManifestFile.parseTransaction(location, bytes);
    }
  }

  private String writeTransactionFile(Operation op, long readVersion) {
    String uuid = UUID.randomUUID().toString();
    String name = readVersion + "-" + uuid + ".txn";
    byte[] bytes = transaction(op, readVersion, uuid).toByteArray();
    try (var out = io.create(paths.transactionFile(name))) {
      out.write(bytes);
    } catch (IOException e) {
      throw new StorageException(
          "Cannot write transaction file " + paths.transactionFile(name) + ": " + e.getMessage(),
          e);
    }
    return name;
  }

  private static String uuidOf(String txnName) {
    int dash = txnName.indexOf('-');
    return txnName.substring(dash + 1, txnName.length() - ".txn".length());
  }

  private void writeHint(long version) {
    try {
      io.overwrite(
          paths.versionHint(), ("{\"version\":" + version + "}").getBytes(StandardCharsets.UTF_8));
    } catch (RuntimeException e) {
      // The hint is only a hint: readers list _versions/ to find the latest version.
      LOG.warn(
          "Committed version {} of {} but could not update {}: {}",
          version,
          paths.root(),
          paths.versionHint(),
          e.getMessage());
    }
  }

  private static void backoff(int attempt) {
    long maxMillis = Math.min(1000, 5L << Math.min(attempt, 8));
    try {
      Thread.sleep(ThreadLocalRandom.current().nextLong(1, maxMillis + 1));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StorageException("Interrupted while retrying a commit");
    }
  }
}
