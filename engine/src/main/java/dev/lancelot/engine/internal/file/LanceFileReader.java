package dev.lancelot.engine.internal.file;

import dev.lancelot.engine.internal.file.arrow.ColumnSink;
import dev.lancelot.engine.internal.file.arrow.FieldSink;
import dev.lancelot.engine.internal.file.arrow.LeafSinks;
import dev.lancelot.engine.internal.file.arrow.PackedMembers;
import dev.lancelot.engine.internal.file.arrow.Sinks;
import dev.lancelot.engine.internal.file.codec.DecodeException;
import dev.lancelot.engine.internal.file.container.FileMetadata;
import dev.lancelot.engine.internal.file.layout.PageIo;
import dev.lancelot.engine.internal.file.layout.RowSource;
import dev.lancelot.engine.io.ByteRange;
import dev.lancelot.engine.io.InputFile;
import dev.lancelot.engine.schema.LanceField;
import dev.lancelot.engine.schema.LanceSchema;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * Reads a Lance data file (format 2.1; 2.2 files whose pages use only 2.1 constructs plus the 2.2
 * chunk and constant extensions).
 *
 * <pre>{@code
 * LanceFileReader reader = LanceFileReader.open(fileIO.newInputFile(path));
 * FileProjection p = FileProjection.ofNames(reader.schema(), List.of("id", "vec"));
 * try (LanceBatchReader batches = reader.read(p, 0, reader.numRows(), 8192, allocator)) {
 *   while (batches.loadNextBatch()) { VectorSchemaRoot root = batches.getVectorSchemaRoot(); ... }
 * }
 * try (VectorSchemaRoot rows = reader.take(p, new long[] {3, 17, 4096}, allocator)) { ... }
 * }</pre>
 *
 * <p>Opening reads the footer, schema and column metadata (one tail read). Reads fetch only the
 * projected columns' pages that overlap the requested rows; takes fetch only the mini-block chunks
 * or full-zip values holding the requested rows.
 *
 * <p>Thread-safety: a reader is immutable after {@link #open} (page metadata is loaded lazily and
 * safely published) and may be shared by threads; each {@link LanceBatchReader} is for one thread.
 * The reader does not own the {@link InputFile}: whoever opened it closes it.
 */
public final class LanceFileReader {
  /** Encoded bytes a scan loads per column at a time (pages larger than this are read in parts). */
  public static final long DEFAULT_WINDOW_BYTES = 8L * 1024 * 1024;

  private final InputFile file;
  private final FileMetadata metadata;
  private final ColumnReader[] columns;
  final PageIo io; // VectorPages.open reads through it too
  private final Structure structure;
  private final java.util.function.Function<String, InputFile> blobFiles;
  private final String externalBlobRoot;

  private LanceFileReader(InputFile file, FileMetadata metadata) {
    this(file, Structure.of(file.location(), metadata), LanceFileReader::noBlobFiles, null);
  }

  private LanceFileReader(
      InputFile file,
      Structure structure,
      java.util.function.Function<String, InputFile> blobFiles,
      String externalBlobRoot) {
    this.file = file;
    this.externalBlobRoot = externalBlobRoot;
    this.structure = structure;
    this.blobFiles = blobFiles;
    this.metadata = structure.metadata();
    this.columns = structure.columns();
    this.io =
        ranges -> {
          List<ByteBuffer> raw = file.readRanges(ranges);
          List<ByteBuffer> out = new ArrayList<>(raw.size());
          for (ByteBuffer b : raw) {
            out.add(b.slice().order(ByteOrder.LITTLE_ENDIAN));
          }
          return out;
        };
  }

  /** Opens a file: reads and validates footer, schema and column metadata. */
  public static LanceFileReader open(InputFile file) {
    return new LanceFileReader(file, FileMetadata.read(file));
  }

  /**
   * Opens a file whose footer, column metadata and page readers may already be in {@code cache}
   * (keyed by location and length: Lance data files are never rewritten in place). A file not in
   * the cache is opened as by {@link #open} and added; a file that fails to open is not cached.
   */
  public static LanceFileReader open(InputFile file, FileStructureCache cache) {
    return new LanceFileReader(
        file,
        cache.get(file, () -> Structure.of(file.location(), FileMetadata.read(file))),
        LanceFileReader::noBlobFiles,
        null);
  }

