package dev.lancelot.engine.distributed;

import dev.lancelot.engine.FragmentMetadata;
import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * One task's writer of a distributed write ({@link DistributedWrite#newFragmentWriter}): batches go
 * into new data files under the dataset's {@code data/} directory, one fragment per file, a new
 * file every {@code maxRowsPerFile} rows. Nothing is visible to readers until the fragments are
 * committed ({@link DistributedWrite#commit}); {@link #abort()} deletes every file written. Not
 * thread-safe: one writer per task.
 */
public final class FragmentWriter implements AutoCloseable {
  private final dev.lancelot.engine.internal.write.FragmentWriter writer;

  FragmentWriter(dev.lancelot.engine.internal.write.FragmentWriter writer) {
    this.writer = writer;
  }

  /**
   * Writes one batch; its columns are the target schema's, by name, in the target's own types.
   *
   * @throws dev.lancelot.engine.SchemaMismatchException if the batch does not match the schema
   */
  public void write(VectorSchemaRoot batch) {
    writer.write(batch);
  }

  /**
   * Completes the last file and returns every fragment written, in order: what the task sends to
   * the coordinator ({@link FragmentMetadata#toBytes()}).
   */
  public List<FragmentMetadata> finish() {
    return writer.finish();
  }

  /** Deletes every file this writer wrote, finished or not. */
  public void abort() {
    writer.abort();
  }

  /** Releases the writer; a file still open is deleted (as by {@link #abort()}). */
  @Override
  public void close() {
    writer.close();
  }
}
