package dev.lancelot.spark;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;

/**
 * The fault matrix on HDFS: an in-process HDFS (one name node, one data node, on the loopback
 * address) for this class, faults between the engine and its {@code DistributedFileSystem}; the
 * engine publishes manifests with HDFS's rename.
 */
class FaultMatrixOnHdfsTest extends StoreFaultMatrix {
  private MiniDFSCluster cluster;

  @Override
  Configuration startStore() throws Exception {
    Path base = Path.of("target", "minidfs-" + UUID.randomUUID()).toAbsolutePath();
    Configuration conf = new Configuration();
    conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, base.toString());
    conf.set("dfs.namenode.rpc-bind-host", "127.0.0.1");
    conf.set("dfs.namenode.http-address", "127.0.0.1:0");
    conf.set("dfs.datanode.hostname", "127.0.0.1");
    conf.set("dfs.replication", "1");
    cluster = new MiniDFSCluster.Builder(conf).numDataNodes(1).build();
    cluster.waitActive();
    Configuration client = new Configuration(cluster.getConfiguration(0));
    client.set("fs.defaultFS", cluster.getURI().toString());
    // Completing a file waits for its last block with sleeps that start at 400 ms and double, five
    // times by default; a faulted run may close a file whose block was cut short, so bound the
    // wait to a few short sleeps (the data node is local and answers in milliseconds).
    client.setInt("dfs.client.block.write.locateFollowingBlock.initial.delay.ms", 20);
    client.setInt("dfs.client.block.write.locateFollowingBlock.retries", 3);
    client.setInt("ipc.client.connect.max.retries", 1);
    client.setInt("ipc.client.connect.retry.interval", 50);
    return client;
  }

  /**
   * Closes this class's HDFS client while the name node still answers (an open file would otherwise
   * be completed against a stopped name node, retrying for minutes), then stops the cluster.
   */
  @Override
  void stopStore() {
    if (cluster == null) {
      return;
    }
    try {
      FileSystem.get(cluster.getURI(), plain).close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      cluster.shutdown(true);
      cluster = null;
    }
  }

  @Override
  String scheme() {
    return "hdfs";
  }

  @Override
  String fileSystemClass() {
    return "org.apache.hadoop.hdfs.DistributedFileSystem";
  }

  @Override
  String newRoot() {
    return cluster.getURI() + "/" + unique("faults-");
  }
}
