package dev.lancelot.engine.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.io.faults.FaultInjectingFileSystem;
import dev.lancelot.engine.io.faults.Faults;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The retry policy of {@link RetryingFileIO} against {@link FaultInjectingFileSystem}, with a fake
 * clock.
 */
class RetryingFileIOTest {
  static final Configuration CONF = FaultInjectingFileSystem.configure(new Configuration());

  @TempDir Path dir;
  Faults faults;

  /** Delays asked for; sleeping advances the fake clock instead of the real one. */
  final List<Long> sleeps = new ArrayList<>();

  long now;

  @BeforeEach
  void setUp() {
    faults = Faults.register().hangMillis(5);
  }

  @AfterEach
  void tearDown() {
    faults.unregister();
  }

  RetryingFileIO io(RetryPolicy policy) {
    return new RetryingFileIO(
        new HadoopFileIO(CONF),
        policy,
        millis -> {
          sleeps.add(millis);
          now += millis;
        },
        () -> now);
  }

  RetryingFileIO io() {
    return io(new RetryPolicy(4, 100, 1000, 60_000));
  }

  String location(String name) {
    return faults.location(dir.resolve(name));
  }

  long injected(Faults.Op op) {
    return faults.injected().stream().filter(c -> c.op() == op).count();
  }

  @Test
  void backoffGrowsExponentiallyUpToItsCapWithJitter() {
    RetryPolicy p = new RetryPolicy(10, 100, 1000, 60_000);
    assertThat(List.of(1, 2, 3, 4, 5, 6))
        .map(p::backoffCeilingMillis)
        .containsExactly(100L, 200L, 400L, 800L, 1000L, 1000L);
    java.util.Set<Long> seen = new java.util.HashSet<>();
    for (int i = 0; i < 200; i++) {
      long d = p.backoffMillis(3);
      assertThat(d).isBetween(200L, 400L);
      seen.add(d);
    }
    assertThat(seen).as("jittered delays").hasSizeGreaterThan(10);
  }

  @Test
  void policyComesFromTheHadoopConfigurationAndRefusesNonsense() {
    Configuration conf = new Configuration(false);
    assertThat(RetryPolicy.from(conf)).isEqualTo(RetryPolicy.DEFAULT);
    conf.setInt(RetryPolicy.MAX_ATTEMPTS, 7);
    conf.setLong(RetryPolicy.INITIAL_BACKOFF_MS, 10);
    conf.setLong(RetryPolicy.MAX_BACKOFF_MS, 20);
    conf.setLong(RetryPolicy.BUDGET_MS, 30);
    assertThat(RetryPolicy.from(conf)).isEqualTo(new RetryPolicy(7, 10, 20, 30));
    conf.setInt(RetryPolicy.MAX_ATTEMPTS, 0);
    assertThatThrownBy(() -> RetryPolicy.from(conf))
        .isInstanceOf(dev.lancelot.engine.InvalidInputException.class)
        .hasMessageContaining(RetryPolicy.MAX_ATTEMPTS);
  }

  @Test
  void transientErrorsAreRetriedWithGrowingDelaysUntilTheCallSucceeds() throws IOException {
    Files.writeString(dir.resolve("a"), "x");
    faults.fail(Faults.Op.STATUS, p -> true, 1, 2, Faults.Kind.SLOW_DOWN);
    assertThat(io().exists(location("a"))).isTrue();
    assertThat(injected(Faults.Op.STATUS)).isEqualTo(2);
    assertThat(sleeps).hasSize(2);
    assertThat(sleeps.get(0)).isBetween(50L, 100L);
    assertThat(sleeps.get(1)).isBetween(100L, 200L);
  }