  /**
   * This reader, opening the blob files of blob v2 columns ({@link BlobColumns}) with {@code
   * opener} (given their full location). Without it such blobs cannot be read.
   */
  public LanceFileReader withBlobFiles(java.util.function.Function<String, InputFile> opener) {
    return new LanceFileReader(file, structure, opener, externalBlobRoot);
  }

  /**
   * Lets this reader read external blobs (blob v2 kind 3) at URIs under {@code root}, the dataset's
   * root ({@link BlobColumns#externalLocation}); without it they are refused.
   */
  public LanceFileReader withExternalBlobRoot(String root) {
    return new LanceFileReader(file, structure, blobFiles, root);
  }

  private static InputFile noBlobFiles(String location) {
    throw new UnsupportedFileFeatureException(
        "Cannot read blob file "
            + location
            + ": this file was opened without its dataset; open the dataset to read its blobs.");
  }

  /**
   * Where the bytes of the rows at {@code rows} (ascending) of blob column {@code projection} (one
   * field, {@link LanceField#isBlob()}) are, null for null rows; a location without file is in this
   * data file. Only the descriptors are read.
   */
  public List<BlobColumns.Location> blobLocations(
      FileProjection projection, long[] rows, BufferAllocator allocator) {
    LanceField blob = projection.schema().fields().get(0);
    if (projection.schema().fields().size() != 1 || !blob.isBlob()) {
      throw new IllegalArgumentException("Not a blob column projection: " + projection);
    }
    try (VectorSchemaRoot d = takeDescriptors(projection, rows, allocator)) {
      return BlobColumns.locations(
          blob,
          (org.apache.arrow.vector.complex.StructVector) d.getVector(0),
          location(),
          location(),
          externalBlobRoot);
    }
  }

  private VectorSchemaRoot takeDescriptors(
      FileProjection projection, long[] rows, BufferAllocator allocator) {
    LanceField blob = projection.schema().fields().get(0);
    Field descriptor = BlobColumns.descriptorField(blob);
    List<ColumnReader> cols = columnsFor(projection, 0);
    List<TakePlan.PlannedPage> plan = TakePlan.plan(cols.get(0), rows);
    TakePlan.run(List.of(plan), io);
    FieldSink sink = Sinks.createField(descriptor, allocator, rows.length);
    try {
      ColumnSink column = sink.column(0);
      for (TakePlan.PlannedPage p : plan) {
        List<RowSource> sources = p.column().guard(p.pageIndex(), p.load()::sources);
        for (RowSource s : sources) {
          p.column().guardRun(p.pageIndex(), () -> s.emit(s.remaining(), column));
        }
      }
    } catch (RuntimeException e) {
      sink.abort();
      throw e;
    }
    FieldVector v = finish(sink, descriptor);
    return new VectorSchemaRoot(List.of(descriptor), List.of(v), rows.length);
  }

  /**
   * What opening a file produces and any number of readers of that file may share: its metadata and
   * one {@link ColumnReader} per column (with the page readers each creates on first use).
   */
  record Structure(FileMetadata metadata, ColumnReader[] columns) {
    static Structure of(String location, FileMetadata metadata) {
      ColumnReader[] columns = new ColumnReader[metadata.columns().size()];
      List<LanceField> stored = metadata.schema().columnFields();
      if (metadata.version().equals(FileVersion.V2_0)) {
        stored = Nested20Field.fieldsWithColumns20(metadata.schema().fields());
      }
      for (int i = 0; i < columns.length; i++) {
        String name = i < stored.size() ? stored.get(i).name() : "#" + i;
        columns[i] = new ColumnReader(location, metadata.column(i), name);
      }
      return new Structure(metadata, columns);
    }
  }

  /** The file's schema (with the field ids it was written with). */
  public LanceSchema schema() {
    return metadata.schema();
  }

  public long numRows() {
    return metadata.numRows();
  }

  public FileVersion version() {
    return metadata.version();
  }

  public int numColumns() {
    return columns.length;
  }

  /** Number of global buffers (buffer 0 is the file descriptor; index files add more). */
  public int numGlobalBuffers() {
    return metadata.globalBuffers().size();
  }

