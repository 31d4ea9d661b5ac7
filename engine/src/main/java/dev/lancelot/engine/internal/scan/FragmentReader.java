package dev.lancelot.engine.internal.scan;

import dev.lancelot.engine.LancelotException;
import dev.lancelot.engine.internal.file.CorruptFileException;
import dev.lancelot.engine.internal.file.FileProjection;
import dev.lancelot.engine.internal.file.LanceBatchReader;
import dev.lancelot.engine.internal.file.LanceFileException;
import dev.lancelot.engine.internal.file.LanceFileReader;
import dev.lancelot.engine.internal.file.VectorPages;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFile;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFragment;
import dev.lancelot.engine.internal.table.BasePaths;
import dev.lancelot.engine.internal.table.DatasetContext;
import dev.lancelot.engine.io.InputFile;
import dev.lancelot.engine.io.StorageException;
import dev.lancelot.engine.schema.LanceField;
import dev.lancelot.engine.schema.LanceSchema;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.util.TransferPair;

/**
 * Reads the columns of one fragment from its data files. A fragment may store its fields in several
 * data files (after columns were added); each requested top-level field is read from the file whose
 * {@code DataFile.fields} holds its leaves, opened lazily and at most once. A field that no data
 * file stores (a column added without values, as Lance's "all nulls" column addition) reads as
 * nulls in every row, as in Lance 2.x.
 *
 * <p>Not thread-safe: one reader per scan task. Closing it closes the files it opened.
 */
public final class FragmentReader implements AutoCloseable {
  private final DatasetContext ctx;
  private final DataFragment fragment;
  private final Map<Integer, OpenFile> open = new HashMap<>();
  private final String listedIn;
  private final BasePaths bases;

  /** {@link #fileOf} of a field no data file stores. */
  private static final int ABSENT = -1;

  private record OpenFile(DataFile meta, InputFile input, LanceFileReader reader) {}

  /**
   * {@code listedIn} is the manifest that lists the fragment: errors reading its data files name it
   * next to the data file, since a damaged manifest (a wrong column index or row count) shows up
   * only when the file is read.
   */
  public FragmentReader(
      DatasetContext ctx, DataFragment fragment, String listedIn, BasePaths bases) {
    this.ctx = ctx;
    this.fragment = fragment;
    this.listedIn = listedIn;
    this.bases = bases;
  }

  /** {@code e} with the fragment and the manifest listing it appended to its message. */
  private LancelotException inContext(LancelotException e) {
    String message =
        e.getMessage()
            + " (data file of fragment "
            + fragment.getId()
            + " as listed in "
            + listedIn
            + ")";
    if (e instanceof CorruptFileException) {
      return new CorruptFileException(message, e);
    }
    if (e instanceof LanceFileException) {
      return new LanceFileException(message, e);
    }
    if (e instanceof StorageException) {
      return new StorageException(message, e);
    }
    return new LancelotException(message, e);
  }

  /** Refuses rows beyond the data file's end: the manifest's row count of the fragment is wrong. */
  private void checkRows(OpenFile f, long end) {
    if (end > f.reader().numRows()) {
      throw new CorruptFileException(
          "Cannot read rows up to "
              + end
              + " of "
              + f.input().location()
              + ": it holds "
              + f.reader().numRows()
              + " rows, fewer than the manifest says");
    }
  }

  /** Batches of rows {@code [start, end)} of {@code fields}, as owned vectors in field order. */
  public BatchStream stream(List<LanceField> fields, long start, long end, int batchSize) {
    Map<Integer, List<Integer>> byFile = groupByFile(fields);
    List<LanceBatchReader> readers = new ArrayList<>();
    List<int[]> positions = new ArrayList<>();
    List<String> locations = new ArrayList<>();
    List<Integer> absentPositions = byFile.getOrDefault(ABSENT, List.of());
    List<Field> absent = new ArrayList<>();
    absentPositions.forEach(i -> absent.add(fields.get(i).toArrow()));
    try {
      for (Map.Entry<Integer, List<Integer>> e : byFile.entrySet()) {
        if (e.getKey() == ABSENT) {
          continue;
        }
        OpenFile f = file(e.getKey());
        List<LanceField> part = new ArrayList<>();
        e.getValue().forEach(i -> part.add(fields.get(i)));
        checkRows(f, end);
        readers.add(f.reader().read(projection(f, part), start, end, batchSize, ctx.allocator()));
        positions.add(e.getValue().stream().mapToInt(Integer::intValue).toArray());
        locations.add(f.input().location());
      }
    } catch (LancelotException e) {
      closeAll(readers);
      throw inContext(e);
    } catch (RuntimeException e) {
      closeAll(readers);
      throw e;
    }
    return new BatchStream(
        readers,
        positions,
        fields.size(),
        end - start,
        batchSize,
        locations,
        this::inContext,
        absent,
        absentPositions.stream().mapToInt(Integer::intValue).toArray(),
        ctx.allocator());
  }

