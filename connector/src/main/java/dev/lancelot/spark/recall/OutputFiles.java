package dev.lancelot.spark.recall;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * Small whole-file reads and writes on any Hadoop file system, for the job's outputs and inputs.
 */
final class OutputFiles {
  private final Configuration conf;

  OutputFiles(Configuration conf) {
    this.conf = conf;
  }

  boolean exists(String location) {
    try {
      Path p = new Path(location);
      return p.getFileSystem(conf).exists(p);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot check " + location + ": " + e.getMessage(), e);
    }
  }

  byte[] read(String location) {
    Path p = new Path(location);
    try (InputStream in = p.getFileSystem(conf).open(p)) {
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + location + ": " + e.getMessage(), e);
    }
  }

  /** Writes (replacing) the whole file. */
  void write(String location, byte[] bytes) {
    write(location, out -> out.write(bytes));
  }

  void write(String location, Writer writer) {
    Path p = new Path(location);
    try {
      FileSystem fs = p.getFileSystem(conf);
      try (OutputStream out = fs.create(p, true)) {
        writer.write(out);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write " + location + ": " + e.getMessage(), e);
    }
  }

  static String child(String dir, String name) {
    return dir.replaceAll("/+$", "") + "/" + name;
  }

  @FunctionalInterface
  interface Writer {
    void write(OutputStream out) throws IOException;
  }
}