  @Test
  void attemptsAreBounded() {
    faults.fail(Faults.Op.LIST, p -> true, 1, Integer.MAX_VALUE, Faults.Kind.CONNECTION_RESET);
    assertThatThrownBy(() -> io().list(location("d")))
        .isInstanceOf(StorageException.class)
        .hasMessageContaining("Cannot list " + location("d"))
        .hasMessageContaining("Connection reset")
        .hasMessageContaining("gave up after 4 attempts");
    assertThat(injected(Faults.Op.LIST)).isEqualTo(4);
    assertThat(sleeps).hasSize(3);
  }

  @Test
  void theTimeBudgetIsBounded() {
    faults.fail(Faults.Op.STATUS, p -> true, 1, Integer.MAX_VALUE, Faults.Kind.SLOW_DOWN);
    RetryingFileIO io = io(new RetryPolicy(100, 1000, 1000, 2_600));
    assertThatThrownBy(() -> io.exists(location("a")))
        .isInstanceOf(StorageException.class)
        .hasMessageStartingWith(
            "Cannot check whether " + location("a") + " exists: injected STATUS")
        .hasMessageContaining("gave up after " + injected(Faults.Op.STATUS) + " attempts")
        .hasMessageContaining(RetryPolicy.BUDGET_MS);
    // delays of 500 to 1000 ms: at most 5 fit in the budget, at least 2
    assertThat(sleeps.stream().mapToLong(Long::longValue).sum()).isLessThanOrEqualTo(2_600);
    assertThat(sleeps.size()).isBetween(2, 5);
    assertThat(injected(Faults.Op.STATUS)).isEqualTo(sleeps.size() + 1);
  }

  @Test
  void permanentErrorsAreNotRetriedAndNameThePath() {
    faults.fail(Faults.Op.DELETE, p -> true, 1, 1, Faults.Kind.FAIL);
    assertThatThrownBy(() -> io().delete(location("a")))
        .isInstanceOf(StorageException.class)
        .hasMessageStartingWith("Cannot delete " + location("a"))
        .hasRootCauseInstanceOf(AccessDeniedException.class);
    assertThat(injected(Faults.Op.DELETE)).isEqualTo(1);
    assertThat(sleeps).isEmpty();
  }

  @Test
  void aReadIsRetriedOnAFreshStream() throws IOException {
    Files.writeString(dir.resolve("a"), "0123456789");
    faults.fail(Faults.Op.READ, p -> true, 1, 1, Faults.Kind.CONNECTION_RESET);
    try (InputFile in = io().newInputFile(location("a"))) {
      assertThat(text(in.read(2, 5))).isEqualTo("23456");
    }
    assertThat(faults.calls().stream().filter(c -> c.op() == Faults.Op.OPEN).count()).isEqualTo(2);
  }

  @Test
  void aCreateThatTimedOutAfterCreatingTheFileIsMadeAgain() throws IOException {
    faults.fail(Faults.Op.CREATE, p -> true, 1, 1, Faults.Kind.HANG_AFTER);
    try (PositionOutputStream out = io().create(location("a"))) {
      out.write("hello".getBytes(StandardCharsets.UTF_8));
    }
    assertThat(Files.readString(dir.resolve("a"))).isEqualTo("hello");
    assertThat(injected(Faults.Op.CREATE)).isEqualTo(1);
  }

  @Test
  void aFileTheStoreTruncatedIsRefusedOnClose() throws IOException {
    faults.truncateNthCreate(1, 3, false);
    PositionOutputStream out = io().create(location("a"));
    out.write("hello world".getBytes(StandardCharsets.UTF_8));
    assertThatThrownBy(out::close)
        .isInstanceOf(StorageException.class)
        .hasMessage(
            "Cannot write "
                + location("a")
                + ": 11 bytes were written but the store holds 3 (the write was "
                + "truncated). Nothing refers to the file yet; retry the operation.");
  }

  @Test
  void aFailedCloseNamesTheFile() throws IOException {
    faults.fail(Faults.Op.CLOSE, p -> true, 1, 1, Faults.Kind.FAIL_AFTER);
    PositionOutputStream out = io().create(location("a"));
    out.write(1);
    assertThatThrownBy(out::close)
        .isInstanceOf(IOException.class)
        .hasMessageStartingWith("Cannot finish writing " + location("a"));
  }

