package dev.lancelot.engine.io;

import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * Put-if-absent on S3 as one conditional PUT (S3A's conditional create), for {@link HadoopFileIO}.
 */
final class ConditionalPut {
  /** The create-file option of S3A's conditional create (a PUT with {@code If-None-Match: *}). */
  static final String CONDITIONAL_CREATE = "fs.option.create.conditional.overwrite";

  private ConditionalPut() {}

  static boolean isS3(Path path) {
    String scheme = path.toUri().getScheme();
    return "s3a".equals(scheme) || "s3".equals(scheme) || "s3n".equals(scheme);
  }

  static boolean supported(FileSystem fs, Path path) {
    try {
      return fs.hasPathCapability(path, CONDITIONAL_CREATE);
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  /**
   * Put-if-absent as one conditional PUT: S3A sends the object with {@code If-None-Match: *} when
   * the stream is closed, and the store refuses it (412) when the key exists, atomically.
   */
  static boolean put(String location, FileSystem fs, Path target, byte[] content) {
    try {
      org.apache.hadoop.fs.FSDataOutputStreamBuilder<?, ?> builder = fs.createFile(target);
      builder.overwrite(false);
      builder.must(CONDITIONAL_CREATE, true);
      FSDataOutputStream out = builder.build();
      try (out) {
        out.write(content);
      }
      return true;
    } catch (org.apache.hadoop.fs.FileAlreadyExistsException e) {
      return false;
    } catch (IOException | UncheckedIOException e) {
      if (isPreconditionFailed(e)) {
        return false;
      }
      throw new StorageException("Cannot write " + location + ": " + e.getMessage(), e);
    }
  }

  /**
   * Whether {@code e} (or a cause) is the store's answer 412 Precondition Failed: S3A reports it as
   * {@code RemoteFileChangedException} (matched by name: the engine does not depend on {@code
   * hadoop-aws}), with the SDK's {@code PreconditionFailed} error as its cause.
   */
  private static boolean isPreconditionFailed(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof org.apache.hadoop.fs.FileAlreadyExistsException
          || t.getClass().getName().equals("org.apache.hadoop.fs.s3a.RemoteFileChangedException")) {
        return true;
      }
      String m = String.valueOf(t.getMessage());
      if (m.contains("PreconditionFailed") || m.contains("Precondition Failed")) {
        return true;
      }
    }
    return false;
  }
}
