package dev.lancelot.spark.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.spark.launcher.JavaModuleOptions;

/**
 * A Spark standalone cluster on this machine: a master and two workers, each its own JVM started
 * from {@code SPARK_HOME/jars} (Spark's runtime classpath only), listening on loopback only.
 * Workers launch executors and cluster-mode drivers themselves, from the same SPARK_HOME.
 *
 * <p>The two workers are named {@code 127.0.0.1} and {@code localhost} (both resolve to 127.0.0.1):
 * Spark never runs a speculative copy of a task on a host that already runs an attempt of it, so
 * the workers must look like two hosts.
 *
 * <p>Every process started is destroyed (with its descendants) by {@link #close()}, and by a
 * shutdown hook should the test JVM end first. Logs go to {@code logDir}; {@link #logTails()}
 * collects the end of each, including executor and driver logs from the workers' directories.
 */
final class StandaloneCluster implements AutoCloseable {
  static final Duration START_TIMEOUT = Duration.ofSeconds(120);
  private static final String[] WORKER_HOSTS = {"127.0.0.1", "localhost"};
  private static final String WORKER_MEMORY = "2g";
  private static final String DAEMON_HEAP = "-Xmx256m";

  /**
   * For the lane's 2-core machines, not needed by Spark or lancelot: one GC thread per JVM, and
   * (for the master, workers and spark-submit clients, which do little) the quick JIT only.
   */
  static final List<String> SMALL_JVM = List.of("-XX:+UseSerialGC");

  private static final List<String> IDLE_JVM =
      List.of("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");

  private final Path sparkHome;
  private final Path dir;
  private final int masterPort;
  private final Map<String, Process> daemons = new LinkedHashMap<>();
  private final List<Process> submits = new ArrayList<>();
  private final Thread shutdownHook = new Thread(this::destroyAll, "standalone-cluster-cleanup");

  private StandaloneCluster(Path sparkHome, Path dir, int masterPort) {
    this.sparkHome = sparkHome;
    this.dir = dir;
    this.masterPort = masterPort;
  }

  /** Starts a master and two workers and waits until both workers have registered. */
  static StandaloneCluster start(Path sparkHome, Path dir) throws IOException {
    Path jars = sparkHome.resolve("jars");
    String sparkCore =
        "spark-core_"
            + System.getProperty("lancelot.scalaBinaryVersion")
            + "-"
            + System.getProperty("lancelot.sparkVersion")
            + ".jar";
    if (!Files.isDirectory(jars) || !Files.exists(jars.resolve(sparkCore))) {
      throw new IllegalStateException(
          "Cannot start the standalone cluster: "
              + jars
              + " does not hold Spark's jars."
              + " The build lays it out (maven-dependency-plugin, execution spark-home of spark-tests); run the tests"
              + " with mvn verify.");
    }
    InetAddress localhost = InetAddress.getByName("localhost");
    if (!localhost.getHostAddress().equals("127.0.0.1")) {
      throw new IllegalStateException(
          "Cannot start the standalone cluster: localhost resolves to "
              + localhost
              + ", not 127.0.0.1; the second worker is named localhost and must stay on loopback.");
    }
    Files.createDirectories(dir.resolve("tmp"));
    StandaloneCluster cluster = new StandaloneCluster(sparkHome, dir, freePort());
    Runtime.getRuntime().addShutdownHook(cluster.shutdownHook);
    try {
      cluster.startDaemon(
          "master",
          "org.apache.spark.deploy.master.Master",
          "127.0.0.1",
          List.of(
              "--host",
              "127.0.0.1",
              "--port",
              String.valueOf(cluster.masterPort),
              "--webui-port",
              "0"));
      cluster.awaitLog("master", "I have been elected leader", START_TIMEOUT);
      for (int i = 0; i < WORKER_HOSTS.length; i++) {
        String name = "worker-" + (i + 1);
        Path work = Files.createDirectories(dir.resolve(name + "-work"));
        cluster.startDaemon(
            name,
            "org.apache.spark.deploy.worker.Worker",
            WORKER_HOSTS[i],
            List.of(
                "--host",
                WORKER_HOSTS[i],
                "--port",
                "0",
                "--webui-port",
                "0",
                "--cores",
                "2",
                "--memory",
                WORKER_MEMORY,
                "--work-dir",
                work.toString(),
                cluster.masterUrl()));
      }
      for (int i = 0; i < WORKER_HOSTS.length; i++) {
        cluster.awaitLog("worker-" + (i + 1), "Successfully registered with master", START_TIMEOUT);
      }
      return cluster;
    } catch (RuntimeException | IOException e) {
      String logs = cluster.logTails();
      cluster.close();
      throw new IllegalStateException(
          "Cannot start the standalone cluster: " + e.getMessage() + "\n" + logs, e);
    }
  }