  @Test
  void aPublishThatActedBeforeTimingOutIsReadBackAsDone() throws IOException {
    faults.fail(Faults.Op.RENAME, p -> true, 1, 1, Faults.Kind.HANG_AFTER);
    assertThat(io().putIfAbsent(location("v/1.manifest"), bytes("mine"))).isTrue();
    assertThat(Files.readString(dir.resolve("v/1.manifest"))).isEqualTo("mine");
    assertThat(faults.calls().stream().filter(c -> c.op() == Faults.Op.RENAME).count())
        .as("not published twice")
        .isEqualTo(1);
  }

  @Test
  void aPublishThatDidNotHappenIsMadeAgain() throws IOException {
    faults.fail(Faults.Op.RENAME, p -> true, 1, 1, Faults.Kind.SLOW_DOWN);
    assertThat(io().putIfAbsent(location("v/1.manifest"), bytes("mine"))).isTrue();
    assertThat(Files.readString(dir.resolve("v/1.manifest"))).isEqualTo("mine");
    assertThat(faults.calls().stream().filter(c -> c.op() == Faults.Op.RENAME).count())
        .isEqualTo(2);
  }

  @Test
  void aPublishThatFailedWhileAnotherWriterPublishedIsALostRace() throws IOException {
    Files.createDirectories(dir.resolve("v"));
    Files.writeString(dir.resolve("v/1.manifest"), "theirs");
    faults.fail(Faults.Op.CREATE, p -> true, 1, 1, Faults.Kind.CONNECTION_RESET);
    assertThat(io().putIfAbsent(location("v/1.manifest"), bytes("mine"))).isFalse();
    assertThat(Files.readString(dir.resolve("v/1.manifest"))).isEqualTo("theirs");
  }

  @Test
  void aPublishWhoseOutcomeCannotBeReadBackIsReportedUnknown() {
    faults.fail(Faults.Op.RENAME, p -> true, 1, 1, Faults.Kind.SLOW_DOWN);
    faults.fail(
        Faults.Op.STATUS,
        p -> p.endsWith("/v/1.manifest"),
        1,
        Integer.MAX_VALUE,
        Faults.Kind.SLOW_DOWN);
    assertThatThrownBy(() -> io().putIfAbsent(location("v/1.manifest"), bytes("mine")))
        .isInstanceOf(CommitOutcomeUnknownException.class)
        .hasMessageStartingWith(
            "Cannot tell whether " + location("v/1.manifest") + " was published");
  }

  @Test
  void aPublishThatKeepsFailingBeforeActingGivesUpSayingSo() {
    faults.fail(Faults.Op.RENAME, p -> true, 1, Integer.MAX_VALUE, Faults.Kind.SLOW_DOWN);
    assertThatThrownBy(() -> io().putIfAbsent(location("v/1.manifest"), bytes("mine")))
        .isInstanceOf(StorageException.class)
        .isNotInstanceOf(CommitOutcomeUnknownException.class)
        .hasMessageStartingWith("Cannot write " + location("v/1.manifest") + ": ")
        .hasMessageContaining("; it was read back and is not there, so it was not published")
        .hasMessageContaining("gave up after 4 attempts");
    assertThat(Files.exists(dir.resolve("v/1.manifest"))).isFalse();
  }

  /**
   * A store client that sent the put again after losing the answer to the first finds our own
   * bytes: done.
   */
  @Test
  void aPublishRefusedBecauseAnEarlierAttemptOfItTookTheNameIsDone() throws IOException {
    Files.createDirectories(dir.resolve("v"));
    Files.writeString(dir.resolve("v/1.manifest"), "mine");
    assertThat(io().putIfAbsent(location("v/1.manifest"), bytes("mine"))).isTrue();
    assertThat(io().putIfAbsent(location("v/1.manifest"), bytes("mind")))
        .isFalse(); // same length, other bytes
    assertThat(io().putIfAbsent(location("v/1.manifest"), bytes("theirs"))).isFalse();
    assertThat(Files.readString(dir.resolve("v/1.manifest"))).isEqualTo("mine");
  }

