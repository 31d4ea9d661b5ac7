package dev.lancelot.engine.internal.table;

import dev.lancelot.engine.internal.file.FileStructureCache;
import dev.lancelot.engine.io.FileIO;
import org.apache.arrow.memory.BufferAllocator;

/**
 * What every operation on one dataset shares: its storage, its locations, the allocator results are
 * allocated from, and the metadata of the data files it opened (shared by every version checked out
 * from it). Thread-safe.
 */
public record DatasetContext(
    FileIO io, DatasetPaths paths, BufferAllocator allocator, FileStructureCache files) {
  public DatasetContext(FileIO io, DatasetPaths paths, BufferAllocator allocator) {
    this(io, paths, allocator, new FileStructureCache());
  }
}
