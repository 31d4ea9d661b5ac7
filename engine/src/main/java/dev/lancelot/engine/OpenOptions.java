package dev.lancelot.engine;

import java.util.Optional;
import java.util.OptionalLong;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.hadoop.conf.Configuration;

/**
 * How to open a dataset: which version (latest when absent; or the version a tag names, or a
 * branch's), the Hadoop configuration for the store (credentials, endpoints), the Arrow allocator
 * results are allocated from (a private one, closed with the dataset, when absent), and the {@link
 * Session} whose caches it uses (the shared one when absent).
 */
public final class OpenOptions {
  private final OptionalLong version;
  private final Optional<String> tag;
  private final Optional<String> branch;
  private final Configuration hadoopConf;
  private final BufferAllocator allocator;
  private final Session session;

  private OpenOptions(
      OptionalLong version,
      Optional<String> tag,
      Optional<String> branch,
      Configuration hadoopConf,
      BufferAllocator allocator,
      Session session) {
    this.version = version;
    this.tag = tag;
    this.branch = branch;
    this.hadoopConf = hadoopConf;
    this.allocator = allocator;
    this.session = session;
  }

  public static OpenOptions defaults() {
    return new OpenOptions(
        OptionalLong.empty(), Optional.empty(), Optional.empty(), null, null, null);
  }

  /** Opens this version (of the branch, with {@link #withBranch}). Not with a tag. */
  public OpenOptions withVersion(long version) {
    if (version < 1) {
      throw new InvalidInputException("Cannot open version " + version + ": versions start at 1");
    }
    if (tag.isPresent()) {
      throw bothTagAnd("a version (" + version + ")");
    }
    return new OpenOptions(OptionalLong.of(version), tag, branch, hadoopConf, allocator, session);
  }

  /**
   * Opens the version tag {@code name} points at, on the branch the tag names (Lance's {@code
   * checkout_tag}). The tag is read when the dataset is opened; a tag that does not exist is an
   * error naming the dataset's tags. Not with a version or a branch: the tag names both.
   */
  public OpenOptions withTag(String name) {
    dev.lancelot.engine.internal.table.Refs.checkTagName(name);
    if (version.isPresent()) {
      throw bothTagAnd("a version (" + version.getAsLong() + ")");
    }
    if (branch.isPresent()) {
      throw bothTagAnd("a branch (\"" + branch.get() + "\")");
    }
    return new OpenOptions(version, Optional.of(name), branch, hadoopConf, allocator, session);
  }

  /**
   * Opens branch {@code name} (its latest version, or the one {@link #withVersion} gives), whose
   * versions live under {@code <dataset>/tree/<name>/}. The name is checked with Lance's rules (no
   * name can reach outside the dataset); a branch that does not exist is an error naming the
   * dataset's branches. {@code "main"} is the dataset itself.
   */
  public OpenOptions withBranch(String name) {
    if (tag.isPresent()) {
      throw bothTagAnd("a branch (\"" + name + "\")");
    }
    if (dev.lancelot.engine.internal.table.Refs.MAIN.equals(name)) {
      return new OpenOptions(version, tag, Optional.empty(), hadoopConf, allocator, session);
    }
    dev.lancelot.engine.internal.table.Refs.checkBranchName(name);
    return new OpenOptions(version, tag, Optional.of(name), hadoopConf, allocator, session);
  }

  private InvalidInputException bothTagAnd(String other) {
    return new InvalidInputException(
        "Cannot open a dataset by tag and by "
            + other
            + " at once: the tag names the version and its branch. Give one of them.");
  }

  public OpenOptions withHadoopConf(Configuration conf) {
    return new OpenOptions(version, tag, branch, conf, allocator, session);
  }

  /** Results are allocated from {@code allocator}, which the caller keeps and closes. */
  public OpenOptions withAllocator(BufferAllocator allocator) {
    return new OpenOptions(version, tag, branch, hadoopConf, allocator, session);
  }

  /**
   * The dataset caches its data files' metadata and index segments in {@code session} instead of
   * the shared one.
   */
  public OpenOptions withSession(Session session) {
    if (session == null) {
      throw new InvalidInputException(
          "Cannot open with no session: pass a Session, or leave it unset for Session.shared()");
    }
    return new OpenOptions(version, tag, branch, hadoopConf, allocator, session);
  }

  public OptionalLong version() {
    return version;
  }

  /** The tag set with {@link #withTag}. */
  public Optional<String> tag() {
    return tag;
  }

  /** The branch set with {@link #withBranch} (empty for the main branch). */
  public Optional<String> branch() {
    return branch;
  }

  public Configuration hadoopConf() {
    return hadoopConf;
  }

  public BufferAllocator allocator() {
    return allocator;
  }

  /** The session set with {@link #withSession}, else {@link Session#shared()}. */
  public Session session() {
    return session != null ? session : Session.shared();
  }
}
