package dev.lancelot.engine;

import java.util.OptionalLong;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.hadoop.conf.Configuration;

/**
 * How to open a dataset: which version (latest when absent), the Hadoop configuration for the store
 * (credentials, endpoints), and the Arrow allocator results are allocated from (a private one,
 * closed with the dataset, when absent).
 */
public final class OpenOptions {
  private final OptionalLong version;
  private final Configuration hadoopConf;
  private final BufferAllocator allocator;

  private OpenOptions(OptionalLong version, Configuration hadoopConf, BufferAllocator allocator) {
    this.version = version;
    this.hadoopConf = hadoopConf;
    this.allocator = allocator;
  }

  public static OpenOptions defaults() {
    return new OpenOptions(OptionalLong.empty(), null, null);
  }

  public OpenOptions withVersion(long version) {
    if (version < 1) {
      throw new InvalidInputException("Cannot open version " + version + ": versions start at 1");
    }
    return new OpenOptions(OptionalLong.of(version), hadoopConf, allocator);
  }

  public OpenOptions withHadoopConf(Configuration conf) {
    return new OpenOptions(version, conf, allocator);
  }

  /** Results are allocated from {@code allocator}, which the caller keeps and closes. */
  public OpenOptions withAllocator(BufferAllocator allocator) {
    return new OpenOptions(version, hadoopConf, allocator);
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
}
