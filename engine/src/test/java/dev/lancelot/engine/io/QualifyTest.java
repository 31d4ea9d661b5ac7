package dev.lancelot.engine.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.nio.file.Paths;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

/**
 * Dataset locations are qualified as Hadoop qualifies paths: against the default file system when a
 * conf is given.
 */
class QualifyTest {
  static final String CWD =
      "file:" + Paths.get("").toAbsolutePath().toUri().getPath().replaceAll("/$", "");

  static Configuration withDefaultFs(String uri) {
    Configuration conf = new Configuration(false);
    conf.set("fs.defaultFS", uri);
    return conf;
  }

  @Test
  void withoutAConfLocalPathsBecomeFileUris() {
    assertThat(HadoopFileIO.qualify("/data/items/")).isEqualTo("file:/data/items");
    assertThat(HadoopFileIO.qualify("rel/items")).isEqualTo(CWD + "/rel/items");
    assertThat(HadoopFileIO.qualify("rel/../items")).isEqualTo(CWD + "/items");
    assertThat(HadoopFileIO.qualify("s3a://bucket/items/")).isEqualTo("s3a://bucket/items");
    assertThat(HadoopFileIO.qualify("/data/items", null)).isEqualTo("file:/data/items");
  }

  @Test
  void aLocalDefaultFileSystemQualifiesAsWithoutAConf() {
    Configuration local = withDefaultFs("file:///");
    for (String location :
        new String[] {"/data/items/", "rel/items", "rel/../items", "file:/x/y", "s3a://b/k"}) {
      assertThat(HadoopFileIO.qualify(location, local))
          .as(location)
          .isEqualTo(HadoopFileIO.qualify(location));
    }
  }

  @Test
  void schemeLessPathsBelongToAnotherDefaultFileSystem() {
    Configuration hdfs = withDefaultFs("hdfs://127.0.0.1:9");
    assertThat(HadoopFileIO.qualify("/data/items/", hdfs))
        .isEqualTo("hdfs://127.0.0.1:9/data/items");
    // relative: against the file system's working directory (the user's home on HDFS), never the
    // JVM's
    String relative = HadoopFileIO.qualify("rel/items", hdfs);
    assertThat(relative).startsWith("hdfs://127.0.0.1:9/user/").endsWith("/rel/items");
    assertThat(relative).doesNotContain(Path.of("").toAbsolutePath().toString());
    // a location with a scheme keeps it
    assertThat(HadoopFileIO.qualify("file:/tmp/items", hdfs)).isEqualTo("file:/tmp/items");
    assertThat(HadoopFileIO.qualify("s3a://bucket/items", hdfs)).isEqualTo("s3a://bucket/items");
  }

  @Test
  void anUnknownDefaultFileSystemIsAClearError() {
    assertThatThrownBy(() -> HadoopFileIO.qualify("/data/items", withDefaultFs("nosuchfs://x")))
        .isInstanceOf(StorageException.class)
        .hasMessageContaining(
            "Cannot resolve dataset location /data/items against the default file system "
                + "nosuchfs://x")
        .hasMessageContaining("Give the location as a full URI");
  }
}
