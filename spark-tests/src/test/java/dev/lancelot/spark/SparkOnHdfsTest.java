package dev.lancelot.spark;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * With {@code fs.defaultFS} pointing at HDFS, a location without a scheme is an HDFS location, as
 * for Spark's file sources: writes, reads, index builds and searches all work on the dataset in
 * HDFS, and nothing lands on the local disk. An in-process HDFS (one name node, one data node, on
 * the loopback address) and a session of its own.
 */
class SparkOnHdfsTest {
  static final String[] DATANODES = {"datanode-a", "datanode-b", "datanode-c"};
  static MiniDFSCluster cluster;
  static FileSystem hdfs;
  static SparkSession spark;

  @BeforeAll
  static void startHdfsAndSpark() throws IOException {
    Path base = Path.of("target", "minidfs-" + UUID.randomUUID()).toAbsolutePath();
    Configuration conf = new Configuration();
    conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, base.toString());
    conf.set("dfs.namenode.rpc-bind-host", "127.0.0.1");
    conf.set("dfs.namenode.http-address", "127.0.0.1:0");
    conf.set("dfs.datanode.hostname", "127.0.0.1");
    // Three datanodes under names of their own, one replica per block: each data file lives on one
    // named host, so that locality (preferred locations) can be checked.
    conf.set("dfs.namenode.datanode.registration.ip-hostname-check", "false");
    conf.set("dfs.replication", "1");
    cluster =
        new MiniDFSCluster.Builder(conf).numDataNodes(DATANODES.length).hosts(DATANODES).build();
    cluster.waitActive();
    hdfs = cluster.getFileSystem();
    spark =
        SharedSpark.localSession()
            .config("spark.hadoop.fs.defaultFS", hdfs.getUri().toString())
            .config("spark.sql.warehouse.dir", base.resolve("warehouse").toUri().toString())
            .getOrCreate();
  }

  @AfterAll
  static void stop() {
    try {
      if (spark != null) {
        spark.stop();
        spark = null;
      }
    } finally {
      if (cluster != null) {
        cluster.shutdown(true);
        cluster = null;
      }
    }
  }

  /** Files under {@code dir} in HDFS, as full URIs. */
  static Set<String> hdfsFiles(String dir) throws IOException {
    Set<String> out = new TreeSet<>();
    RemoteIterator<LocatedFileStatus> files =
        hdfs.listFiles(new org.apache.hadoop.fs.Path(dir), true);
    while (files.hasNext()) {
      out.add(files.next().getPath().toString());
    }
    return out;
  }

  @Test
  void aSchemeLessPathIsOnTheDefaultFileSystem() throws IOException {
    assertThat(cluster.getNameNode().getNameNodeAddress().getAddress().isLoopbackAddress())
        .isTrue();
    assertThat(cluster.getDataNodes().get(0).getXferAddress().getAddress().isLoopbackAddress())
        .isTrue();
    String path = "/lancelot-" + UUID.randomUUID() + "/items";
    String resolved = PathFlows.writeReadIndexSearch(spark, path);
    String root = hdfs.getUri() + path;
    assertThat(resolved).isEqualTo(root);

    Set<String> inHdfs = hdfsFiles(path);
    Set<String> named = PathFlows.manifestFiles(path, spark.sessionState().newHadoopConf());
    assertThat(inHdfs).containsAll(named);
    assertThat(named).hasSizeGreaterThan(5).allMatch(f -> f.startsWith(root + "/"));
    assertThat(inHdfs.stream().filter(f -> f.endsWith(".manifest"))).hasSize(6);
    assertThat(inHdfs.stream().filter(f -> f.startsWith(root + "/data/") && f.endsWith(".lance")))
        .hasSameSizeAs(named.stream().filter(f -> f.endsWith(".lance")).toList());
    // nothing on the local disk at that path, nor relative to the working directory
    assertThat(Path.of(path)).doesNotExist();
    assertThat(Path.of(path.substring(1))).doesNotExist();
  }

  @Test
  void aRelativePathIsUnderTheWorkingDirectoryOfTheDefaultFileSystem() throws IOException {
    String relative = "relative-" + UUID.randomUUID();
    PathFlows.frame(spark, 0, 100, 2).write().format("lance").save(relative);
    assertThat(spark.read().format("lance").load(relative).count()).isEqualTo(100);
    String home = hdfs.getWorkingDirectory().toString();
    assertThat(home).startsWith(hdfs.getUri() + "/user/");
    assertThat(hdfsFiles(home + "/" + relative)).filteredOn(f -> f.endsWith(".lance")).hasSize(2);
    assertThat(Path.of(relative)).doesNotExist();
  }

  /** F4 on HDFS: the NameNode's rename refuses an existing manifest, so losers rebase and retry. */
  @Test
  void eightWritersAppendingConcurrentlyLoseNothing() throws Exception {
    for (int round = 0; round < ConcurrentAppends.rounds(); round++) {
      ConcurrentAppends.runAndCheck(
          hdfs.getUri() + "/lancelot-" + UUID.randomUUID() + "/concurrent",
          spark.sessionState().newHadoopConf());
    }
  }

  /**
   * Two JVMs with 4 writer threads each, appending at the same time to one dataset in this HDFS,
   * which they reach through its {@code hdfs://} URI (datanodes by address, as in this JVM).
   */
  @Test
  void twoProcessesAppendingConcurrentlyLoseNothing() throws Exception {
    ConcurrentAppends.runInProcessesAndCheck(
        hdfs.getUri() + "/lancelot-" + UUID.randomUUID() + "/two-jvms",
        spark.sessionState().newHadoopConf(),
        2,
        new String[][] {{"dfs.replication", "1"}});
  }

  /**
   * Each scan partition prefers the hosts holding its fragment's data files (HDFS block locations),
   * so that Spark runs its task where the data is.
   */
  @Test
  void scanPartitionsPreferTheHostsHoldingTheirData() throws Exception {
    String location = hdfs.getUri() + "/lancelot-" + UUID.randomUUID() + "/located";
    spark
        // Twelve data files, one block each, placed at random over three datanodes: all on one host
        // happens with probability 3^-11 (six files made it 1 in 243, seen once).
        .range(0, 12000, 1, 12)
        .selectExpr("id", "cast(id % 7 as int) as tenant_id")
        .write()
        .format("lance")
        .save(location);
    org.apache.spark.sql.execution.SparkPlan plan =
        spark.read().format("lance").load(location).queryExecution().executedPlan();
    List<org.apache.spark.sql.execution.datasources.v2.BatchScanExec> scans =
        scala.jdk.javaapi.CollectionConverters.asJava(plan.collectLeaves()).stream()
            .filter(p -> p instanceof org.apache.spark.sql.execution.datasources.v2.BatchScanExec)
            .map(p -> (org.apache.spark.sql.execution.datasources.v2.BatchScanExec) p)
            .toList();
    assertThat(scans).hasSize(1);
    org.apache.spark.sql.connector.read.InputPartition[] partitions =
        scans.get(0).batch().planInputPartitions();
    assertThat(partitions).hasSize(12);
    Set<String> everyHost = new TreeSet<>();
    try (dev.lancelot.engine.Dataset ds =
        dev.lancelot.engine.Dataset.open(
            location,
            dev.lancelot.engine.OpenOptions.defaults()
                .withHadoopConf(spark.sessionState().newHadoopConf()))) {
      java.util.Map<Long, dev.lancelot.engine.FragmentInfo> fragments = new java.util.HashMap<>();
      ds.fragments().forEach(f -> fragments.put(f.id(), f));
      for (org.apache.spark.sql.connector.read.InputPartition p : partitions) {
        dev.lancelot.spark.read.LanceInputPartition lp =
            (dev.lancelot.spark.read.LanceInputPartition) p;
        Set<String> expected = new TreeSet<>();
        for (String file : fragments.get(lp.task().fragmentId()).dataFiles()) {
          org.apache.hadoop.fs.Path path =
              new org.apache.hadoop.fs.Path(location + "/data/" + file);
          for (org.apache.hadoop.fs.BlockLocation b :
              hdfs.getFileBlockLocations(hdfs.getFileStatus(path), 0, Long.MAX_VALUE)) {
            expected.addAll(List.of(b.getHosts()));
          }
        }
        assertThat(expected)
            .as("block hosts of fragment " + lp.task().fragmentId())
            .isNotEmpty()
            .isSubsetOf(DATANODES);
        assertThat(lp.preferredLocations())
            .as("fragment " + lp.task().fragmentId())
            .containsExactlyInAnyOrderElementsOf(expected);
        everyHost.addAll(expected);
      }
    }
    assertThat(everyHost)
        .as("the fragments are spread over several datanodes")
        .hasSizeGreaterThan(1);
    // and the scan still reads every row
    assertThat(spark.read().format("lance").load(location).count()).isEqualTo(12000);
  }

  /**
   * Each vector search unit prefers the hosts holding the blocks of the files it reads: an index
   * segment's index files, a flat unit's data files; after a search, the executor that ran it comes
   * first (its cache), then the same hosts. Read from the stage Spark actually ran.
   */
  @Test
  void searchUnitsPreferTheHostsHoldingTheirFiles() throws Exception {
    String location = hdfs.getUri() + "/lancelot-" + UUID.randomUUID() + "/searched";
    PathFlows.frame(spark, 0, 1200, 4).write().format("lance").save(location);
    spark.conf().set(dev.lancelot.spark.index.LanceIndexBuilder.ROWS_PER_SEGMENT_CONF, "600");
    try {
      dev.lancelot.spark.index.LanceIndexBuilder.createIndex(
          spark,
          location,
          "vector",
          dev.lancelot.engine.index.vector.VectorIndexSpec.of(
                  dev.lancelot.engine.index.IndexType.IVF_PQ,
                  dev.lancelot.engine.vector.DistanceMetric.L2)
              .withNumPartitions(2)
              .withNumSubVectors(2)
              .withSeed(1));
    } finally {
      spark.conf().unset(dev.lancelot.spark.index.LanceIndexBuilder.ROWS_PER_SEGMENT_CONF);
    }
    PathFlows.frame(spark, 1200, 300, 2)
        .write()
        .format("lance")
        .mode("append")
        .save(location); // unindexed
    dev.lancelot.engine.query.VectorQuery query =
        dev.lancelot.engine.query.VectorQuery.builder("vector")
            .vector(PathFlows.vectorOf(42))
            .k(5)
            .nprobes(2)
            .columns("id")
            .build();

    List<dev.lancelot.engine.internal.query.plan.SearchUnit> units;
    List<Set<String>> expected = new java.util.ArrayList<>();
    try (dev.lancelot.engine.Dataset ds =
        dev.lancelot.engine.Dataset.open(
            location,
            dev.lancelot.engine.OpenOptions.defaults()
                .withHadoopConf(spark.sessionState().newHadoopConf()))) {
      units = dev.lancelot.engine.internal.query.DistributedSearch.plan(ds, query).units();
      java.util.Map<Long, dev.lancelot.engine.FragmentInfo> fragments = new java.util.HashMap<>();
      ds.fragments().forEach(f -> fragments.put(f.id(), f));
      for (dev.lancelot.engine.internal.query.plan.SearchUnit unit : units) {
        List<String> files = new java.util.ArrayList<>();
        if (unit instanceof dev.lancelot.engine.internal.query.plan.AnnUnit a) {
          files.addAll(hdfsFiles(location + "/_indices/" + a.segment()));
        } else {
          unit.fragments()
              .forEach(
                  id ->
                      fragments
                          .get(id)
                          .dataFiles()
                          .forEach(f -> files.add(location + "/data/" + f)));
        }
        Set<String> hosts = new TreeSet<>();
        for (String file : files) {
          org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path(file);
          for (org.apache.hadoop.fs.BlockLocation b :
              hdfs.getFileBlockLocations(hdfs.getFileStatus(path), 0, Long.MAX_VALUE)) {
            hosts.addAll(List.of(b.getHosts()));
          }
        }
        assertThat(files).as("files of " + unit.id()).isNotEmpty();
        assertThat(hosts).as("block hosts of " + unit.id()).isNotEmpty().isSubsetOf(DATANODES);
        expected.add(hosts);
      }
    }
    assertThat(units)
        .as("two index segments and a flat unit per appended fragment")
        .hasSize(4)
        .filteredOn(u -> u instanceof dev.lancelot.engine.internal.query.plan.AnnUnit)
        .hasSize(2);
    assertThat(expected.stream().flatMap(Set::stream).distinct().count())
        .as("the units' files are spread over several datanodes")
        .isGreaterThan(1);

    // first search: no executor has searched these units yet, so the block hosts only
    List<List<String>> first = searchStagePreferences(location, query);
    assertThat(first).hasSize(units.size());
    for (int i = 0; i < units.size(); i++) {
      assertThat(first.get(i))
          .as(units.get(i).id())
          .containsExactlyInAnyOrderElementsOf(expected.get(i));
    }
    // again: the executor that searched each unit (its cache) first, then the same hosts
    List<List<String>> second = searchStagePreferences(location, query);
    for (int i = 0; i < units.size(); i++) {
      assertThat(second.get(i).get(0)).as(units.get(i).id()).startsWith("executor_");
      assertThat(second.get(i).subList(1, second.get(i).size()))
          .as(units.get(i).id())
          .containsExactlyInAnyOrderElementsOf(expected.get(i));
    }
  }

  /**
   * Runs the search and returns the locality preferences of each task of its stage (unit order),
   * checking the answer.
   */
  private static List<List<String>> searchStagePreferences(
      String location, dev.lancelot.engine.query.VectorQuery query) throws Exception {
    List<org.apache.spark.scheduler.StageInfo> stages =
        new java.util.concurrent.CopyOnWriteArrayList<>();
    org.apache.spark.scheduler.SparkListener listener =
        new org.apache.spark.scheduler.SparkListener() {
          @Override
          public void onStageSubmitted(
              org.apache.spark.scheduler.SparkListenerStageSubmitted event) {
            String description =
                event.properties() == null
                    ? null
                    : event.properties().getProperty("spark.job.description");
            if (description != null
                && description.startsWith("lance vector search on " + location)) {
              stages.add(event.stageInfo());
            }
          }
        };
    spark.sparkContext().addSparkListener(listener);
    try {
      List<org.apache.spark.sql.Row> rows =
          dev.lancelot.spark.search.LanceVectorSearch.search(spark, location, query)
              .collectAsList();
      assertThat(rows).hasSize(5);
      assertThat(rows.get(0).getLong(0)).isEqualTo(42L);
      spark.sparkContext().listenerBus().waitUntilEmpty();
    } finally {
      spark.sparkContext().removeSparkListener(listener);
    }
    assertThat(stages).hasSize(1);
    List<List<String>> out = new java.util.ArrayList<>();
    for (scala.collection.Seq<org.apache.spark.scheduler.TaskLocation> task :
        scala.jdk.javaapi.CollectionConverters.asJava(stages.get(0).taskLocalityPreferences())) {
      out.add(
          scala.jdk.javaapi.CollectionConverters.asJava(task).stream()
              .map(Object::toString)
              .toList());
    }
    return out;
  }

  /**
   * A streaming sink with its table and its checkpoint in HDFS: every batch committed once across a
   * restart that replays a committed batch; a stream and batch writers appending together lose
   * nothing (S10).
   */
  @Test
  void aStreamWithItsCheckpointInHdfsCommitsEachBatchOnce(
      @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
    String base = hdfs.getUri() + "/lancelot-" + UUID.randomUUID();
    StreamingFlows.exactlyOnceAcrossARestart(
        spark, dir.resolve("in"), base + "/checkpoint", base + "/events.lance");
    StreamingFlows.streamAndBatchWritersAppendTogether(
        spark, dir.resolve("in2"), base + "/checkpoint2", base + "/shared.lance", 2);
  }
}