  String masterUrl() {
    return "spark://127.0.0.1:" + masterPort;
  }

  Path dir() {
    return dir;
  }

  /**
   * Spark's own JVM options for Java 17 (the launcher scripts add them to every JVM they start).
   */
  static List<String> sparkModuleOptions() {
    return List.of(JavaModuleOptions.defaultModuleOptionArray());
  }

  private void startDaemon(String name, String mainClass, String host, List<String> args)
      throws IOException {
    List<String> extra = new ArrayList<>(IDLE_JVM);
    extra.add("-Dspark.master.rest.enabled=false");
    List<String> cmd = javaCommand(DAEMON_HEAP, extra);
    cmd.add(mainClass);
    cmd.addAll(args);
    daemons.put(name, launch(cmd, host, dir.resolve(name + ".log")));
  }

  /** {@code java <Spark's module options> <heap> <extra> -cp SPARK_HOME/conf:SPARK_HOME/jars/*}. */
  List<String> javaCommand(String heap, List<String> extra) {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(sparkModuleOptions());
    cmd.add(heap);
    cmd.add("-Djava.net.preferIPv4Stack=true");
    cmd.add("-Djava.io.tmpdir=" + dir.resolve("tmp"));
    cmd.addAll(extra);
    cmd.add("-cp");
    cmd.add(sparkHome.resolve("conf") + "/:" + sparkHome.resolve("jars") + "/*");
    return cmd;
  }

  /**
   * Starts a process in the cluster's environment: SPARK_HOME, and the host every Spark process
   * started from it (drivers and executors inherit a worker's environment) binds to and advertises.
   */
  Process launch(List<String> cmd, String host, Path log) throws IOException {
    ProcessBuilder pb =
        new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
    Map<String, String> env = pb.environment();
    env.keySet()
        .removeIf(
            k ->
                k.startsWith("SPARK_") || k.equals("HADOOP_CONF_DIR") || k.equals("YARN_CONF_DIR"));
    env.put("SPARK_HOME", sparkHome.toString());
    env.put("SPARK_SCALA_VERSION", System.getProperty("lancelot.scalaBinaryVersion"));
    env.put("SPARK_LOCAL_IP", "127.0.0.1");
    env.put("SPARK_LOCAL_HOSTNAME", host);
    env.put("SPARK_LOCAL_DIRS", dir.resolve("tmp").toString());
    return pb.start();
  }

  /**
   * Runs spark-submit (as its own JVM, like bin/spark-submit) and waits for it to exit; {@code
   * driverInside} when the driver runs in that JVM (client deploy mode).
   */
  SubmitResult submit(String name, boolean driverInside, List<String> submitArgs, Duration timeout)
      throws IOException {
    List<String> cmd =
        driverInside ? javaCommand("-Xmx640m", SMALL_JVM) : javaCommand(DAEMON_HEAP, IDLE_JVM);
    cmd.add("org.apache.spark.deploy.SparkSubmit");
    cmd.addAll(submitArgs);
    Path log = dir.resolve("submit-" + name + ".log");
    Process p = launch(cmd, "127.0.0.1", log);
    synchronized (submits) {
      submits.add(p);
    }
    try {
      boolean exited = p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
      if (!exited) {
        destroyTree(p);
        return new SubmitResult(-1, true, log);
      }
      return new SubmitResult(p.exitValue(), false, log);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      destroyTree(p);
      throw new IllegalStateException("Interrupted while waiting for spark-submit " + name, e);
    }
  }

