package dev.lancelot.engine.faults;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancelot.engine.internal.table.DatasetPaths;
import dev.lancelot.engine.io.CommitOutcomeUnknownException;
import dev.lancelot.engine.io.RetryPolicy;
import dev.lancelot.engine.io.StorageException;
import dev.lancelot.engine.io.faults.FaultInjectingFileSystem;
import dev.lancelot.engine.io.faults.Faults;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The fault matrix of docs/storage.md: every operation that commits ({@link FaultedOperation})
 * against every kind of storage fault, injected by {@link FaultInjectingFileSystem} at every
 * storage call the operation makes (counted in a clean run first).
 *
 * <p>After each faulted run: the dataset is exactly as before the operation or exactly as after a
 * clean run (rows, versions, indexes; never in between, never a torn version), an operation that
 * failed left it as before and says which path failed, and a caller retrying a failed operation
 * once gets exactly the clean result (no duplicated rows).
 */
@Tag("slow")
class FaultMatrixTest {
  /** Fast retries: the matrix makes thousands of storage calls fail. */
  static final int ATTEMPTS = 4;

  @TempDir static Path root;
  static BufferAllocator allocator;
  static Configuration conf;
  static Faults faults;
  static final Map<FaultedOperation, Fixture> FIXTURES = new EnumMap<>(FaultedOperation.class);
  static int runs;

  /**
   * The state an operation starts from, the state a clean run ends in, and the calls of the clean
   * run.
   */
  record Fixture(Path template, DatasetState before, DatasetState after, List<Faults.Call> calls) {
    List<Faults.Call> callsOf(Faults.Op op) {
      return calls.stream().filter(c -> c.op() == op).toList();
    }
  }

  /** One faulted run: where, what was thrown, which calls were faulted, and the state it left. */
  record Outcome(Path dir, RuntimeException error, List<Faults.Call> injected, DatasetState state) {
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
  static void setUp() {
    allocator = new RootAllocator();
    conf = FaultInjectingFileSystem.configure(new Configuration());
    conf.setInt(RetryPolicy.MAX_ATTEMPTS, ATTEMPTS);
    conf.setLong(RetryPolicy.INITIAL_BACKOFF_MS, 1);
    conf.setLong(RetryPolicy.MAX_BACKOFF_MS, 2);
    conf.setLong(RetryPolicy.BUDGET_MS, 10_000);
    faults = Faults.register().hangMillis(5);
  }

  @AfterAll
  static void tearDown() {
    faults.unregister();
    allocator.close();
  }

  // ---------------------------------------------------------------- the cells

