package dev.lancelot.engine.io;

import java.io.Closeable;
import java.util.List;

/**
 * The narrow storage interface of the engine. Locations are fully-qualified URIs ({@code file:/…},
 * {@code hdfs://…}, {@code s3a://…}). Implementations are thread-safe.
 */
public interface FileIO extends Closeable {
  InputFile newInputFile(String location);

  /**
   * Opens {@code location} for reading when its length is already known (saves a metadata call).
   */
  default InputFile newInputFile(String location, long knownLength) {
    return newInputFile(location);
  }

  /**
   * Creates a new file for writing. Fails if the file exists. The file may become visible to
   * readers before the stream is closed, so callers only write files under fresh unique names.
   */
  PositionOutputStream create(String location);

  boolean exists(String location);

  /** Non-recursive listing; an absent directory lists as empty. */
  List<FileEntry> list(String directory);

  /** Deletes a file; returns false when it did not exist. */
  boolean delete(String location);

  /** Deletes a directory and everything under it; returns false when it did not exist. */
  boolean deleteRecursively(String location);

  /**
   * Atomically creates {@code location} with {@code content} if and only if it does not exist.
   * Returns false, leaving the existing file untouched, when another writer got there first.
   * Readers never observe a partially-written file under {@code location}. See {@link
   * #atomicityGuarantee(String)} for what each store provides.
   */
  boolean putIfAbsent(String location, byte[] content);

  /**
   * Writes {@code content} to {@code location}, replacing any existing file. Only for advisory
   * files such as the version hint: on object stores readers may see either version.
   */
  void overwrite(String location, byte[] content);

  /**
   * Human-readable statement of the put-if-absent guarantee for the store holding {@code location}.
   */
  String atomicityGuarantee(String location);

  /** Counters of bytes and requests served, for tests and "analyze" output. */
  IoStats stats();

  @Override
  void close();
}
