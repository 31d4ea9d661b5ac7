package dev.lancelot.engine.table;

import dev.lancelot.engine.io.FileIO;
import org.apache.arrow.memory.BufferAllocator;

/**
 * What every operation on one dataset shares: its storage, its locations and the allocator results
 * are allocated from. Thread-safe.
 */
public record DatasetContext(FileIO io, DatasetPaths paths, BufferAllocator allocator) {}
