package dev.lancelot.engine.io;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.util.UUID;

/** Local files written with java.nio, for {@link HadoopFileIO}. */
final class LocalFiles {
  private LocalFiles() {}

  /**
   * Local files are created with java.nio: Hadoop's raw local file system sets permissions by
   * running {@code chmod} in a child process for every new file and directory (unless Hadoop's
   * native library is installed), which costs milliseconds per file.
   */
  static PositionOutputStream create(String location, java.nio.file.Path file) {
    try {
      if (file.getParent() != null) {
        Files.createDirectories(file.getParent());
      }
      java.io.OutputStream raw =
          Files.newOutputStream(
              file,
              java.nio.file.StandardOpenOption.CREATE_NEW,
              java.nio.file.StandardOpenOption.WRITE);
      java.io.BufferedOutputStream out = new java.io.BufferedOutputStream(raw, LOCAL_BUFFER_BYTES);
      return new PositionOutputStream() {
        private long position;

        @Override
        public long position() {
          return position;
        }

        @Override
        public void write(int b) throws IOException {
          out.write(b);
          position++;
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
          out.write(b, off, len);
          position += len;
        }

        @Override
        public void flush() throws IOException {
          out.flush();
        }

        @Override
        public void close() throws IOException {
          out.close();
        }
      };
    } catch (FileAlreadyExistsException e) {
      throw new StorageException("Cannot create " + location + ": the file already exists", e);
    } catch (IOException e) {
      throw new StorageException("Cannot create " + location + ": " + e.getMessage(), e);
    }
  }

  private static final int LOCAL_BUFFER_BYTES = 64 * 1024;

  /** Local put-if-absent: a hidden temporary file, then a hard link under the final name. */
  static boolean putIfAbsent(String location, java.nio.file.Path target, byte[] content) {
    java.nio.file.Path tmp =
        target.resolveSibling("." + target.getFileName() + "." + UUID.randomUUID() + ".tmp");
    try {
      Files.createDirectories(target.getParent());
      Files.write(
          tmp,
          content,
          java.nio.file.StandardOpenOption.CREATE_NEW,
          java.nio.file.StandardOpenOption.WRITE);
      try {
        Files.createLink(target, tmp);
        return true;
      } catch (FileAlreadyExistsException e) {
        return false;
      }
    } catch (IOException | UncheckedIOException e) {
      throw new StorageException("Cannot write " + location + ": " + e.getMessage(), e);
    } finally {
      try {
        Files.deleteIfExists(tmp);
      } catch (IOException ignored) {
        // A leftover hidden temporary file is harmless: readers ignore it.
      }
    }
  }
}
