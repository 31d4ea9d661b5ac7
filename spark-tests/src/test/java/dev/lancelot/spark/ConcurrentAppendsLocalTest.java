package dev.lancelot.spark;

import dev.lancelot.engine.io.HadoopFileIO;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * F4 on the local file system: a manifest is published by a hard link, which fails when the name
 * exists, so losers rebase and retry. The same check as on HDFS ({@link SparkOnHdfsTest}) and S3
 * ({@link SparkOnS3Test}).
 */
class ConcurrentAppendsLocalTest {
  @Test
  void eightWritersAppendingConcurrentlyLoseNothing(@TempDir Path tmp) throws Exception {
    for (int round = 0; round < ConcurrentAppends.rounds(); round++) {
      ConcurrentAppends.runAndCheck(
          HadoopFileIO.qualify(tmp.resolve("ds-" + round).toString()), HadoopFileIO.defaultConf());
    }
  }

  /** Two JVMs with 4 writer threads each, appending to one dataset at the same time. */
  @Test
  void twoProcessesAppendingConcurrentlyLoseNothing(@TempDir Path tmp) throws Exception {
    ConcurrentAppends.runInProcessesAndCheck(
        HadoopFileIO.qualify(tmp.resolve("ds").toString()),
        HadoopFileIO.defaultConf(),
        2,
        new String[0][]);
  }
}
