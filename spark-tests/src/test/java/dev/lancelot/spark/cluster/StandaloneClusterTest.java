package dev.lancelot.spark.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.FragmentInfo;
import dev.lancelot.spark.LanceSparkExtensions;
import dev.lancelot.spark.cluster.StandaloneCluster.SubmitResult;
import dev.lancelot.spark.cluster.app.ClusterApp;
import dev.lancelot.spark.cluster.app.ClusterFlow;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The standalone-cluster lane: one Spark standalone cluster (master + 2 workers, separate JVMs,
 * from a SPARK_HOME holding only Spark's jars) shared by every test of the class; applications are
 * submitted with spark-submit and get lancelot from the runtime jar alone ({@code --jars}).
 *
 * <ul>
 *   <li>the end-to-end flow ({@link ClusterFlow}) answers exactly as in a local[2] session, in
 *       client and in cluster deploy mode;
 *   <li>an executor killed in the middle of a write, and a write with speculative task copies, each
 *       commit one version holding every row once, with every referenced data file present;
 *   <li>the recall job ({@code spark-submit --class dev.lancelot.spark.jobs.RecallJob} of the
 *       runtime jar) writes its outputs, measures the recall a brute force in the test finds, and
 *       reuses its ground truth when run again.
 * </ul>
 *
 * <p>The local reference run starts in the background with the cluster. The applications run one
 * after the other: on a 2-core machine, running them together only makes each slower.
 */
class StandaloneClusterTest {
  static final Map<String, String> KRYO_SERIALIZER =
      Map.of(
          "spark.serializer", "org.apache.spark.serializer.KryoSerializer",
          "spark.kryo.registrationRequired", "true",
          "spark.kryo.registrator", "dev.lancelot.spark.LanceKryoRegistrator");

  /**
   * The serializer of every application of the lane (and of the local reference run): Kryo with
   * registration required, as strict production clusters configure it (the end-to-end classes under
   * spark-tests run every flow under Java serialization too).
   */
  static final Map<String, String> SERIALIZER = KRYO_SERIALIZER;

  private static final Duration APP_TIMEOUT = Duration.ofMinutes(8);
  private static final ObjectMapper JSON = new ObjectMapper();

  private static StandaloneCluster cluster;
  private static Path root;
  private static Path runtimeJar;
  private static Path appJar;
  private static CompletableFuture<List<String>> localAnswers;

  /** Runs the local reference and applications the test watches while they run. */
  private static final ExecutorService background =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "standalone-lane");
            t.setDaemon(true);
            return t;
          });

  @BeforeAll
  static void startCluster() throws IOException {
    Path sparkHome = Paths.get(requiredProperty("lancelot.sparkHome"));
    runtimeJar = Paths.get(requiredProperty("lancelot.runtimeJar")).normalize();
    if (!Files.isRegularFile(runtimeJar)) {
      throw new IllegalStateException(
          "Cannot run the standalone-cluster lane: the runtime jar "
              + runtimeJar
              + " is missing. It is built by the runtime module's package phase: run mvn verify (or package) with the"
              + " runtime module in the reactor, e.g. -pl runtime,spark-tests -am.");
    }
    Path target = sparkHome.getParent();
    Path dir =
        Files.createDirectories(
            target.resolve("standalone-cluster").resolve("run-" + System.currentTimeMillis()));
    root = Files.createDirectories(dir.resolve("data"));
    appJar = buildAppJar(dir.resolve("cluster-app.jar"));
    localAnswers = CompletableFuture.supplyAsync(StandaloneClusterTest::runLocally, background);
    cluster = StandaloneCluster.start(sparkHome, dir);
  }

  @AfterAll
  static void stopCluster() {
    if (localAnswers != null) {
      // the local session must be stopped before the next test class starts its own
      localAnswers.handle((answers, error) -> answers).join();
    }
    background.shutdown();
    if (cluster != null) {
      cluster.close();
      cluster = null;
    }
  }

  /**
   * Client deploy mode, with the runtime jar fetched by {@code --packages} from a Maven repository
   * (a file repository holding the jar and the pom the build installs, resolved through an Ivy
   * settings file so that no other repository is asked).
   */
  @Test
  void flowInClientModeAnswersAsInLocalMode() throws Exception {
    List<String> answers = runApp("flow-client", "client", "flow", Map.of(), packagesRepository());
    onFailureWithLogs(
        () ->
            assertThat(answers)
                .as("answers of the flow in client deploy mode vs local[2]")
                .containsExactlyElementsOf(localAnswers()));
  }

  @Test
  void flowInClusterModeAnswersAsInLocalMode() throws Exception {
    List<String> answers = runApp("flow-cluster", "cluster", "flow", Map.of());
    onFailureWithLogs(
        () ->
            assertThat(answers)
                .as("answers of the flow in cluster deploy mode vs local[2]")
                .containsExactlyElementsOf(localAnswers()));
  }

  @Test
  void executorKilledInTheMiddleOfAWriteLosesNothing() throws Exception {
    String name = "kill-write";
    Path markers = root.resolve(name).resolve("markers");
    CompletableFuture<List<String>> app =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return runApp(name, "client", "kill-write", Map.of());
              } catch (IOException e) {
                throw new IllegalStateException(e);
              }
            },
            background);
    try {
      long pid = awaitPausedExecutor(markers, app);
      ProcessHandle executor =
          cluster.executors().stream()
              .filter(h -> h.pid() == pid)
              .findFirst()
              .orElseThrow(
                  () ->
                      new AssertionError(
                          "The paused task runs in process "
                              + pid
                              + ", which is not an executor launched by this cluster's workers"));
      executor.destroyForcibly();
      assertThat(executor.onExit().get(30, TimeUnit.SECONDS).isAlive()).isFalse();
    } finally {
      Files.createDirectories(markers);
      Files.writeString(markers.resolve("release"), "");
    }
    List<String> answers = app.get(APP_TIMEOUT.toMinutes() + 1, TimeUnit.MINUTES);
    onFailureWithLogs(
        () -> {
          Map<?, ?> attempts = JSON.readValue(answers.get(0), Map.class);
          assertThat((Integer) attempts.get("failed"))
              .as("task attempts lost with the executor")
              .isPositive();
          assertThat((Integer) attempts.get("executorsRemoved"))
              .as("executors removed")
              .isPositive();
          assertEveryRowOnce(root.resolve(name).resolve("items"));
        });
  }

  @Test
  void speculativeCopiesOfWriteTasksCommitOnce() throws Exception {
    String name = "speculative-write";
    List<String> answers =
        runApp(
            name,
            "client",
            "speculative-write",
            Map.of(
                "spark.speculation", "true",
                "spark.speculation.interval", "100ms",
                "spark.speculation.quantile", "0.5",
                "spark.speculation.multiplier", "1.5",
                "spark.speculation.minTaskRuntime", "500ms"));
    onFailureWithLogs(
        () -> {
          Map<?, ?> attempts = JSON.readValue(answers.get(0), Map.class);
          assertThat((Integer) attempts.get("speculative"))
              .as("speculative task attempts")
              .isPositive();
          assertEveryRowOnce(root.resolve(name).resolve("items"));
        });
  }

  /**
   * The recall job, submitted as its own application (the runtime jar is the application jar), on
   * the dataset of the local reference run (indexed IVF_HNSW_SQ, l2): results.json, results.lance,
   * report.html and its plots; recall equal to a brute force computed here; run again, it reuses
   * the ground truths (with and without a filter) and spends less time on them. The whole run is
   * not compared: on data this small an exact search costs about what one cell costs, and the
   * second application pays the executors' cold start in its first search instead, so the two
   * totals differ by less than the noise of a loaded 2-core machine.
   */
  @Test
  void recallJobMeasuresWhatABruteForceFindsAndReusesItsGroundTruth() throws Exception {
    localAnswers(); // its dataset is complete
    Path dataset = root.resolve("local").resolve("items");
    float[][] queries;
    try (Dataset ds = Dataset.open(dataset.toString())) {
      queries = dev.lancelot.engine.query.eval.QuerySets.fromColumn(ds, "vector", 16);
    }
    for (float[] q : queries) {
      for (int d = 0; d < q.length; d++) {
        q[d] += 0.01f;
      }
    }
    Path fvecs = root.resolve("recall-queries.fvecs");
    dev.lancelot.engine.query.eval.QuerySets.writeFvecs(fvecs, queries);
    Path out = root.resolve("recall-out");
    List<String> jobArgs =
        List.of(
            "--dataset",
            dataset.toString(),
            "--queries",
            fvecs.toString(),
            "--k",
            "10",
            "--grid",
            "nprobes=1,4",
            "--filter",
            "tenant_id = 3",
            "--out",
            out.toString());
    String first = submitRecallJob("recall-1", jobArgs);
    String second = submitRecallJob("recall-2", jobArgs);
    onFailureWithLogs(
        () -> {
          assertThat(first)
              .contains("computing ground truth")
              .doesNotContain("reusing ground truth");
          assertThat(second)
              .contains("reusing ground truth")
              .doesNotContain("computing ground truth");
          double[] firstSeconds = RecallLane.seconds(first);
          double[] secondSeconds = RecallLane.seconds(second);
          System.out.printf(
              "standalone lane: recall job %.1f s (ground truth %.1f s) computing its ground truth, "
                  + "%.1f s (ground truth %.1f s) reusing it%n",
              firstSeconds[0], firstSeconds[1], secondSeconds[0], secondSeconds[1]);
          assertThat(secondSeconds[1])
              .as("time on ground truth when reusing it")
              .isLessThan(firstSeconds[1] / 3);
          RecallLane.checkOutputs(out, dataset, queries, "tenant_id = 3", 3);
        });
  }

  /** Submits the recall job in client mode and returns its log; fails unless it exits with 0. */
  private static String submitRecallJob(String name, List<String> jobArgs) throws IOException {
    List<String> args =
        new ArrayList<>(
            List.of(
                "--master",
                cluster.masterUrl(),
                "--deploy-mode",
                "client",
                "--name",
                "lancelot-" + name,
                "--class",
                "dev.lancelot.spark.jobs.RecallJob"));
    for (Map.Entry<String, String> c : appConf("client", Map.of()).entrySet()) {
      args.add("--conf");
      args.add(c.getKey() + "=" + c.getValue());
    }
    args.add(runtimeJar.toString());
    args.addAll(jobArgs);
    long t0 = System.nanoTime();
    SubmitResult result = cluster.submit(name, true, args, APP_TIMEOUT);
    System.out.printf("standalone lane: %s took %.1f s%n", name, (System.nanoTime() - t0) / 1e9);
    String log = Files.readString(result.log());
    if (result.timedOut() || result.exitCode() != 0) {
      throw new AssertionError(
          "The recall job "
              + name
              + (result.timedOut()
                  ? " did not finish within " + APP_TIMEOUT.toMinutes() + " minutes"
                  : " exited with code " + result.exitCode())
              + "\n"
              + cluster.logTails());
    }
    return log;
  }

  /**
   * One version (the create), one fragment per write task, every id once, and every data file the
   * manifest references present.
   */
  private static void assertEveryRowOnce(Path dataset) {
    long expected = ClusterApp.FAULT_PARTITIONS * ClusterApp.FAULT_ROWS_PER_PARTITION;
    try (Dataset ds = Dataset.open(dataset.toString())) {
      assertThat(ds.versions()).as("versions").hasSize(1);
      assertThat(ds.fragments()).as("fragments").hasSize(ClusterApp.FAULT_PARTITIONS);
      for (FragmentInfo f : ds.fragments()) {
        for (String file : f.dataFiles()) {
          assertThat(dataset.resolve("data").resolve(file))
              .as("data file of fragment " + f.id())
              .isRegularFile();
        }
      }
      assertThat(ds.countRows()).as("rows").isEqualTo(expected);
      Set<Long> ids = new HashSet<>();
      long scanned = 0;
      try (var batches = ds.newScan().columns("id").batches()) {
        while (batches.hasNext()) {
          VectorSchemaRoot batch = batches.next();
          BigIntVector id = (BigIntVector) batch.getVector("id");
          for (int i = 0; i < batch.getRowCount(); i++) {
            ids.add(id.get(i));
            scanned++;
          }
        }
      }
      assertThat(scanned).as("rows scanned").isEqualTo(expected);
      assertThat(ids).as("distinct ids").hasSize((int) expected);
    }
  }

  /** Waits for a paused first attempt of a write task and returns the pid of the JVM it runs in. */
  private static long awaitPausedExecutor(Path markers, CompletableFuture<?> app) throws Exception {
    long deadline = System.nanoTime() + APP_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      if (app.isDone()) {
        throw new AssertionError(
            "The application ended before any write task paused\n" + cluster.logTails());
      }
      if (Files.isDirectory(markers)) {
        try (Stream<Path> files = Files.list(markers)) {
          Optional<Path> paused =
              files.filter(f -> f.getFileName().toString().startsWith("paused-")).findFirst();
          if (paused.isPresent()) {
            String marker = paused.get().getFileName().toString();
            return Long.parseLong(marker.substring(marker.lastIndexOf('-') + 1));
          }
        }
      }
      Thread.sleep(100);
    }
    throw new AssertionError(
        "No write task paused within "
            + APP_TIMEOUT.toMinutes()
            + " minutes\n"
            + cluster.logTails());
  }

  /**
   * Submits {@link ClusterApp} with the runtime jar as the only lancelot jar, waits for it, and
   * returns its answers (without the final "done").
   */
  private static List<String> runApp(
      String name, String deployMode, String scenario, Map<String, String> conf)
      throws IOException {
    return runApp(name, deployMode, scenario, conf, null);
  }

  /**
   * A Maven repository (file layout) with the runtime jar and its installed pom, and an Ivy
   * settings file that resolves from it alone: what {@code --packages} needs.
   */
  private static Path packagesRepository() throws IOException {
    String file = runtimeJar.getFileName().toString();
    String artifact = runtimeArtifact();
    String version = file.substring(artifact.length() + 1, file.length() - ".jar".length());
    Path repo = root.getParent().resolve("m2repo");
    Path dir = Files.createDirectories(repo.resolve("dev/lancelot/" + artifact).resolve(version));
    Files.copy(runtimeJar, dir.resolve(file), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    Files.copy(
        runtimeJar.resolveSibling(artifact + ".pom"),
        dir.resolve(artifact + "-" + version + ".pom"),
        java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    Path settings = repo.resolveSibling("ivysettings.xml");
    Files.writeString(
        settings,
        "<ivysettings>\n  <settings defaultResolver=\"lancelot-test\"/>\n  <resolvers>\n"
            + "    <ibiblio name=\"lancelot-test\" m2compatible=\"true\" usepoms=\"true\" root=\""
            + repo.toUri()
            + "\"/>\n  </resolvers>\n</ivysettings>\n");
    return settings;
  }

  /**
   * {@code ivySettings} null: ships the runtime jar with {@code --jars}; else fetches it with
   * {@code --packages}.
   */
  private static List<String> runApp(
      String name, String deployMode, String scenario, Map<String, String> conf, Path ivySettings)
      throws IOException {
    Path dataRoot = Files.createDirectories(root.resolve(name));
    Path answers = root.resolve(name + "-answers.jsonl");
    List<String> args =
        new ArrayList<>(
            List.of(
                "--master",
                cluster.masterUrl(),
                "--deploy-mode",
                deployMode,
                "--name",
                "lancelot-" + name,
                "--class",
                ClusterApp.class.getName()));
    if (ivySettings == null) {
      args.addAll(List.of("--jars", runtimeJar.toString()));
    } else {
      String file = runtimeJar.getFileName().toString();
      String artifact = runtimeArtifact();
      String version = file.substring(artifact.length() + 1, file.length() - ".jar".length());
      args.addAll(
          List.of(
              "--packages",
              "dev.lancelot:" + artifact + ":" + version,
              "--conf",
              "spark.jars.ivySettings=" + ivySettings,
              "--conf",
              "spark.jars.ivy=" + ivySettings.resolveSibling("ivy-" + name)));
    }
    for (Map.Entry<String, String> c : appConf(deployMode, conf).entrySet()) {
      args.add("--conf");
      args.add(c.getKey() + "=" + c.getValue());
    }
    if (deployMode.equals("cluster")) {
      args.addAll(List.of("--driver-memory", "640m"));
    }
    args.addAll(List.of(appJar.toString(), scenario, dataRoot.toString(), answers.toString()));
    long t0 = System.nanoTime();
    SubmitResult result = cluster.submit(name, deployMode.equals("client"), args, APP_TIMEOUT);
    System.out.printf(
        "standalone lane: %s (%s mode) took %.1f s%n",
        name, deployMode, (System.nanoTime() - t0) / 1e9);
    List<String> lines = Files.exists(answers) ? Files.readAllLines(answers) : List.of();
    if (result.timedOut()
        || result.exitCode() != 0
        || lines.isEmpty()
        || !lines.get(lines.size() - 1).equals("{\"step\":\"done\"}")) {
      throw new AssertionError(
          "Application "
              + name
              + " ("
              + deployMode
              + " deploy mode) "
              + (result.timedOut()
                  ? "did not finish within " + APP_TIMEOUT.toMinutes() + " minutes"
                  : "exited with code " + result.exitCode())
              + " and wrote "
              + lines.size()
              + " answer lines to "
              + answers
              + "\n"
              + cluster.logTails());
    }
    return lines.subList(0, lines.size() - 1);
  }

  /** What every application of the lane is configured with (as a user would on such a cluster). */
  private static Map<String, String> appConf(String deployMode, Map<String, String> extra) {
    Map<String, String> conf = new java.util.LinkedHashMap<>();
    conf.put("spark.ui.enabled", "false");
    conf.put("spark.executor.memory", "640m");
    conf.put("spark.executor.cores", "1");
    conf.put("spark.cores.max", "2");
    conf.put("spark.sql.shuffle.partitions", "4");
    conf.put("spark.sql.session.timeZone", "UTC");
    conf.put("spark.sql.extensions", LanceSparkExtensions.class.getName());
    conf.putAll(SERIALIZER);
    conf.put("spark.executor.extraJavaOptions", String.join(" ", StandaloneCluster.SMALL_JVM));
    if (deployMode.equals("cluster")) {
      // A driver launched by a worker gets no JVM options from the launcher scripts.
      List<String> driverOptions = new ArrayList<>(StandaloneCluster.sparkModuleOptions());
      driverOptions.addAll(StandaloneCluster.SMALL_JVM);
      conf.put("spark.driver.extraJavaOptions", String.join(" ", driverOptions));
      conf.put("spark.standalone.submit.waitAppCompletion", "true");
    } else {
      conf.put("spark.driver.host", "127.0.0.1");
      conf.put("spark.driver.bindAddress", "127.0.0.1");
    }
    conf.putAll(extra);
    return conf;
  }

  /** The flow's answers from a local[2] session in this JVM. */
  private static List<String> localAnswers() throws Exception {
    return localAnswers.get(APP_TIMEOUT.toMinutes(), TimeUnit.MINUTES);
  }

  private static List<String> runLocally() {
    SparkSession.Builder builder =
        SparkSession.builder()
            .master("local[2]")
            .appName("lancelot-cluster-reference")
            .config("spark.ui.enabled", "false")
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.driver.bindAddress", "127.0.0.1")
            .config("spark.sql.shuffle.partitions", "4")
            .config("spark.sql.session.timeZone", "UTC")
            .config("spark.sql.extensions", LanceSparkExtensions.class.getName());
    SERIALIZER.forEach(builder::config);
    SparkSession spark = builder.getOrCreate();
    try {
      List<String> lines = new ArrayList<>();
      for (Map<String, Object> a :
          ClusterFlow.run(spark, root.resolve("local").resolve("items").toString())) {
        lines.add(JSON.writeValueAsString(a));
      }
      return lines;
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    } finally {
      spark.stop();
    }
  }

  /**
   * The application's jar: the classes of {@link ClusterApp}'s package only (lancelot itself comes
   * from the runtime jar).
   */
  private static Path buildAppJar(Path jar) throws IOException {
    Path classes;
    try {
      classes =
          Paths.get(ClusterApp.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (java.net.URISyntaxException e) {
      throw new IllegalStateException(e);
    }
    String pkg = ClusterApp.class.getPackageName().replace('.', '/');
    Manifest manifest = new Manifest();
    manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
    try (OutputStream out = Files.newOutputStream(jar);
        JarOutputStream jarOut = new JarOutputStream(out, manifest);
        Stream<Path> files = Files.list(classes.resolve(pkg))) {
      for (Path f : files.filter(f -> f.toString().endsWith(".class")).sorted().toList()) {
        jarOut.putNextEntry(new JarEntry(pkg + "/" + f.getFileName()));
        Files.copy(f, jarOut);
        jarOut.closeEntry();
      }
    }
    return jar;
  }

  /** The runtime jar's artifact id, e.g. {@code lancelot-spark-runtime-4.1_2.13}. */
  private static String runtimeArtifact() {
    return requiredProperty("lancelot.runtimeArtifact");
  }

  private static String requiredProperty(String name) {
    String v = System.getProperty(name);
    if (v == null || v.isBlank()) {
      throw new IllegalStateException(
          "Cannot run the standalone-cluster lane: system property "
              + name
              + " is not set (the spark-tests pom sets it for Surefire).");
    }
    return v;
  }

  /** Runs assertions, adding the cluster's log tails to a failure. */
  private static void onFailureWithLogs(ThrowingRunnable assertions) throws Exception {
    try {
      assertions.run();
    } catch (AssertionError | RuntimeException e) {
      throw new AssertionError(e.getMessage() + "\n" + cluster.logTails(), e);
    }
  }

  @FunctionalInterface
  private interface ThrowingRunnable {
    void run() throws Exception;
  }
}