  /**
   * Reads global buffer {@code index} (e.g. the IVF or PQ codebook buffers of Lance index files,
   * whose positions the schema metadata names). Buffer 0 is the file descriptor.
   */
  public ByteBuffer readGlobalBuffer(int index) {
    if (index < 0 || index >= metadata.globalBuffers().size()) {
      throw new IllegalArgumentException(
          "Cannot read global buffer "
              + index
              + " of "
              + file.location()
              + ": the file has "
              + metadata.globalBuffers().size()
              + " global buffers");
    }
    ByteRange r = metadata.globalBuffers().get(index);
    return io.read(List.of(r)).get(0);
  }

  /** Footer, buffers, columns and pages, for inspection tools. */
  public FileMetadata metadata() {
    return metadata;
  }

  public String location() {
    return file.location();
  }

  /**
   * Reads rows {@code [start, end)} of the projected fields in batches of {@code batchSize} rows
   * (the last batch may be shorter). Vectors are allocated from {@code allocator}.
   */
  public LanceBatchReader read(
      FileProjection projection, long start, long end, int batchSize, BufferAllocator allocator) {
    checkRange(start, end);
    if (batchSize <= 0) {
      throw new IllegalArgumentException("Batch size must be positive, got " + batchSize);
    }
    java.util.concurrent.atomic.AtomicLong bytesRead = new java.util.concurrent.atomic.AtomicLong();
    PageIo counting =
        ranges -> {
          for (dev.lancelot.engine.io.ByteRange r : ranges) {
            bytesRead.addAndGet(r.length());
          }
          return io.read(ranges);
        };
    org.apache.arrow.vector.types.pojo.Schema arrow = arrowSchema(projection);
    List<List<ColumnScanner>> scanners = new ArrayList<>();
    List<Nested20Field> nested20 = new ArrayList<>();
    for (int i = 0; i < projection.schema().fields().size(); i++) {
      List<ColumnScanner> field = new ArrayList<>();
      List<ColumnReader> cols = columnsFor(projection, i);
      if (isNested20(projection, i)) {
        nestedBlobs(projection.schema().fields().get(i));
        nested20.add(
            new Nested20Field(
                arrow.getFields().get(i), cols, projection.packedMembers(i), counting));
      } else {
        nested20.add(null);
        for (ColumnReader column : cols) {
          field.add(new ColumnScanner(column, counting, start, end, DEFAULT_WINDOW_BYTES));
        }
      }
      scanners.add(field);
    }
    return new LanceBatchReader(
        this, projection, arrow, scanners, nested20, start, end, batchSize, allocator, bytesRead);
  }

  /**
   * A reader of the vectors of the projection's only field straight from the file's pages, without
   * Arrow vectors ({@link VectorPages}), when that field is a {@code fixed_size_list<float32 |
   * float16 | uint8, d>} of a 2.1 file whose pages are all full-zip or mini-block pages; otherwise
   * (other types, format 2.0 files, all-null pages) null, and the caller reads batches with {@link
   * #read}.
   */
  public VectorPages vectorPages(FileProjection projection) {
    return vectorPages(projection, DEFAULT_WINDOW_BYTES);
  }

  /** As {@link #vectorPages(FileProjection)}, reading about {@code windowBytes} at a time. */
  VectorPages vectorPages(FileProjection projection, long windowBytes) {
    return VectorPages.open(this, projection, windowBytes);
  }

  /** Reads rows {@code [start, end)} of the top-level fields with these ids (file schema ids). */
  public LanceBatchReader read(
      int[] fieldIds, long start, long end, int batchSize, BufferAllocator allocator) {
    return read(FileProjection.ofFieldIds(schema(), fieldIds), start, end, batchSize, allocator);
  }

  /**
   * Takes rows of the top-level fields with these ids (file schema ids); see {@link
   * #take(FileProjection, long[], BufferAllocator)}.
   */
  public VectorSchemaRoot take(int[] fieldIds, long[] rows, BufferAllocator allocator) {
    return take(FileProjection.ofFieldIds(schema(), fieldIds), rows, allocator);
  }

  /** Reads all rows of the projected fields. */
  public LanceBatchReader read(
      FileProjection projection, int batchSize, BufferAllocator allocator) {
    return read(projection, 0, numRows(), batchSize, allocator);
  }

