package dev.lancelot.spark;

import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;

/**
 * An S3 server for tests: Adobe S3Mock ({@code com.adobe.testing:s3mock}, its executable jar, which
 * Maven copies to {@code target/s3mock/s3mock.jar}) in a JVM of its own, so that its Spring Boot
 * classpath never meets Spark's. Listens on a free loopback port, stores objects under {@code
 * target/}, starts with one bucket; {@link #close()} stops the process.
 *
 * <p>S3Mock answers a {@code PUT} with {@code If-None-Match: *} on an existing key with 412 and
 * keeps the object, but its check is not atomic: of several simultaneous conditional PUTs to one
 * new key, more than one may succeed. {@link #relayed()} puts an {@link S3Relay} in front of it
 * that forwards PUTs under {@code _versions/} one at a time, which makes the check atomic, as it is
 * on AWS S3; the concurrency tests go through the relay.
 */
final class S3MockServer implements AutoCloseable {
  static final String BUCKET = "lancelot";
  private static final Duration START_TIMEOUT = Duration.ofSeconds(90);

  private final Process process;
  private final int port;
  private final Path log;
  private S3Relay relay;

  private S3MockServer(Process process, int port, Path log) {
    this.process = process;
    this.port = port;
    this.log = log;
  }

  /** Starts S3Mock and waits until it answers. */
  static S3MockServer start() throws IOException, InterruptedException {
    String jar = System.getProperty("lancelot.s3mockJar", "target/s3mock/s3mock.jar");
    if (!Files.isRegularFile(Path.of(jar))) {
      throw new IllegalStateException(
          "S3Mock's jar is missing: " + jar + " (mvn generate-test-resources copies it)");
    }
    // S3Mock creates its root itself (its parent must exist) and deletes it when it stops.
    String name = "s3mock-" + UUID.randomUUID();
    Path root = Path.of("target", name).toAbsolutePath();
    Files.createDirectories(root.getParent());
    int port = freePort();
    int httpsPort = freePort();
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> cmd =
        new ArrayList<>(
            List.of(
                java,
                "-Xmx256m",
                "-XX:TieredStopAtLevel=1",
                "-jar",
                jar,
                "--com.adobe.testing.s3mock.httpPort=" + port,
                "--server.port=" + httpsPort,
                "--server.address=127.0.0.1",
                "--com.adobe.testing.s3mock.store.root=" + root,
                "--com.adobe.testing.s3mock.store.initial-buckets=" + BUCKET,
                "--spring.main.banner-mode=off"));
    Path log = root.resolveSibling(name + ".log");
    Process p =
        new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    // Also stopped if the test JVM exits without running the class's teardown.
    Runtime.getRuntime().addShutdownHook(new Thread(p::destroyForcibly, "s3mock-stop"));
    S3MockServer server = new S3MockServer(p, port, log);
    server.awaitUp();
    return server;
  }

  private void awaitUp() throws InterruptedException, IOException {
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException(
            "S3Mock exited with " + process.exitValue() + ":\n" + Files.readString(log));
      }
      try {
        HttpURLConnection c =
            (HttpURLConnection) URI.create(endpoint() + "/" + BUCKET).toURL().openConnection();
        c.setRequestMethod("HEAD");
        c.setConnectTimeout(500);
        c.setReadTimeout(2000);
        int code = c.getResponseCode();
        c.disconnect();
        if (code == 200) {
          return;
        }
      } catch (IOException notYet) {
        // still starting
      }
      Thread.sleep(200);
    }
    close();
    throw new IllegalStateException(
        "S3Mock did not answer within " + START_TIMEOUT + ":\n" + Files.readString(log));
  }

  /** Creates another bucket (S3Mock accepts any credentials, so an unsigned request will do). */
  void createBucket(String name) throws IOException {
    HttpURLConnection c =
        (HttpURLConnection) URI.create(endpoint() + "/" + name).toURL().openConnection();
    c.setRequestMethod("PUT");
    c.setConnectTimeout(2000);
    c.setReadTimeout(10_000);
    int code = c.getResponseCode();
    c.disconnect();
    if (code != 200) {
      throw new IOException("S3Mock answered " + code + " to creating bucket " + name);
    }
  }

  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  /** S3Mock's own endpoint. */
  String endpoint() {
    return "http://127.0.0.1:" + port;
  }

  /**
   * The endpoint of a relay that serializes PUTs under {@code _versions/} (started on first use).
   */
  synchronized String relayed() throws IOException {
    if (relay == null) {
      relay = S3Relay.start("127.0.0.1", port);
    }
    return "http://127.0.0.1:" + relay.port();
  }

  /**
   * PUTs the relay forwarded under {@code _versions/}, and how many of them S3Mock refused with
   * 412.
   */
  synchronized S3Relay relay() {
    return relay;
  }

  /**
   * The static credentials (S3Mock accepts any). Distinctive strings, so that a test can search
   * logs, messages and plans for them.
   */
  static final String ACCESS_KEY = "AKIALANCELOTTESTKEY7";

  static final String SECRET_KEY = "lancelot-secret-9f4c2e7a1b6d";

  /** S3A settings for {@code endpoint}: path-style access, static credentials, no SSL. */
  static void configure(Configuration conf, String endpoint) {
    for (String[] kv : s3aSettings(endpoint)) {
      conf.set(kv[0], kv[1]);
    }
  }

  /** The same settings as {@code spark.hadoop.*} pairs. */
  static String[][] s3aSettings(String endpoint) {
    return new String[][] {
      {"fs.s3a.endpoint", endpoint},
      {"fs.s3a.endpoint.region", "us-east-1"},
      {"fs.s3a.path.style.access", "true"},
      {"fs.s3a.connection.ssl.enabled", "false"},
      {"fs.s3a.access.key", ACCESS_KEY},
      {"fs.s3a.secret.key", SECRET_KEY},
      {"fs.s3a.aws.credentials.provider", "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider"},
      {"fs.s3a.create.conditional.enabled", "true"},
      {"fs.s3a.attempts.maximum", "2"},
      {"fs.s3a.retry.limit", "2"},
      {"fs.s3a.change.detection.mode", "none"},
    };
  }

  @Override
  public void close() {
    if (relay != null) {
      relay.close();
    }
    process.destroy();
    try {
      if (!process.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }
}
