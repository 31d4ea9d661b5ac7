package dev.lancelot.engine;

/**
 * A base path a new dataset registers (Lance's {@code initial_bases}, {@code BasePath}): another
 * location whose data files, deletion files and index segments the dataset's manifest entries can
 * name by the base's id. Bases are registered only when a dataset is created ({@link
 * WriteOptions#withInitialBases}); ids are given in order from 1 (decision D68).
 *
 * @param name the base's name, by which writes name it as their target base; {@code null} for none
 *     (then the path names it)
 * @param path an absolute URI with a scheme the dataset's file system configuration reaches ({@code
 *     s3://bucket/dir}, {@code file:///data/dir}), or an absolute path on the dataset root's file
 *     system ({@code /data/dir}, which is how Lance records local bases); no {@code .} or {@code
 *     ..} segments, query or fragment
 * @param datasetRoot whether the base is laid out as a dataset root (data files under its {@code
 *     data/}) rather than a plain directory of data files
 */
public record InitialBase(String name, String path, boolean datasetRoot) {
  /** A named base that is a dataset root. */
  public static InitialBase datasetRoot(String name, String path) {
    return new InitialBase(name, path, true);
  }

  /** A named base that is a plain directory of data files. */
  public static InitialBase directory(String name, String path) {
    return new InitialBase(name, path, false);
  }
}