  /**
   * Returns the rows at {@code rows} (ascending; repeats allowed) of the projected fields, in that
   * order, as one batch owned by the caller. Only the chunks or values holding these rows are read.
   */
  public VectorSchemaRoot take(FileProjection projection, long[] rows, BufferAllocator allocator) {
    for (int i = 0; i < rows.length; i++) {
      if (rows[i] < 0 || rows[i] >= numRows()) {
        throw new IllegalArgumentException(
            "Cannot take row "
                + rows[i]
                + " of "
                + file.location()
                + ": the file has "
                + numRows()
                + " rows");
      }
      if (i > 0 && rows[i] < rows[i - 1]) {
        throw new IllegalArgumentException(
            "Rows to take must be sorted ascending; row " + rows[i] + " follows " + rows[i - 1]);
      }
    }
    List<Field> fields = arrowSchema(projection).getFields();
    List<List<ColumnReader>> cols = new ArrayList<>(fields.size());
    List<List<TakePlan.PlannedPage>> plans = new ArrayList<>();
    for (int i = 0; i < fields.size(); i++) {
      cols.add(columnsFor(projection, i));
      if (isNested20(projection, i)) {
        nestedBlobs(projection.schema().fields().get(i));
        continue;
      }
      for (ColumnReader column : cols.get(i)) {
        plans.add(TakePlan.plan(column, rows));
      }
    }
    TakePlan.run(plans, io);
    List<FieldVector> vectors = new ArrayList<>(fields.size());
    try {
      int plan = 0;
      for (int i = 0; i < fields.size(); i++) {
        if (isNested20(projection, i)) {
          vectors.add(
              new Nested20Field(fields.get(i), cols.get(i), projection.packedMembers(i), io)
                  .read(rangesOf(rows), allocator));
          continue;
        }
        FieldSink sink =
            newSink(projection, i, fields.get(i), allocator, rows.length, cols.get(i).size());
        try {
          for (int c = 0; c < cols.get(i).size(); c++) {
            ColumnSink column = sink.column(c);
            for (TakePlan.PlannedPage p : plans.get(plan++)) {
              List<RowSource> sources = p.column().guard(p.pageIndex(), p.load()::sources);
              for (RowSource s : sources) {
                p.column().guardRun(p.pageIndex(), () -> s.emit(s.remaining(), column));
              }
            }
          }
        } catch (RuntimeException e) {
          sink.abort();
          throw e;
        }
        vectors.add(finish(sink, fields.get(i)));
      }
    } catch (RuntimeException e) {
      for (FieldVector v : vectors) {
        v.close();
      }
      throw e;
    }
    return new VectorSchemaRoot(fields, vectors, rows.length);
  }

  /**
   * Consecutive runs of the (ascending) rows, as {@code [start, end)} ranges; repeats get their
   * own.
   */
  private static List<long[]> rangesOf(long[] rows) {
    List<long[]> out = new ArrayList<>();
    for (long row : rows) {
      long[] last = out.isEmpty() ? null : out.get(out.size() - 1);
      if (last != null && last[1] == row) {
        last[1]++;
      } else {
        out.add(new long[] {row, row + 1});
      }
    }
    return out;
  }

  /**
   * Whether a projected field is a struct (not packed) or list of a format 2.0 file (read
   * top-down).
   */
  private boolean isNested20(FileProjection projection, int fieldIndex) {
    return version().equals(FileVersion.V2_0)
        && !projection.schema().fields().get(fieldIndex).isColumn();
  }