  /** The result of one spark-submit. */
  record SubmitResult(int exitCode, boolean timedOut, Path log) {}

  /** Executor JVMs the workers launched, alive now. */
  List<ProcessHandle> executors() {
    List<ProcessHandle> out = new ArrayList<>();
    for (Map.Entry<String, Process> d : daemons.entrySet()) {
      if (d.getKey().startsWith("worker")) {
        d.getValue()
            .toHandle()
            .descendants()
            .filter(h -> h.info().commandLine().orElse("").contains("CoarseGrainedExecutorBackend"))
            .forEach(out::add);
      }
    }
    return out;
  }

  private void awaitLog(String daemon, String line, Duration timeout) {
    Path log = dir.resolve(daemon + ".log");
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (read(log).contains(line)) {
        return;
      }
      Process p = daemons.get(daemon);
      if (!p.isAlive()) {
        throw new IllegalStateException(
            daemon + " exited with code " + p.exitValue() + " before logging \"" + line + "\"");
      }
      sleep(200);
    }
    throw new IllegalStateException(
        daemon + " did not log \"" + line + "\" within " + timeout.toSeconds() + " s");
  }

  /** The last lines of every log of the cluster: daemons, spark-submits, executors and drivers. */
  String logTails() {
    StringBuilder sb = new StringBuilder();
    try (Stream<Path> files = Files.walk(dir)) {
      files
          .filter(
              f ->
                  Files.isRegularFile(f)
                      && (f.toString().endsWith(".log")
                          || f.getFileName().toString().equals("stderr")
                          || f.getFileName().toString().equals("stdout")))
          .sorted(Comparator.comparing(Path::toString))
          .forEach(f -> sb.append(tail(f, 40)));
    } catch (IOException | UncheckedIOException e) {
      sb.append("(cannot list logs under ").append(dir).append(": ").append(e).append(")\n");
    }
    return sb.toString();
  }

  static String tail(Path file, int lines) {
    String[] all = read(file).split("\n");
    StringBuilder sb = new StringBuilder("---- last " + lines + " lines of " + file + "\n");
    for (int i = Math.max(0, all.length - lines); i < all.length; i++) {
      sb.append(all[i]).append('\n');
    }
    return sb.toString();
  }

  private static String read(Path file) {
    try {
      return Files.exists(file) ? new String(Files.readAllBytes(file), StandardCharsets.UTF_8) : "";
    } catch (IOException e) {
      return "(cannot read " + file + ": " + e + ")";
    }
  }

  @Override
  public void close() {
    destroyAll();
    try {
      Runtime.getRuntime().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException e) {
      // the JVM is shutting down: the hook runs (or ran) destroyAll itself
    }
  }

  /**
   * Submits first (their drivers use the cluster), then workers (with executors and drivers), then
   * the master.
   */
  private void destroyAll() {
    List<Process> order = new ArrayList<>();
    synchronized (submits) {
      order.addAll(submits);
    }
    List<String> names = new ArrayList<>(daemons.keySet());
    for (int i = names.size() - 1; i >= 0; i--) {
      order.add(daemons.get(names.get(i)));
    }
    for (Process p : order) {
      destroyTree(p);
    }
  }

  /** Terminates the process and its descendants, forcibly after 10 seconds. */
  static void destroyTree(Process p) {
    List<ProcessHandle> tree = new ArrayList<>(p.toHandle().descendants().toList());
    tree.add(p.toHandle());
    tree.forEach(ProcessHandle::destroy);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    for (ProcessHandle h : tree) {
      long left = deadline - System.nanoTime();
      try {
        h.onExit().get(Math.max(left, 1), TimeUnit.NANOSECONDS);
      } catch (Exception e) {
        h.destroyForcibly();
      }
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket()) {
      s.setReuseAddress(true);
      s.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0));
      return s.getLocalPort();
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted", e);
    }
  }
}