  /** An error nobody classified, after the store acted: read back, and found to be done. */
  @Test
  void anUnknownErrorAfterThePublishActedIsReadBackAsDone() throws IOException {
    faults.fail(Faults.Op.RENAME, p -> true, 1, 1, Faults.Kind.FAIL_AFTER);
    assertThat(io().putIfAbsent(location("v/1.manifest"), bytes("mine"))).isTrue();
    assertThat(Files.readString(dir.resolve("v/1.manifest"))).isEqualTo("mine");
    assertThat(faults.calls().stream().filter(c -> c.op() == Faults.Op.RENAME).count())
        .isEqualTo(1);
  }

  /**
   * An error nobody classified, before the store acted: read back, not there, so the error is
   * reported as is.
   */
  @Test
  void anUnknownErrorBeforeThePublishActedIsReportedAsIs() {
    faults.fail(Faults.Op.CLOSE, p -> true, 1, 1, Faults.Kind.FAIL_AFTER);
    assertThatThrownBy(() -> io().putIfAbsent(location("v/1.manifest"), bytes("mine")))
        .isInstanceOf(StorageException.class)
        .isNotInstanceOf(CommitOutcomeUnknownException.class)
        .hasMessageStartingWith(
            "Cannot write " + location("v/1.manifest") + ": injected CLOSE failure");
    assertThat(Files.exists(dir.resolve("v/1.manifest"))).isFalse();
  }

  /** Refused access: the store stored nothing, so nothing is read back. */
  @Test
  void aRefusedPublishIsNotReadBack() {
    faults.fail(Faults.Op.RENAME, p -> true, 1, 1, Faults.Kind.FAIL);
    assertThatThrownBy(() -> io().putIfAbsent(location("v/1.manifest"), bytes("mine")))
        .isInstanceOf(StorageException.class)
        .hasMessageContaining("Access Denied");
    assertThat(
            faults.calls().stream()
                .filter(c -> c.op() == Faults.Op.STATUS && c.path().endsWith("/v/1.manifest")))
        .as("no read-back")
        .isEmpty();
  }

  /**
   * Time-outs until the budget is spent, the manifest never seen: a request may still be on its way
   * and store it later, so "not published" would be a guess. Unknown.
   */
  @Test
  void aPublishThatKeepsTimingOutGivesUpAsUnknown() {
    faults.fail(Faults.Op.RENAME, p -> true, 1, Integer.MAX_VALUE, Faults.Kind.HANG);
    assertThatThrownBy(() -> io().putIfAbsent(location("v/1.manifest"), bytes("mine")))
        .isInstanceOf(CommitOutcomeUnknownException.class)
        .hasMessageStartingWith(
            "Cannot tell whether "
                + location("v/1.manifest")
                + " was published: publishing it "
                + "failed 4 time(s)")
        .hasMessageContaining("after which the store may still store it")
        .hasMessageContaining("Open the dataset to see its latest version before retrying");
    assertThat(Files.exists(dir.resolve("v/1.manifest"))).isFalse();
  }

  @Test
  void aHangReleasedBeforeItsTimeOutIsNoFault() throws IOException {
    Files.writeString(dir.resolve("a"), "x");
    faults.hangMillis(60_000).fail(Faults.Op.STATUS, p -> true, 1, 1, Faults.Kind.HANG);
    faults.release();
    assertThat(io().exists(location("a"))).isTrue();
    assertThat(sleeps).isEmpty();
  }

  static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static String text(ByteBuffer b) {
    byte[] out = new byte[b.remaining()];
    b.get(out);
    return new String(out, StandardCharsets.UTF_8);
  }
}