  /**
   * The file columns of a top-level field of a projection: its column fields (leaves and packed
   * structs) in pre-order (2.1+), or every field node in pre-order but the members of packed
   * structs (2.0, where structs and lists have columns too; their numbers follow the file's own
   * schema in pre-order).
   */
  List<ColumnReader> columnsFor(FileProjection projection, int fieldIndex) {
    LanceField field = projection.schema().fields().get(fieldIndex);
    int[] cols = projection.columns(fieldIndex);
    if (version().equals(FileVersion.V2_0)) {
      List<LanceField> all = Nested20Field.fieldsWithColumns20(schema().fields());
      List<LanceField> nodes = Nested20Field.fieldsWithColumns20(List.of(field));
      cols = new int[nodes.size()];
      for (int k = 0; k < nodes.size(); k++) {
        int id = nodes.get(k).id();
        int col = -1;
        for (int j = 0; j < all.size() && col < 0; j++) {
          col = all.get(j).id() == id ? j : -1;
        }
        if (col < 0) {
          throw new UnsupportedFileFeatureException(
              "Cannot read field \""
                  + field.name()
                  + "\" of "
                  + file.location()
                  + ": field id "
                  + id
                  + " is not stored in this file.");
        }
        cols[k] = col;
      }
    }
    List<ColumnReader> out = new ArrayList<>(cols.length);
    for (int col : cols) {
      if (col < 0 || col >= columns.length) {
        throw new CorruptFileException(
            "Cannot read field \""
                + field.name()
                + "\" of "
                + file.location()
                + ": column "
                + col
                + " does not exist (the file has "
                + columns.length
                + " columns).");
      }
      ColumnReader c = columns[col];
      // 2.0 item columns below a list hold one row per item
      boolean rowIndexed = out.isEmpty() || !version().equals(FileVersion.V2_0);
      if (rowIndexed && c.info().numRows() != numRows()) {
        throw new CorruptFileException(
            "Cannot read field \""
                + field.name()
                + "\" of "
                + file.location()
                + ": column "
                + col
                + " holds "
                + c.info().numRows()
                + " rows but the file has "
                + numRows()
                + ".");
      }
      out.add(c);
    }
    return out;
  }

  /**
   * The Arrow schema of a projection; logical types we cannot map are reported against this file.
   */
  org.apache.arrow.vector.types.pojo.Schema arrowSchema(FileProjection projection) {
    try {
      return projection.schema().toArrow();
    } catch (dev.lancelot.engine.schema.SchemaException e) {
      throw new UnsupportedFileFeatureException(
          "Cannot read " + file.location() + ": " + e.getMessage(), e);
    }
  }

  /**
   * The sink of top-level field {@code fieldIndex} of a projection ({@code field} in Arrow),
   * checked against the number of file columns holding it.
   */
  FieldSink newSink(
      FileProjection projection,
      int fieldIndex,
      Field field,
      BufferAllocator allocator,
      int capacity,
      int numColumns) {
    FieldSink sink;
    LanceField lance = projection.schema().fields().get(fieldIndex);
    if (lance.isBlob()) {
      Field descriptor = BlobColumns.descriptorField(lance);
      FieldSink descriptors = Sinks.createField(descriptor, allocator, capacity);
      return BlobColumns.sink(
          lance, field, descriptors, allocator, file, blobFiles, externalBlobRoot);
    }
    try {
      sink =
          Sinks.createField(
              field,
              allocator,
              capacity,
              PackedMembers.of(projection.packedMembers(fieldIndex)),
              nestedBlobs(lance));
    } catch (DecodeException e) {
      throw new UnsupportedFileFeatureException(
          "Cannot read field \""
              + field.getName()
              + "\" of "
              + file.location()
              + ": "
              + e.getMessage()
              + " is not supported by lancelot yet.",
          e);
    }
    if (sink.numColumns() != numColumns) {
      sink.abort();
      throw new CorruptFileException(
          "Cannot read field \""
              + field.getName()
              + "\" of "
              + file.location()
              + ": it has "
              + sink.numColumns()
              + " column fields (leaves and packed structs) but is stored in "
              + numColumns
              + " columns. The file is corrupt.");
    }
    return sink;
  }

  /** {@link BlobColumns#nestedBlobs} of a top-level field read from this file. */
  private LeafSinks nestedBlobs(LanceField top) {
    return BlobColumns.nestedBlobs(top, version(), file, blobFiles, externalBlobRoot);
  }

  /** Assembles a field's vector (nested fields: offsets and validity from the leaves' levels). */
  FieldVector finish(FieldSink sink, Field field) {
    try {
      return sink.finish();
    } catch (DecodeException e) {
      throw new CorruptFileException(
          "Cannot read field \""
              + field.getName()
              + "\" of "
              + file.location()
              + ": "
              + e.getMessage()
              + ". The file is corrupt.",
          e);
    }
  }

  private void checkRange(long start, long end) {
    if (start < 0 || end < start || end > numRows()) {
      throw new IllegalArgumentException(
          "Cannot read rows ["
              + start
              + ", "
              + end
              + ") of "
              + file.location()
              + ": the file has "
              + numRows()
              + " rows");
    }
  }
}