  @ParameterizedTest(name = "{0}")
  @EnumSource(FaultedOperation.class)
  void permanentFailureOfEachCall(FaultedOperation op) {
    Fixture f = fixture(op);
    int failed = 0;
    for (int n = 1; n <= f.calls().size(); n++) {
      int nth = n;
      Outcome o = run(op, s -> s.failNth(nth, Faults.Kind.FAIL));
      assertWholeOrNothing(op, f, o);
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
    Fixture f = fixture(op);
    for (int n = 1; n <= f.calls().size(); n++) {
      int nth = n;
      Faults.Kind kind = n % 2 == 0 ? Faults.Kind.SLOW_DOWN : Faults.Kind.CONNECTION_RESET;
      Outcome o = run(op, s -> s.failNth(nth, kind));
      assertRetriedUnlessAnUploadBroke(op, f, o);
    }
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(FaultedOperation.class)
  void transientErrorsBeyondTheBudgetFailCleanly(FaultedOperation op) {
    Fixture f = fixture(op);
    int gaveUp = 0;
    for (int n = 1; n <= f.calls().size(); n++) {
      int nth = n;
      Outcome o = run(op, s -> s.failFromNth(nth, Faults.Kind.SLOW_DOWN));
      assertWholeOrNothing(op, f, o);
      if (o.error() != null) {
        assertThat(o.error().getMessage()).as(o.describe()).contains(faults.location(o.dir()));
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
    Fixture f = fixture(op);
    for (int n = 1; n <= f.calls().size(); n++) {
      int nth = n;
      Outcome o = run(op, s -> s.failNth(nth, Faults.Kind.HANG_AFTER));
      assertRetriedUnlessAnUploadBroke(op, f, o);
    }
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(FaultedOperation.class)
  void truncatedWriteOfEachFile(FaultedOperation op) {
    Fixture f = fixture(op);
    List<Faults.Call> creates = f.callsOf(Faults.Op.CREATE);
    for (int k = 1; k <= creates.size(); k++) {
      for (boolean closeThrows : new boolean[] {false, true}) {
        int kth = k;
        Outcome o = run(op, s -> s.truncateNthCreate(kth, 8, closeThrows));
        assertOnlyAdvisoryFilesMayFail(op, f, o);
      }
    }
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(FaultedOperation.class)
  void throwOnCloseOfEachFile(FaultedOperation op) {
    Fixture f = fixture(op);
    List<Faults.Call> closes = f.callsOf(Faults.Op.CLOSE);
    for (int k = 1; k <= closes.size(); k++) {
      int kth = k;
      Outcome o = run(op, s -> s.fail(Faults.Op.CLOSE, p -> true, kth, 1, Faults.Kind.FAIL_AFTER));
      assertOnlyAdvisoryFilesMayFail(op, f, o);
    }
  }

  // ---------------------------------------------------------------- expectations

  /**
   * The outcome every faulted run must have: success ⇒ the clean result; failure ⇒ the state before
   * (or either, when the commit's outcome is reported unknown); after a failure, one retry without
   * faults gives exactly the clean result.
   */
  static void assertWholeOrNothing(FaultedOperation op, Fixture f, Outcome o) {
    if (o.error() == null) {
      assertThat(o.state()).as(o.describe()).isEqualTo(f.after());
      return;
    }
    if (o.error() instanceof CommitOutcomeUnknownException) {
      assertThat(o.state()).as(o.describe()).isIn(f.before(), f.after());
    } else {
      assertThat(o.state()).as(o.describe()).isEqualTo(f.before());
    }
    if (o.state().equals(f.before())) {
      faults.reset();
      op.run(faults.location(o.dir()), conf, allocator);
      assertThat(faults.openFiles()).as("files left open by the retry").isEmpty();
      assertThat(DatasetState.read(o.dir(), allocator))
          .as("retry after " + o.describe())
          .isEqualTo(f.after());
    }
    delete(
        o.dir()); // checked: a thousand runs' copies would otherwise pile up until the class ends
  }

  static void delete(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path p : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * A transient fault, or a hang ended by a time-out, is absorbed by retries, except on closing a
   * written data, index, transaction or deletion file: its bytes are gone with the stream, so the
   * operation fails (and committed nothing). Files under {@code _versions/} are written from bytes
   * in memory and are retried.
   */
  static void assertRetriedUnlessAnUploadBroke(FaultedOperation op, Fixture f, Outcome o) {
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
    assertWholeOrNothing(op, f, o);
  }

  /** A truncated or failed file fails the operation, except the version hint, which is advisory. */
  static void assertOnlyAdvisoryFilesMayFail(FaultedOperation op, Fixture f, Outcome o) {
    assertThat(o.injected()).as(o.describe()).hasSize(1);
    Faults.Call faulted = o.injected().get(0);
    if (faulted.path().endsWith("/" + DatasetPaths.VERSIONS + "/" + DatasetPaths.HINT)) {
      assertThat(o.error()).as(o.describe()).isNull();
    } else {
      assertThat(o.error()).as(o.describe()).isNotNull();
      assertNamesFaultedPath(o);
    }
    assertWholeOrNothing(op, f, o);
  }

  /** The message names the path the fault hit (for a rename, the manifest it was to publish). */
  static void assertNamesFaultedPath(Outcome o) {
    String path = o.injected().get(0).reportedPath();
    assertThat(o.error().getMessage()).as(o.describe()).contains(path);
    assertThat(o.error()).as(o.describe()).isInstanceOf(StorageException.class);
  }

  // ---------------------------------------------------------------- running

  /** The starting state in a template directory, and a clean run of the operation on a copy. */
  static synchronized Fixture fixture(FaultedOperation op) {
    return FIXTURES.computeIfAbsent(
        op,
        o -> {
          Path template = root.resolve(o.name()).resolve("template");
          faults.reset();
          o.prepare(faults.location(template), conf, allocator);
          DatasetState before = DatasetState.read(template, allocator);
          Path clean = copy(template, root.resolve(o.name()).resolve("clean"));
          faults.reset();
          o.run(faults.location(clean), conf, allocator);
          List<Faults.Call> calls = faults.calls();
          assertThat(faults.openFiles()).as("files left open by a clean run of %s", o).isEmpty();
          faults.reset();
          DatasetState after = DatasetState.read(clean, allocator);
          assertThat(after).as("%s changes the dataset", o).isNotEqualTo(before);
          assertThat(after.version()).isEqualTo(before.version() + 1);
          System.out.println(
              "[fault matrix] "
                  + o
                  + ": "
                  + calls.size()
                  + " storage calls in a clean run: "
                  + calls.stream()
                      .collect(
                          java.util.stream.Collectors.groupingBy(
                              Faults.Call::op, java.util.stream.Collectors.counting())));
          return new Fixture(template, before, after, calls);
        });
  }

  static Outcome run(FaultedOperation op, Consumer<Faults> script) {
    Fixture f = fixture(op);
    Path dir = copy(f.template(), root.resolve(op.name()).resolve("run-" + (++runs)));
    faults.reset();
    script.accept(faults);
    RuntimeException error = null;
    try {
      op.run(faults.location(dir), conf, allocator);
    } catch (RuntimeException e) {
      error = e;
    }
    List<Faults.Call> injected = faults.injected();
    List<String> open = faults.openFiles();
    faults.reset();
    Outcome o = new Outcome(dir, error, injected, DatasetState.read(dir, allocator));
    assertThat(open).as("files left open by a run " + o.describe()).isEmpty();
    return o;
  }

  static Path copy(Path from, Path to) {
    try {
      Files.createDirectories(to);
      if (!Files.exists(from)) {
        return to;
      }
      try (Stream<Path> files = Files.walk(from)) {
        List<Path> all = new ArrayList<>(files.toList());
        for (Path p : all) {
          Path target = to.resolve(from.relativize(p).toString());
          if (Files.isDirectory(p)) {
            Files.createDirectories(target);
          } else {
            Files.copy(p, target, StandardCopyOption.COPY_ATTRIBUTES);
          }
        }
      }
      return to;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
