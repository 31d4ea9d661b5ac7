package dev.lancelot.engine.internal.table;

import dev.lancelot.engine.internal.file.FileStructureCache;
import dev.lancelot.engine.internal.util.MemoryCache;
import dev.lancelot.engine.io.FileIO;
import org.apache.arrow.memory.BufferAllocator;

/**
 * What every operation on one dataset shares: its storage, its locations, the allocator results are
 * allocated from, the cache of the session it was opened in (index segments), and the metadata of
 * the data files it opened (shared by every version checked out from it, held in that cache).
 * Thread-safe.
 */
public record DatasetContext(
    FileIO io,
    DatasetPaths paths,
    BufferAllocator allocator,
    MemoryCache cache,
    FileStructureCache files) {
  /** A context whose data files' metadata is cached in {@code cache}. */
  public DatasetContext(
      FileIO io, DatasetPaths paths, BufferAllocator allocator, MemoryCache cache) {
    this(io, paths, allocator, cache, new FileStructureCache(cache));
  }

  /**
   * The same dataset context, sharing storage, cache and data files' metadata, with results
   * allocated from {@code other} (e.g. one task's allocator).
   */
  public DatasetContext withAllocator(BufferAllocator other) {
    return new DatasetContext(io, paths, other, cache, files);
  }
}
