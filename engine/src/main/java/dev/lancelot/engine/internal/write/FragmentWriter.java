package dev.lancelot.engine.internal.write;

import dev.lancelot.engine.FragmentMetadata;
import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.LancelotException;
import dev.lancelot.engine.SchemaMismatchException;
import dev.lancelot.engine.WriteOptions;
import dev.lancelot.engine.internal.DatasetInternals;
import dev.lancelot.engine.internal.file.FileVersion;
import dev.lancelot.engine.internal.file.LanceFileWriter;
import dev.lancelot.engine.internal.file.WriteSummary;
import dev.lancelot.engine.internal.file.WriterOptions;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFile;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFragment;
import dev.lancelot.engine.internal.table.DatasetContext;
import dev.lancelot.engine.io.PositionOutputStream;
import dev.lancelot.engine.schema.LanceSchema;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.UUID;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Field;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes batches into new data files under {@code data/}, one fragment per file, starting a new
 * file every {@code maxRowsPerFile} rows. Nothing is visible to readers until the fragments are
 * committed; {@link #abort()} deletes every file written. The options' data storage version must be
 * resolved ({@link WriteOptions#resolvedFor}): it is the format of every file written. Not
 * thread-safe: one writer per task.
 */
public final class FragmentWriter implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(FragmentWriter.class);
  private final DatasetContext ctx;
  private final LanceSchema schema;
  private final WriteOptions options;
  private final Runnable onClose;
  private final WriterOptions fileOptions;
  private final List<FragmentMetadata> written = new ArrayList<>();
  private final List<String> files = new ArrayList<>();
  private LanceFileWriter current;
  private String currentPath;
  private long currentRows;
  private boolean closed;

  /**
   * Where new data files go: {@code dir} (fully qualified) with {@code baseId} recorded in their
   * manifest entries, or the dataset's {@code data/} ({@link #ROOT}).
   */
  public record Target(String dir, Integer baseId) {
    public static final Target ROOT = new Target(null, null);
  }

  private final Target target;

  private FragmentWriter(
      DatasetContext ctx,
      LanceSchema schema,
      WriteOptions options,
      Target target,
      Runnable onClose) {
    if (options.targetBase() != null && target.dir() == null) {
      throw new InvalidInputException(
          "Cannot write to base \""
              + options.targetBase()
              + "\" of "
              + ctx.paths().root()
              + ": this kind of write puts its files at the dataset root; Dataset.write and the "
              + "tasks of a distributed write take a target base.");
    }
    this.target = target;
    this.ctx = ctx;
    this.schema = schema;
    this.options = options;
    this.onClose = onClose;
    if (options.dataStorageVersion() == null) {
      throw new IllegalStateException(
          "The file version of a fragment writer must be resolved (WriteOptions.resolvedFor)");
    }
    this.fileOptions =
        WriterOptions.defaults()
            .withVersion(
                options.dataStorageVersion().equals("2.2") ? FileVersion.V2_2 : FileVersion.V2_1);
  }

  public static FragmentWriter open(
      DatasetContext ctx, LanceSchema schema, WriteOptions options, Runnable onClose) {
    return new FragmentWriter(ctx, schema, options, Target.ROOT, onClose);
  }

  /** As {@link #open(DatasetContext, LanceSchema, WriteOptions, Runnable)}, into {@code target}. */
  public static FragmentWriter open(
      DatasetContext ctx,
      LanceSchema schema,
      WriteOptions options,
      Target target,
      Runnable onClose) {
    return new FragmentWriter(ctx, schema, options, target, onClose);
  }

  /** Writes every batch, then returns the fragments; on failure deletes what it wrote. */
  public static List<FragmentMetadata> write(
      DatasetContext ctx,
      LanceSchema schema,
      Iterator<VectorSchemaRoot> batches,
      WriteOptions options) {
    return write(ctx, schema, batches, options, Target.ROOT);
  }

  /**
   * As {@link #write(DatasetContext, LanceSchema, Iterator, WriteOptions)}, into {@code target}.
   */
  public static List<FragmentMetadata> write(
      DatasetContext ctx,
      LanceSchema schema,
      Iterator<VectorSchemaRoot> batches,
      WriteOptions options,
      Target target) {
    try (FragmentWriter w = new FragmentWriter(ctx, schema, options, target, () -> {})) {
      try {
        while (batches.hasNext()) {
          w.write(batches.next());
        }
        return w.finish();
      } catch (RuntimeException e) {
        w.abort();
        throw e;
      }
    }
  }

  /** The batches of an Arrow reader; each is valid until the next is requested. */
  public static Iterator<VectorSchemaRoot> batchesOf(ArrowReader reader) throws IOException {
    VectorSchemaRoot root = reader.getVectorSchemaRoot();
    return new Iterator<>() {
      private Boolean ready;

      @Override
      public boolean hasNext() {
        if (ready == null) {
          try {
            ready = reader.loadNextBatch();
          } catch (IOException e) {
            throw new LancelotException("Cannot read the input data: " + e.getMessage(), e);
          }
        }
        return ready;
      }

      @Override
      public VectorSchemaRoot next() {
        if (!hasNext()) {
          throw new NoSuchElementException();
        }
        ready = null;
        return root;
      }
    };
  }

  /**
   * Appends a batch; its columns are matched to the schema by name and must be exactly the
   * schema's.
   */
  public void write(VectorSchemaRoot batch) {
    if (closed) {
      throw new IllegalStateException("Fragment writer is closed");
    }
    checkColumns(batch);
    int offset = 0;
    int rows = batch.getRowCount();
    while (offset < rows) {
      if (current == null) {
        startFile();
      }
      int room = (int) Math.min(Integer.MAX_VALUE, options.maxRowsPerFile() - currentRows);
      int n = Math.min(room, rows - offset);
      if (offset == 0 && n == rows) {
        current.write(batch);
      } else {
        try (VectorSchemaRoot part = batch.slice(offset, n)) {
          current.write(part);
        }
      }
      currentRows += n;
      offset += n;
      if (currentRows >= options.maxRowsPerFile()) {
        finishFile();
      }
    }
  }

  private void checkColumns(VectorSchemaRoot batch) {
    List<String> expected = schema.names();
    List<String> actual = batch.getSchema().getFields().stream().map(Field::getName).toList();
    if (actual.size() != expected.size() || !actual.containsAll(expected)) {
      throw new SchemaMismatchException(
          "Cannot write to "
              + ctx.paths().root()
              + ": the data has columns "
              + actual
              + " but the dataset's schema has "
              + expected
              + ".");
    }
  }

  private void startFile() {
    String name = UUID.randomUUID().toString().replace("-", "") + ".lance";
    currentPath = name;
    String location = location(name);
    files.add(location); // tracked before it exists, so that an abort at any point deletes it
    PositionOutputStream out = ctx.io().create(location);
    String blobDirectory = name.substring(0, name.length() - ".lance".length()) + "/";
    current =
        LanceFileWriter.create(
            out,
            schema,
            fileOptions,
            blobFile -> {
              String blobLocation = ctx.paths().dataFile(blobDirectory + blobFile);
              files.add(blobLocation); // deleted with the data file on abort
              return ctx.io().create(blobLocation);
            });
    currentRows = 0;
  }

  private String location(String name) {
    return target.dir() == null ? ctx.paths().dataFile(name) : target.dir() + "/" + name;
  }

  private void finishFile() {
    WriteSummary summary = current.finish();
    current = null;
    DataFile.Builder file =
        DataFile.newBuilder()
            .setPath(currentPath)
            .addAllFields(Arrays.stream(summary.fieldIds()).boxed().toList())
            .addAllColumnIndices(Arrays.stream(summary.columnIndices()).boxed().toList())
            .setFileMajorVersion(summary.version().manifestMajor())
            .setFileMinorVersion(summary.version().manifestMinor())
            .setFileSizeBytes(summary.fileSizeBytes());
    if (target.baseId() != null) {
      file.setBaseId(target.baseId());
    }
    written.add(
        DatasetInternals.fragmentMetadata(
            DataFragment.newBuilder().addFiles(file).setPhysicalRows(summary.numRows()).build()));
    LOG.debug(
        "Wrote data file {} ({} rows, {} bytes)",
        currentPath,
        summary.numRows(),
        summary.fileSizeBytes());
  }

  /** Completes the last file and returns every fragment written, in order. */
  public List<FragmentMetadata> finish() {
    if (current != null) {
      if (currentRows > 0) {
        finishFile();
      } else {
        abortCurrent();
      }
    }
    closed = true;
    return List.copyOf(written);
  }

  private void abortCurrent() {
    current.close();
    current = null;
    String location = location(currentPath);
    ctx.io().delete(location);
    files.remove(location);
  }

  /** Deletes every file this writer wrote (finished or not). */
  public void abort() {
    if (current != null) {
      try {
        current.close();
      } catch (RuntimeException e) {
        // e.g. the task was interrupted mid-write and its file channel is closed; the file goes
        // anyway
        LOG.debug("Closing the data file being written failed during abort: {}", e.toString());
      }
      current = null;
    }
    for (String f : files) {
      try {
        ctx.io().delete(f);
      } catch (RuntimeException e) {
        LOG.warn("Could not delete uncommitted data file {}: {}", f, e.getMessage());
      }
    }
    files.clear();
    written.clear();
    closed = true;
  }

  @Override
  public void close() {
    if (current != null) {
      abort();
    }
    closed = true;
    onClose.run();
  }
}
