package dev.lancelot.engine;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Computes the values of added columns from a fragment's existing columns (see {@link
 * Dataset#addColumns(java.util.List, java.util.List, ColumnBackfill)}).
 *
 * <p>Called once per batch of each fragment's rows, in row order; the batch holds every physical
 * row of the fragment, deleted ones included (their values are stored but never read). Must return
 * a new batch, allocated from {@code allocator}, holding exactly the added columns (by name) and as
 * many rows as {@code input}; the engine closes it. {@code input} belongs to the engine.
 * Implementations may be called from one thread at a time per dataset operation.
 */
@FunctionalInterface
public interface ColumnBackfill {
  VectorSchemaRoot compute(long fragmentId, VectorSchemaRoot input, BufferAllocator allocator);
}
