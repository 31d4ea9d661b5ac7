package dev.lancelot.engine;

import dev.lancelot.engine.internal.table.DatasetPaths;
import dev.lancelot.engine.internal.table.Refs;
import dev.lancelot.engine.internal.table.VersionLog;
import dev.lancelot.engine.io.FileIO;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The tags of a dataset ({@link Dataset#tags()}), read and written in Lance 7's layout: one JSON
 * file per tag under {@code _refs/tags/} at the dataset root, whatever branch the dataset was
 * opened on. A tag keeps its version from {@link Dataset#cleanup}.
 *
 * <p>Names follow Lance's rules (letters, digits, {@code .}, {@code -}, {@code _}; not starting or
 * ending with a dot, no {@code ..}); any other name is refused before a path is built from it.
 * Every failure (an unknown tag, an existing one, a version that does not exist) is an {@link
 * InvalidInputException} naming the tag and changes nothing.
 */
public final class Tags {
  private final FileIO io;
  private final Refs refs;

  Tags(FileIO io, String root) {
    this.io = io;
    this.refs = new Refs(io, root);
  }

  /** Every tag, sorted by name. */
  public List<Tag> list() {
    return refs.tags().stream().map(Tags::toTag).toList();
  }

  /** The tag {@code name}, if it exists. */
  public Optional<Tag> find(String name) {
    return refs.findTag(name).map(Tags::toTag);
  }

  /** The tag {@code name}; an error naming the dataset's tags when it does not exist. */
  public Tag get(String name) {
    return toTag(refs.tag(name));
  }

  /** The version tag {@code name} points at (on its branch: see {@link Tag#branch()}). */
  public long version(String name) {
    return refs.tag(name).version();
  }

  /** Creates tag {@code name} on {@code version} of the main branch. */
  public Tag create(String name, long version) {
    return create(name, version, Optional.empty());
  }

  /**
   * Creates tag {@code name} on {@code version} of {@code branch} (empty or {@code "main"}: the
   * main branch). Fails if the tag exists or the version does not.
   */
  public Tag create(String name, long version, Optional<String> branch) {
    Refs.checkTagName(name);
    Optional<String> b = branch.filter(x -> !x.equals(Refs.MAIN));
    long size = manifestSize(name, version, b);
    Instant now = Instant.now();
    Refs.TagFile tag =
        new Refs.TagFile(name, b, version, size, Optional.of(now), Optional.of(now), Map.of());
    refs.createTag(tag);
    return toTag(tag);
  }

  /** Moves tag {@code name} to {@code version} of the main branch. */
  public Tag update(String name, long version) {
    return update(name, version, Optional.empty());
  }

  /**
   * Moves tag {@code name} to {@code version} of {@code branch}, keeping its creation time and
   * metadata. Fails if the tag or the version does not exist.
   */
  public Tag update(String name, long version, Optional<String> branch) {
    Refs.TagFile old = refs.tag(name);
    Optional<String> b = branch.filter(x -> !x.equals(Refs.MAIN));
    long size = manifestSize(name, version, b);
    Refs.TagFile tag =
        new Refs.TagFile(
            name, b, version, size, old.createdAt(), Optional.of(Instant.now()), old.metadata());
    refs.replaceTag(tag);
    return toTag(tag);
  }

  /** Deletes tag {@code name}; an error when it does not exist. The version stays. */
  public void delete(String name) {
    refs.deleteTag(name);
  }

  /** The size of the manifest of {@code version} of {@code branch}; an error if there is none. */
  private long manifestSize(String tag, long version, Optional<String> branch) {
    if (version < 1) {
      throw new InvalidInputException(
          "Cannot tag version " + version + " as \"" + tag + "\": versions start at 1.");
    }
    String location = refs.root();
    if (branch.isPresent()) {
      refs.branch(branch.get()); // exists, else an error naming the branches
      location = Refs.branchLocation(refs.root(), branch.get());
    }
    DatasetPaths paths = new DatasetPaths(location);
    Optional<VersionLog.Entry> entry = VersionLog.find(io, paths, version);
    if (entry.isEmpty()) {
      List<VersionLog.Entry> all = VersionLog.list(io, paths);
      throw new InvalidInputException(
          "Cannot tag version "
              + version
              + (branch.isPresent() ? " of branch \"" + branch.get() + "\"" : "")
              + " of "
              + refs.root()
              + " as \""
              + tag
              + "\": no such version"
              + (all.isEmpty() ? "" : " (versions: " + DatasetStorage.availableVersions(all) + ")")
              + ".");
    }
    VersionLog.Entry e = entry.get();
    if (e.size() >= 0) {
      return e.size();
    }
    try (var in = io.newInputFile(e.location())) {
      return in.length();
    }
  }

  private static Tag toTag(Refs.TagFile t) {
    return new Tag(t.name(), t.branch(), t.version(), t.createdAt(), t.updatedAt(), t.metadata());
  }
}