  /** A vector of {@code rows} nulls of {@code field}'s type, owned by the caller. */
  static FieldVector nulls(
      Field field, int rows, org.apache.arrow.memory.BufferAllocator allocator) {
    FieldVector v = field.createVector(allocator);
    try {
      v.setInitialCapacity(rows);
      v.allocateNew(); // validity buffers start zeroed: every row null
      v.setValueCount(rows);
      return v;
    } catch (RuntimeException e) {
      v.close();
      throw e;
    }
  }

  /**
   * The vectors of {@code field} read straight from its data file's pages, or null when they cannot
   * be (see {@link LanceFileReader#vectorPages}); rows are fragment offsets.
   */
  public VectorPages vectorPages(LanceField field) {
    int index = fileOf(field);
    if (index == ABSENT) {
      return null;
    }
    OpenFile f = file(index);
    return f.reader().vectorPages(projection(f, List.of(field)));
  }

  /**
   * Rows at {@code sortedOffsets} (ascending) of {@code fields}, as one batch owned by the caller.
   */
  public VectorSchemaRoot take(List<LanceField> fields, long[] sortedOffsets) {
    FieldVector[] out = new FieldVector[fields.size()];
    try {
      for (Map.Entry<Integer, List<Integer>> e : groupByFile(fields).entrySet()) {
        if (e.getKey() == ABSENT) {
          for (int i : e.getValue()) {
            out[i] = nulls(fields.get(i).toArrow(), sortedOffsets.length, ctx.allocator());
          }
          continue;
        }
        OpenFile f = file(e.getKey());
        List<LanceField> part = new ArrayList<>();
        e.getValue().forEach(i -> part.add(fields.get(i)));
        if (sortedOffsets.length > 0) {
          checkRows(f, sortedOffsets[sortedOffsets.length - 1] + 1);
        }
        try (VectorSchemaRoot got =
            f.reader().take(projection(f, part), sortedOffsets, ctx.allocator())) {
          for (int k = 0; k < part.size(); k++) {
            out[e.getValue().get(k)] = detach(got.getVector(k));
          }
        }
      }
    } catch (LancelotException e) {
      for (FieldVector v : out) {
        if (v != null) {
          v.close();
        }
      }
      throw inContext(e);
    } catch (RuntimeException e) {
      for (FieldVector v : out) {
        if (v != null) {
          v.close();
        }
      }
      throw e;
    }
    List<Field> arrowFields = new ArrayList<>();
    List<FieldVector> vectors = new ArrayList<>();
    for (FieldVector v : out) {
      arrowFields.add(v.getField());
      vectors.add(v);
    }
    return new VectorSchemaRoot(arrowFields, vectors, sortedOffsets.length);
  }

  /**
   * Where the bytes of blob column {@code field} ({@link LanceField#isBlob()}) are at fragment
   * offset {@code offset}: the full location of the file holding them, their offset and size; null
   * when the value is null or no data file stores the column. Only the row's descriptor is read.
   */
  public dev.lancelot.engine.internal.file.BlobColumns.Location blobLocation(
      LanceField field, long offset) {
    int index = fileOf(field);
    if (index == ABSENT) {
      return null;
    }
    try {
      OpenFile f = file(index);
      checkRows(f, offset + 1);
      var l =
          f.reader()
              .blobLocations(projection(f, List.of(field)), new long[] {offset}, ctx.allocator())
              .get(0);
      if (l != null && l.size() == dev.lancelot.engine.internal.file.BlobColumns.TO_THE_END) {
        try (dev.lancelot.engine.io.InputFile in = ctx.io().newInputFile(l.file())) {
          return dev.lancelot.engine.internal.file.BlobColumns.resolve(l, in);
        }
      }
      if (l == null || l.file() != null) {
        return l;
      }
      return new dev.lancelot.engine.internal.file.BlobColumns.Location(
          f.input().location(), l.offset(), l.size());
    } catch (LancelotException e) {
      throw inContext(e);
    }
  }

  /** Moves a vector's buffers into a new vector the caller owns (no copy). */
  static FieldVector detach(FieldVector v) {
    TransferPair pair = v.getTransferPair(v.getAllocator());
    pair.transfer();
    return (FieldVector) pair.getTo();
  }

  private FileProjection projection(OpenFile f, List<LanceField> part) {
    LanceSchema output = LanceSchema.of(part, Map.of());
    int[] ids = f.meta().getFieldsList().stream().mapToInt(Integer::intValue).toArray();
    int[] cols = f.meta().getColumnIndicesList().stream().mapToInt(Integer::intValue).toArray();
    if (cols.length == 0) {
      // Older writers leave column_indices empty: columns follow the leaf fields in order.
      cols = new int[ids.length];
      for (int i = 0; i < cols.length; i++) {
        cols[i] = i;
      }
    }
    return FileProjection.fromDataFile(output, ids, cols);
  }

