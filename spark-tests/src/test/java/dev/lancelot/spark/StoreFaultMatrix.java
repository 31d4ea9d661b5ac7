package dev.lancelot.spark;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancelot.engine.faults.DatasetState;
import dev.lancelot.engine.faults.FaultedOperation;
import dev.lancelot.engine.internal.table.DatasetPaths;
import dev.lancelot.engine.io.CommitOutcomeUnknownException;
import dev.lancelot.engine.io.RetryPolicy;
import dev.lancelot.engine.io.StorageException;
import dev.lancelot.engine.io.faults.FaultInjectingFileSystem;
import dev.lancelot.engine.io.faults.Faults;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.FileUtil;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The fault matrix of docs/storage.md (the engine's {@code FaultMatrixTest}) on a real store: every
 * operation that commits against every kind of fault, injected between the engine and the store's
 * own Hadoop file system ({@link FaultInjectingFileSystem#wrap}), so that the engine sees the
 * store's scheme and uses its commit protocol (HDFS: temporary file and rename; S3: one conditional
 * PUT).
 *
 * <p>The engine's matrix faults every call of a clean run; on a server that is too slow for a test
 * suite, so this one faults a representative call of each kind: the first call of each distinct
 * (operation kind, file kind) pair of the clean run (a create of a data file, the close of a
 * transaction file, the status check of a manifest's temporary file, the rename publishing it,
 * ...). {@code -Dlancelot.test.faults.everyCall=true} faults every call, as the engine's matrix
 * does.
 *
 * <p>After each faulted run the checks are the engine matrix's: the dataset is exactly as before
 * the operation or exactly as after the clean run, a failed operation left it as before (or either,
 * when the error says the commit's outcome is unknown) and names the failing path, and running a
 * failed operation again without faults gives exactly the clean result.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class StoreFaultMatrix {
  static final int ATTEMPTS = 4;

  BufferAllocator allocator;

  /** Reaches the store without faults: preparing, copying, checking. */
  Configuration plain;

  /** Reaches the store through the fault-injecting file system. */
  Configuration faulted;

  Faults faults;
  private String root;
  private final Map<FaultedOperation, Fixture> fixtures = new EnumMap<>(FaultedOperation.class);
  private int runs;
  private long started;

  /** Starts the store; returns the Hadoop configuration that reaches it. */
  abstract Configuration startStore() throws Exception;

  abstract void stopStore();

  /** The store's scheme and the class of its real file system. */
  abstract String scheme();

  abstract String fileSystemClass();

  /** A fresh directory on the store for this class's datasets. */
  abstract String newRoot();

  /**
   * The state an operation starts from, the state a clean run ends in, and the calls of the clean
   * run.
   */
  record Fixture(
      String template, DatasetState before, DatasetState after, List<Faults.Call> calls) {}

  /** One faulted run: where, what was thrown, which calls were faulted, and the state it left. */
  record Outcome(
      String dir, RuntimeException error, List<Faults.Call> injected, DatasetState state) {
    String describe() {
      return "faulted "
          + injected
          + ", "
          + (error == null ? "succeeded" : "failed: " + error)
          + ", left "
          + state;
    }
  }

  @BeforeAll
  void setUp() throws Exception {
    allocator = new RootAllocator();
    plain = startStore();
    faults = Faults.register().hangMillis(5);
    faulted =
        FaultInjectingFileSystem.wrap(
            new Configuration(plain), scheme(), fileSystemClass(), faults);
    faulted.setInt(RetryPolicy.MAX_ATTEMPTS, ATTEMPTS);
    faulted.setLong(RetryPolicy.INITIAL_BACKOFF_MS, 1);
    faulted.setLong(RetryPolicy.MAX_BACKOFF_MS, 2);
    faulted.setLong(RetryPolicy.BUDGET_MS, 10_000);
    root = newRoot();
    started = System.nanoTime();
  }

  @AfterAll
  void tearDown() {
    System.out.println(
        "[fault matrix on "
            + scheme()
            + "] "
            + runs
            + " faulted runs in "
            + (System.nanoTime() - started) / 1_000_000_000
            + " s");
    try {
      if (faults != null) {
        faults.unregister();
      }
      if (allocator != null) {
        allocator.close();
      }
    } finally {
      stopStore();
    }
  }

  // ---------------------------------------------------------------- the cells

  @ParameterizedTest(name = "{0}")
  @EnumSource(FaultedOperation.class)
  void permanentFailureOfEachCall(FaultedOperation op) {
    int failed = 0;
    for (int n : sampled(fixture(op).calls(), 0)) {
      Outcome o = run(op, s -> s.failNth(n, Faults.Kind.FAIL));
      assertWholeOrNothing(op, o);
      if (o.error() != null) {
        failed++;
        assertNamesFaultedPath(o);
      }
    }
    assertThat(failed).as("runs of %s that failed", op).isPositive();
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(FaultedOperation.class)
  void transientErrorAtEachCallIsRetried(FaultedOperation op) {
    int i = 0;
    for (int n : sampled(fixture(op).calls(), 1)) {
      Faults.Kind kind = i++ % 2 == 0 ? Faults.Kind.SLOW_DOWN : Faults.Kind.CONNECTION_RESET;
      assertRetriedUnlessAnUploadBroke(op, run(op, s -> s.failNth(n, kind)));
    }
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(FaultedOperation.class)
  void transientErrorsBeyondTheBudgetFailCleanly(FaultedOperation op) {
    int gaveUp = 0;
    for (int n : sampled(fixture(op).calls(), 2)) {
      Outcome o = run(op, s -> s.failFromNth(n, Faults.Kind.SLOW_DOWN));
      assertWholeOrNothing(op, o);
      if (o.error() != null) {
        assertThat(o.error().getMessage()).as(o.describe()).contains(o.dir());
        if (o.error().getMessage().contains("gave up after " + ATTEMPTS + " attempts")) {
          gaveUp++;
        }
      }
    }
    assertThat(gaveUp).as("runs of %s that exhausted the retry budget", op).isPositive();
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(FaultedOperation.class)
  void hangPastTheTimeoutAfterTheStoreActedAtEachCall(FaultedOperation op) {
    for (int n : sampled(fixture(op).calls(), 3)) {
      assertRetriedUnlessAnUploadBroke(op, run(op, s -> s.failNth(n, Faults.Kind.HANG_AFTER)));
    }
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(FaultedOperation.class)
  void truncatedWriteOfEachFile(FaultedOperation op) {
    List<Faults.Call> creates =
        fixture(op).calls().stream().filter(c -> c.op() == Faults.Op.CREATE).toList();
    for (int k : sampled(creates, -1)) {
      if (!truncatable(creates.get(k - 1).path())) {
        continue;
      }
      for (boolean closeThrows : new boolean[] {false, true}) {
        assertOnlyAdvisoryFilesMayFail(op, run(op, s -> s.truncateNthCreate(k, 8, closeThrows)));
      }
    }
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(FaultedOperation.class)
  void throwOnCloseOfEachFile(FaultedOperation op) {
    List<Faults.Call> closes =
        fixture(op).calls().stream().filter(c -> c.op() == Faults.Op.CLOSE).toList();
    for (int k : sampled(closes, -1)) {
      assertOnlyAdvisoryFilesMayFail(
          op, run(op, s -> s.fail(Faults.Op.CLOSE, p -> true, k, 1, Faults.Kind.FAIL_AFTER)));
    }
  }

  /**
   * Whether a created file can be cut short on this store without the store noticing. Everywhere,
   * except where a file is the manifest itself, sent as one request (S3's conditional PUT).
   */
  boolean truncatable(String path) {
    return true;
  }

  // ---------------------------------------------------------------- which calls are faulted

  /**
   * Whether the sweep columns also fault calls outside {@code _versions/} (a quarter of them each).
   */
  static final boolean ALL_KINDS = Boolean.getBoolean("lancelot.test.faults.allKinds");

  /** The columns that fault the N-th call for a sweep of N ({@link #sampled}). */
  static final int SWEEP_COLUMNS = 4;

  /**
   * The numbers (from 1) of the calls to fault in {@code calls}: every one with {@code
   * lancelot.test.faults.everyCall}; else the first of each (operation kind, file kind), and in the
   * sweep column {@code column} (0 to {@value #SWEEP_COLUMNS} - 1; -1 for all) only the very first
   * call and those under {@code _versions/} (with {@code lancelot.test.faults.allKinds}, also every
   * {@value #SWEEP_COLUMNS}-th of the others, in turn): the commit's calls are where the stores
   * differ (rename, conditional PUT), the others are those of any Hadoop stream, faulted at every
   * call by the engine's matrix.
   */
  static List<Integer> sampled(List<Faults.Call> calls, int column) {
    List<Integer> out = new ArrayList<>();
    boolean every = Boolean.getBoolean("lancelot.test.faults.everyCall");
    Map<String, Integer> firsts = new LinkedHashMap<>();
    for (int i = 0; i < calls.size(); i++) {
      Faults.Call c = calls.get(i);
      if (every) {
        out.add(i + 1);
      } else {
        firsts.putIfAbsent(c.op() + " " + fileKind(c.path()), i + 1);
      }
    }
    if (every) {
      return out;
    }
    int other = 0;
    for (Map.Entry<String, Integer> e : firsts.entrySet()) {
      boolean commit = e.getKey().contains("manifest") || e.getKey().contains("hint");
      boolean first = e.getValue() == 1;
      if (commit || first || column < 0 || (ALL_KINDS && other++ % SWEEP_COLUMNS == column)) {
        out.add(e.getValue());
      }
    }
    return out;
  }

  /**
   * The kind of file a path is: data, transaction, deletion, index, manifest, its temporary file,
   * hint, directory.
   */
  static String fileKind(String path) {
    String p = path.contains(" -> ") ? path.substring(path.indexOf(" -> ") + 4) : path;
    String name = p.substring(p.lastIndexOf('/') + 1);
    if (p.contains("/" + DatasetPaths.VERSIONS + "/")) {
      if (name.equals(DatasetPaths.HINT)) {
        return "hint";
      }
      return name.startsWith(".") ? "manifest-tmp" : "manifest";
    }
    for (String dir : List.of("/data/", "/_transactions/", "/_deletions/", "/_indices/")) {
      if (p.contains(dir)) {
        return dir;
      }
    }
    return "dataset directory";
  }

  // ---------------------------------------------------------------- expectations

  /** The engine matrix's whole-or-nothing check (FaultMatrixTest#assertWholeOrNothing). */
  void assertWholeOrNothing(FaultedOperation op, Outcome o) {
    Fixture f = fixture(op);
    if (o.error() == null) {
      assertThat(o.state()).as(o.describe()).isEqualTo(f.after());
    } else {
      if (o.error() instanceof CommitOutcomeUnknownException) {
        assertThat(o.state()).as(o.describe()).isIn(f.before(), f.after());
      } else {
        assertThat(o.state()).as(o.describe()).isEqualTo(f.before());
      }
      if (o.state().equals(f.before())) {
        faults.reset();
        op.run(o.dir(), faulted, allocator);
        assertThat(faults.openFiles()).as("files left open by the retry").isEmpty();
        assertThat(DatasetState.read(o.dir(), plain, allocator))
            .as("retry after " + o.describe())
            .isEqualTo(f.after());
      }
    }
    delete(o.dir());
  }

  /**
   * A transient fault, or a hang ended by a time-out, is absorbed by retries, except on closing a
   * written data, index, transaction or deletion file, whose bytes are gone with the stream.
   */
  void assertRetriedUnlessAnUploadBroke(FaultedOperation op, Outcome o) {
    assertThat(o.injected()).as(o.describe()).hasSize(1);
    Faults.Call faulted = o.injected().get(0);
    boolean uploadBroke =
        faulted.op() == Faults.Op.CLOSE && !faulted.path().contains("/_versions/");
    if (uploadBroke) {
      assertThat(o.error()).as(o.describe()).isNotNull();
      assertThat(o.error().getMessage()).as(o.describe()).contains(faulted.path());
    } else {
      assertThat(o.error()).as(o.describe()).isNull();
    }
    assertWholeOrNothing(op, o);
  }

  /**
   * A truncated or failed file fails the operation, except the version hint (advisory) and a
   * manifest published by its own close (S3's PUT): a close that failed after the store acted is
   * read back and found published.
   */
  void assertOnlyAdvisoryFilesMayFail(FaultedOperation op, Outcome o) {
    assertThat(o.injected()).as(o.describe()).hasSize(1);
    Faults.Call faulted = o.injected().get(0);
    String kind = fileKind(faulted.path());
    boolean publishedByItsClose = kind.equals("manifest") && faulted.op() == Faults.Op.CLOSE;
    if (kind.equals("hint") || publishedByItsClose) {
      assertThat(o.error()).as(o.describe()).isNull();
    } else {
      assertThat(o.error()).as(o.describe()).isNotNull();
      assertNamesFaultedPath(o);
    }
    assertWholeOrNothing(op, o);
  }

  /** The message names the path the fault hit (for a rename, the manifest it was to publish). */
  static void assertNamesFaultedPath(Outcome o) {
    String path = o.injected().get(0).reportedPath();
    assertThat(o.error().getMessage()).as(o.describe()).contains(path);
    assertThat(o.error()).as(o.describe()).isInstanceOf(StorageException.class);
  }

  // ---------------------------------------------------------------- running

  /** The starting state in a template directory, and a clean run of the operation on a copy. */
  synchronized Fixture fixture(FaultedOperation op) {
    return fixtures.computeIfAbsent(
        op,
        o -> {
          String template = root + "/" + o.name() + "/template";
          o.prepare(template, plain, allocator);
          DatasetState before = DatasetState.read(template, plain, allocator);
          String clean = copy(template, root + "/" + o.name() + "/clean");
          faults.reset();
          o.run(clean, faulted, allocator);
          List<Faults.Call> calls = faults.calls();
          assertThat(faults.openFiles()).as("files left open by a clean run of %s", o).isEmpty();
          faults.reset();
          DatasetState after = DatasetState.read(clean, plain, allocator);
          assertThat(after).as("%s changes the dataset", o).isNotEqualTo(before);
          assertThat(after.version()).isEqualTo(before.version() + 1);
          assertThat(calls)
              .as("calls of %s reach the store through the faults", o)
              .isNotEmpty()
              .allMatch(c -> c.path().startsWith(scheme() + "://"));
          System.out.println(
              "[fault matrix on "
                  + scheme()
                  + "] "
                  + o
                  + ": "
                  + calls.size()
                  + " storage calls in a "
                  + "clean run, "
                  + sampled(calls, -1).size()
                  + " distinct");
          return new Fixture(template, before, after, calls);
        });
  }

  Outcome run(FaultedOperation op, Consumer<Faults> script) {
    Fixture f = fixture(op);
    String dir = copy(f.template(), root + "/" + op.name() + "/run-" + (++runs));
    faults.reset();
    script.accept(faults);
    RuntimeException error = null;
    try {
      op.run(dir, faulted, allocator);
    } catch (RuntimeException e) {
      error = e;
    }
    List<Faults.Call> injected = faults.injected();
    List<String> open = faults.openFiles();
    faults.reset();
    Outcome o = new Outcome(dir, error, injected, DatasetState.read(dir, plain, allocator));
    assertThat(open).as("files left open by a run " + o.describe()).isEmpty();
    return o;
  }

  /** Copies the dataset at {@code from} (if any) to {@code to}, without faults. */
  String copy(String from, String to) {
    try {
      Path src = new Path(from);
      FileSystem fs = src.getFileSystem(plain);
      if (fs.exists(src)) {
        if (!FileUtil.copy(fs, src, fs, new Path(to), false, plain)) {
          throw new IOException("Copying " + from + " to " + to + " failed");
        }
      }
      return to;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  void delete(String dir) {
    try {
      Path p = new Path(dir);
      p.getFileSystem(plain).delete(p, true);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static String unique(String prefix) {
    return prefix + UUID.randomUUID().toString().substring(0, 8);
  }
}
