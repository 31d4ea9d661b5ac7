package dev.lancelot.spark;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A relative location resolves once, on the driver, against the working directory of the driver's
 * default file system, as Spark's file sources resolve paths; tasks get the qualified URI. On a
 * cluster an executor's process runs in another directory than the driver; here the driver's
 * (local) file system is given another working directory than the JVM's, so a task that resolved
 * the path itself would write under the JVM's directory instead.
 */
class SparkRelativePathTest extends SharedSpark {

  @Test
  void aRelativePathPutsEveryFileWhereTheManifestSays(@TempDir Path driverDir) throws IOException {
    String relative = "target/relative-" + UUID.randomUUID() + "/items";
    Configuration conf = spark.sessionState().newHadoopConf();
    FileSystem local = FileSystem.get(conf);
    org.apache.hadoop.fs.Path jvmDir = local.getWorkingDirectory();
    String resolved;
    local.setWorkingDirectory(new org.apache.hadoop.fs.Path(driverDir.toUri()));
    try {
      resolved = PathFlows.writeReadIndexSearch(spark, relative);
    } finally {
      local.setWorkingDirectory(jvmDir);
    }
    Path dataset = driverDir.resolve(relative);
    assertThat(resolved).isEqualTo("file:" + dataset.toUri().getPath().replaceAll("/$", ""));
    // every file the manifest names is there, and every data and index file there is in the
    // manifest
    Set<String> named = PathFlows.manifestFiles(resolved, conf);
    Set<String> present = new TreeSet<>();
    try (Stream<Path> files = Files.walk(dataset)) {
      files
          .filter(Files::isRegularFile)
          .filter(f -> f.toString().endsWith(".lance") || f.toString().endsWith("index.idx"))
          .forEach(f -> present.add("file:" + f.toUri().getPath()));
    }
    assertThat(present).isEqualTo(named).hasSizeGreaterThan(5);
    try (Stream<Path> versions = Files.list(dataset.resolve("_versions"))) {
      assertThat(versions.filter(f -> f.toString().endsWith(".manifest")).count()).isEqualTo(6);
    }
    // nothing under the JVM's working directory
    assertThat(Path.of(relative.substring(0, relative.indexOf("/items")))).doesNotExist();
  }
}
