package dev.lancelot.engine;

import java.util.Optional;

/**
 * One base path a version registers (manifest {@code base_paths}, Lance's multi-base datasets and
 * shallow clones): data files, deletion files and index segments whose manifest entries name its id
 * live under it instead of under the dataset root.
 *
 * @param id the id manifest entries refer to
 * @param name the base's name, if it has one (writes name a target base by it)
 * @param path the path as the manifest records it
 * @param datasetRoot whether the base is a dataset root (files under its {@code data/}, {@code
 *     _deletions/}, {@code _indices/}) rather than a plain directory of files
 * @param location {@code path} fully qualified
 */
public record BasePathInfo(
    int id, Optional<String> name, String path, boolean datasetRoot, String location) {

  /**
   * Whether a write naming target base {@code nameOrPath} means this base: its name, its path as
   * recorded, or its location.
   */
  public boolean matches(String nameOrPath) {
    return name.filter(nameOrPath::equals).isPresent()
        || path.equals(nameOrPath)
        || location.equals(nameOrPath);
  }
}
