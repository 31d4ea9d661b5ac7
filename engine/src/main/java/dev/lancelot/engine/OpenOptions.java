package dev.lancelot.engine;

import java.util.OptionalLong;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.hadoop.conf.Configuration;

/**
 * How to open a dataset: which version (latest when absent), the Hadoop configuration for the store
 * (credentials, endpoints), the Arrow allocator results are allocated from (a private one, closed
 * with the dataset, when absent), and the {@link Session} whose caches it uses (the shared one when
 * absent).
 */
public final class OpenOptions {
  private final OptionalLong version;
  private final Configuration hadoopConf;
  private final BufferAllocator allocator;
  private final Session session;

  private OpenOptions(
      OptionalLong version, Configuration hadoopConf, BufferAllocator allocator, Session session) {
    this.version = version;
    this.hadoopConf = hadoopConf;
    this.allocator = allocator;
    this.session = session;
  }

  public static OpenOptions defaults() {
    return new OpenOptions(OptionalLong.empty(), null, null, null);
  }

  public OpenOptions withVersion(long version) {
    if (version < 1) {
      throw new InvalidInputException("Cannot open version " + version + ": versions start at 1");
    }
    return new OpenOptions(OptionalLong.of(version), hadoopConf, allocator, session);
  }

  public OpenOptions withHadoopConf(Configuration conf) {
    return new OpenOptions(version, conf, allocator, session);
  }

  /** Results are allocated from {@code allocator}, which the caller keeps and closes. */
  public OpenOptions withAllocator(BufferAllocator allocator) {
    return new OpenOptions(version, hadoopConf, allocator, session);
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
    return new OpenOptions(version, hadoopConf, allocator, session);
  }

  public OptionalLong version() {
    return version;
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