  /** Groups field positions by the index of the data file holding each field. */
  private Map<Integer, List<Integer>> groupByFile(List<LanceField> fields) {
    Map<Integer, List<Integer>> out = new LinkedHashMap<>();
    for (int i = 0; i < fields.size(); i++) {
      out.computeIfAbsent(fileOf(fields.get(i)), k -> new ArrayList<>()).add(i);
    }
    return out;
  }

  /**
   * The data file index of the field's columns (its leaves, or the packed structs holding them:
   * {@link LanceField#columnFields()}), or {@link #ABSENT} when no data file stores any of them.
   */
  private int fileOf(LanceField field) {
    List<LanceField> leaves = field.columnFields();
    boolean anyStored = false;
    for (int i = 0; i < fragment.getFilesCount(); i++) {
      List<Integer> ids = fragment.getFiles(i).getFieldsList();
      if (leaves.stream().allMatch(l -> ids.contains(l.id()))) {
        return i;
      }
      anyStored |= leaves.stream().anyMatch(l -> ids.contains(l.id()));
    }
    if (!anyStored) {
      return ABSENT;
    }
    throw new CorruptFileException(
        "Cannot read column \""
            + field.name()
            + "\" of fragment "
            + fragment.getId()
            + " of "
            + ctx.paths().root()
            + ": none of its data files stores it. The manifest "
            + listedIn
            + " is inconsistent.");
  }

  private OpenFile file(int index) {
    return open.computeIfAbsent(
        index,
        i -> {
          DataFile meta = fragment.getFiles(i);
          String location = bases.dataFile(meta);
          InputFile input =
              meta.getFileSizeBytes() > 0
                  ? ctx.io().newInputFile(location, meta.getFileSizeBytes())
                  : ctx.io().newInputFile(location);
          try {
            return new OpenFile(
                meta,
                input,
                LanceFileReader.open(input, ctx.files())
                    .withBlobFiles(ctx.io()::newInputFile)
                    .withExternalBlobRoot(ctx.paths().root()));
          } catch (LancelotException e) {
            input.close();
            throw inContext(e);
          } catch (RuntimeException e) {
            input.close();
            throw e;
          }
        });
  }

  @Override
  public void close() {
    open.values().forEach(f -> f.input().close());
    open.clear();
  }

  private static void closeAll(List<LanceBatchReader> readers) {
    for (LanceBatchReader r : readers) {
      try {
        r.close();
      } catch (IOException ignored) {
        // Closing only releases buffers.
      }
    }
  }

  /** Lock-step batches over one or more data files; each batch's vectors belong to the caller. */
  public static final class BatchStream implements AutoCloseable {
    private final List<LanceBatchReader> readers;
    private final List<int[]> positions;
    private final int width;
    private long remaining;
    private final int batchSize;
    private final List<String> locations;
    private final java.util.function.UnaryOperator<LancelotException> inContext;
    private final List<Field> absent;
    private final int[] absentPositions;
    private final org.apache.arrow.memory.BufferAllocator allocator;

    BatchStream(
        List<LanceBatchReader> readers,
        List<int[]> positions,
        int width,
        long rows,
        int batchSize,
        List<String> locations,
        java.util.function.UnaryOperator<LancelotException> inContext,
        List<Field> absent,
        int[] absentPositions,
        org.apache.arrow.memory.BufferAllocator allocator) {
      this.absent = absent;
      this.absentPositions = absentPositions;
      this.allocator = allocator;
      this.readers = readers;
      this.positions = positions;
      this.width = width;
      this.remaining = rows;
      this.batchSize = batchSize;
      this.locations = locations;
      this.inContext = inContext;
    }

    /** The next batch's vectors in field order, or null after the last batch. */
    public FieldVector[] next() {
      if (remaining <= 0) {
        return null;
      }
      FieldVector[] out = new FieldVector[width];
      try {
        for (int r = 0; r < readers.size(); r++) {
          LanceBatchReader reader = readers.get(r);
          if (!reader.loadNextBatch()) {
            throw new CorruptFileException(
                "Cannot read "
                    + locations.get(r)
                    + ": it ended "
                    + remaining
                    + " rows before the fragment's row count.");
          }
          VectorSchemaRoot root = reader.getVectorSchemaRoot();
          int[] pos = positions.get(r);
          for (int k = 0; k < pos.length; k++) {
            out[pos[k]] = detach(root.getVector(k));
          }
        }
        int rows = (int) Math.min(remaining, batchSize);
        for (int k = 0; k < absentPositions.length; k++) {
          out[absentPositions[k]] = nulls(absent.get(k), rows, allocator);
        }
      } catch (IOException | RuntimeException e) {
        for (FieldVector v : out) {
          if (v != null) {
            v.close();
          }
        }
        if (e instanceof LancelotException le) {
          throw inContext.apply(le);
        }
        if (e instanceof RuntimeException re) {
          throw re;
        }
        throw new LancelotException(
            "Cannot read a batch of " + String.join(", ", locations) + ": " + e.getMessage(), e);
      }
      remaining -= Math.min(remaining, batchSize);
      return out;
    }

    @Override
    public void close() {
      closeAll(readers);
    }
  }
}
