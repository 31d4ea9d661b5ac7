package dev.lancelot.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.OpenOptions;
import dev.lancelot.engine.VersionInfo;
import dev.lancelot.engine.WriteMode;
import dev.lancelot.engine.WriteOptions;
import dev.lancelot.engine.io.CommitOutcomeUnknownException;
import dev.lancelot.engine.io.RetryPolicy;
import dev.lancelot.engine.testing.ArrowStreams;
import dev.lancelot.engine.testing.StandardData;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.LongStream;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The fault matrix on S3: S3Mock (behind {@link S3Relay}) for this class, faults between the engine
 * and S3A; the engine publishes a manifest with one conditional PUT (the close of its stream), so a
 * fault on that close is a fault on the commit itself. A manifest is sent as one request whose
 * length S3 checks, so it is not truncated (the other files are).
 *
 * <p>Also faults below S3A, in the relay: a manifest PUT that S3 applied but whose answer was lost
 * (S3A sends it again, and S3 refuses the second with 412), and manifest PUTs that reach S3 only
 * after the writer gave up on them.
 */
class FaultMatrixOnS3Test extends StoreFaultMatrix {
  /**
   * The bucket reached through the relay (the matrix's bucket is reached directly: it is faster).
   */
  static final String RELAYED_BUCKET = "lancelot-relayed";

  private S3MockServer s3;

  @Override
  Configuration startStore() throws Exception {
    s3 = S3MockServer.start();
    s3.createBucket(RELAYED_BUCKET);
    Configuration conf = new Configuration();
    S3MockServer.configure(conf, s3.endpoint());
    conf.set("fs.s3a.bucket." + RELAYED_BUCKET + ".endpoint", s3.relayed());
    conf.set("fs.s3a.fast.upload.buffer", "array");
    conf.set("fs.s3a.retry.interval", "10ms");
    conf.set("fs.s3a.retry.throttle.interval", "10ms");
    return conf;
  }

  @Override
  void stopStore() {
    // Hadoop caches the real S3A clients behind the fault file system by bucket, not by endpoint:
    // close them, or a later test class reaching a bucket of the same name on its own server gets
    // a client of this (stopped) one.
    for (String bucket : List.of(S3MockServer.BUCKET, RELAYED_BUCKET)) {
      try {
        FileSystem.get(URI.create("s3a://" + bucket + "/"), plain).close();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    if (s3 != null) {
      s3.close();
      s3 = null;
    }
  }

  @Override
  String scheme() {
    return "s3a";
  }

  @Override
  String fileSystemClass() {
    return "org.apache.hadoop.fs.s3a.S3AFileSystem";
  }

  @Override
  String newRoot() {
    return "s3a://" + S3MockServer.BUCKET + "/" + unique("faults-");
  }

  @Override
  boolean truncatable(String path) {
    return !fileKind(path).equals("manifest");
  }

  @AfterEach
  void relayEverything() {
    s3.relay().noFaults();
  }

  // ---------------------------------------------------------------- below S3A

  static boolean isManifestPut(String method, String path) {
    return method.equals("PUT")
        && path.contains("/_versions/")
        && path.contains(".manifest")
        && !path.contains("/_versions/.");
  }

  /**
   * S3 stores the manifest but the answer is lost (the connection breaks): S3A sends the PUT again,
   * S3 refuses it (412, the key exists), and the engine, reading the manifest back, finds its own
   * bytes: one new version, each row once, not a second version with the same rows.
   */
  @Test
  void aManifestPutAppliedButUnansweredIsOneVersion() {
    String location = newRootDataset("answer-lost");
    write(location, plain, 0, WriteMode.CREATE);
    int refused = s3.relay().versionPutsRefused.get();
    AtomicInteger lost = new AtomicInteger();
    s3.relay()
        .fault(
            (method, path) ->
                isManifestPut(method, path) && lost.getAndIncrement() == 0
                    ? S3Relay.Action.APPLY_THEN_RESET
                    : S3Relay.Action.PASS);
    write(location, plain, 100, WriteMode.APPEND);
    s3.relay().noFaults();
    assertThat(lost.get()).as("the PUT was sent again after its answer was lost").isGreaterThan(1);
    assertThat(s3.relay().versionPutsRefused.get())
        .as("S3 refused the second PUT")
        .isGreaterThan(refused);
    assertRows(location, 2, 0, 100);
  }

  /**
   * Every manifest PUT of an append reaches S3 only after the writer gave up (the relay keeps the
   * requests back and breaks the connections): the writer cannot know whether one will still land,
   * so it says so ({@link CommitOutcomeUnknownException}), never "not published". When the first
   * request does land, the version is there once, and the others are refused.
   */
  @Test
  void manifestPutsLandingAfterTheWriterGaveUpAreReportedUnknownAndPublishOnce()
      throws IOException {
    String location = newRootDataset("late");
    write(location, plain, 0, WriteMode.CREATE);
    Configuration impatient = new Configuration(plain);
    impatient.setInt(RetryPolicy.MAX_ATTEMPTS, 3);
    impatient.setLong(RetryPolicy.INITIAL_BACKOFF_MS, 1);
    impatient.setLong(RetryPolicy.MAX_BACKOFF_MS, 2);
    s3.relay()
        .fault(
            (method, path) ->
                isManifestPut(method, path) ? S3Relay.Action.HOLD_THEN_RESET : S3Relay.Action.PASS);
    Throwable error = catchThrowable(() -> write(location, impatient, 100, WriteMode.APPEND));
    s3.relay().noFaults();
    assertThat(error)
        .isInstanceOf(CommitOutcomeUnknownException.class)
        .hasMessageStartingWith("Cannot tell whether " + location + "/_versions/")
        .hasMessageContaining("the store may still store it")
        .hasMessageContaining("Open the dataset to see its latest version before retrying");
    try (Dataset ds = Dataset.open(location, OpenOptions.defaults().withHadoopConf(plain))) {
      assertThat(ds.version()).as("nothing landed yet").isEqualTo(1);
    }
    List<Integer> codes = s3.relay().releaseHeld();
    assertThat(codes).as("the held PUTs, landing late").hasSizeGreaterThan(1).startsWith(200);
    assertThat(codes.subList(1, codes.size())).as("refused: the key exists").containsOnly(412);
    assertRows(location, 2, 0, 100);
  }

  private String newRootDataset(String name) {
    return "s3a://" + RELAYED_BUCKET + "/" + unique("relayed-") + "/" + name;
  }

  private void write(String location, Configuration conf, long firstId, WriteMode mode) {
    try (VectorSchemaRoot batch = StandardData.generate(allocator, firstId, 20, 4, 3);
        ArrowReader reader = ArrowStreams.readerOf(allocator, List.of(batch))) {
      Dataset.write(
              location,
              reader,
              WriteOptions.of(mode),
              OpenOptions.defaults().withHadoopConf(conf).withAllocator(allocator))
          .close();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /**
   * Versions 1..{@code versions}, and the 20 rows written from each of {@code firstIds}, once each.
   */
  private void assertRows(String location, long versions, long... firstIds) {
    List<Long> expected = new ArrayList<>();
    for (long first : firstIds) {
      LongStream.range(first, first + 20).forEach(expected::add);
    }
    try (Dataset ds = Dataset.open(location, OpenOptions.defaults().withHadoopConf(plain))) {
      assertThat(ds.versions())
          .extracting(VersionInfo::version)
          .containsExactlyElementsOf(LongStream.rangeClosed(1, versions).boxed().toList());
      assertThat(ConcurrentAppends.ids(ds)).containsExactlyInAnyOrderElementsOf(expected);
    }
  }
}
