package dev.lancelot.engine.internal.file;

import dev.lancelot.engine.internal.file.container.FileFooter;
import dev.lancelot.engine.internal.file.write.AlignedOutput;
import dev.lancelot.engine.internal.file.write.BlobFiles;
import dev.lancelot.engine.internal.file.write.ColumnWriter;
import dev.lancelot.engine.internal.file.write.FieldWriter;
import dev.lancelot.engine.internal.format.SchemaProtos;
import dev.lancelot.engine.internal.format.proto.FileProtos;
import dev.lancelot.engine.io.PositionOutputStream;
import dev.lancelot.engine.io.StorageException;
import dev.lancelot.engine.schema.LanceField;
import dev.lancelot.engine.schema.LanceSchema;
import dev.lancelot.engine.schema.SchemaException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * Writes a Lance 2.1 or 2.2 data file ({@link WriterOptions#version()}) that Lance 7 (and {@link
 * LanceFileReader}) reads.
 *
 * <pre>{@code
 * try (LanceFileWriter w = LanceFileWriter.create(fileIO.create(path), schema, WriterOptions.defaults())) {
 *   w.write(batch1);
 *   w.write(batch2);
 *   WriteSummary s = w.finish();   // s.fieldIds() / s.columnIndices() go into the manifest
 * }
 * }</pre>
 *
 * <p>Each leaf field is one column (primitive, string/binary, or fixed-size list of primitive
 * values), in pre-order: a flat top-level field is one column, a struct or list field one per leaf,
 * with repetition/definition levels for list boundaries, empty lists and nulls at every level.
 * Batches are matched to the schema by column name. Columns are paged at about {@link
 * WriterOptions#maxPageBytes()}: mini-block pages for values under 256 bytes, full-zip pages
 * otherwise, all-null pages when no value is left. Mini-block values of 8 to 64 bits are bit-packed
 * when that is smaller ({@code InlineBitpacking}), others stored as {@code Flat}, {@code Variable}
 * or {@code FixedSizeList}; mini-block levels are bit-packed ({@code OutOfLineBitpacking}),
 * full-zip and all-null levels stored raw. 2.1 and 2.2 files differ only in the footer's version
 * (docs/decisions.md D54).
 *
 * <p>The writer owns the stream: {@link #finish()} writes the metadata and footer and closes it;
 * {@link #close()} without {@code finish()} closes it leaving an incomplete file (no footer), which
 * every reader refuses. Not thread-safe.
 */
public final class LanceFileWriter implements AutoCloseable {
  private final PositionOutputStream stream;
  private final AlignedOutput out;
  private final LanceSchema schema;
  private final FileVersion version;
  private final List<FieldWriter> fields = new ArrayList<>();
  private final List<ColumnWriter> columns = new ArrayList<>();
  private final List<long[]> globalBuffers = new ArrayList<>();
  private final java.util.Map<String, String> extraMetadata = new java.util.LinkedHashMap<>();
  private final BlobFiles blobFiles;
  private long rows;
  private boolean finished;
  private boolean closed;

  private LanceFileWriter(
      PositionOutputStream stream,
      LanceSchema schema,
      WriterOptions options,
      Function<String, PositionOutputStream> blobFileOpener) {
    this.stream = stream;
    this.out = new AlignedOutput(stream);
    this.schema = schema;
    this.version = options.version();
    this.blobFiles = version.equals(FileVersion.V2_2) ? new BlobFiles(blobFileOpener) : null;
    for (LanceField field : schema.fields()) {
      checkBlobEncoding(field);
      if (field.id() < 0) {
        throw new SchemaException(
            "Cannot write field \""
                + field.name()
                + "\": it has no field id. Build the schema with LanceSchema.fromArrow or from a manifest.");
      }
      FieldWriter writer = FieldWriter.create(field, options.maxPageBytes(), blobFiles);
      fields.add(writer);
      columns.addAll(writer.columns());
    }
  }

  /**
   * Starts a file with this schema (field ids as the dataset assigns them); a schema with blob v2
   * columns needs {@link #create(PositionOutputStream, LanceSchema, WriterOptions, Function)}.
   */
  public static LanceFileWriter create(
      PositionOutputStream out, LanceSchema schema, WriterOptions options) {
    return new LanceFileWriter(out, schema, options, LanceFileWriter::noBlobFiles);
  }

  /**
   * Starts a file whose blob v2 columns may need blob files: {@code blobFiles} creates one given
   * its name ({@link BlobColumns#blobFileName}), which the caller places in the data file's blob
   * directory ({@code data/<stem>/}) and deletes if the file is abandoned.
   */
  public static LanceFileWriter create(
      PositionOutputStream out,
      LanceSchema schema,
      WriterOptions options,
      Function<String, PositionOutputStream> blobFiles) {
    return new LanceFileWriter(out, schema, options, blobFiles);
  }

  private static PositionOutputStream noBlobFiles(String name) {
    throw new IllegalStateException(
        "Cannot write blob file "
            + name
            + ": the Lance file writer was created without blob files");
  }

  /**
   * Refuses a blob column in the wrong encoding for the file version: legacy blobs are written in
   * 2.1 files, blob v2 in 2.2 ({@link LanceSchema#withBlobEncodingFor}).
   */
  private void checkBlobEncoding(LanceField field) {
    boolean v22 = version.equals(FileVersion.V2_2);
    if ((field.isLegacyBlob() && v22) || (field.isBlobV2() && !v22)) {
      throw new SchemaException(
          "Cannot write blob column \""
              + field.name()
              + "\" into a Lance "
              + version
              + " file: "
              + (v22
                  ? "2.2 files store blob columns as blob v2 (extension "
                      + LanceField.BLOB_V2_EXTENSION
                      + ")"
                  : "blob v2 columns need file version 2.2")
              + ". Convert the schema with LanceSchema.withBlobEncodingFor.");
    }
  }

  /** Appends a batch; its columns are matched to the schema by name. */
  public void write(VectorSchemaRoot batch) {
    checkOpen();
    int n = batch.getRowCount();
    List<FieldVector> vectors = new ArrayList<>(fields.size());
    for (FieldWriter c : fields) {
      LanceField field = c.field();
      FieldVector v = batch.getVector(field.name());
      if (v == null) {
        throw new SchemaException(
            "Cannot write batch: it has no column \""
                + field.name()
                + "\". Columns: "
                + batch.getSchema().getFields().stream().map(f -> f.getName()).toList());
      }
      org.apache.arrow.vector.types.pojo.Field expectedField = field.toArrow();
      if (!sameShape(v.getField(), expectedField)) {
        throw new SchemaException(
            "Cannot write column \""
                + field.name()
                + "\": the batch has type "
                + describe(v.getField())
                + " but the schema says "
                + describe(expectedField)
                + ".");
      }
      if (v.getValueCount() != n) {
        throw new IllegalArgumentException(
            "Column \""
                + field.name()
                + "\" has "
                + v.getValueCount()
                + " values but the batch has "
                + n
                + " rows");
      }
      if (!field.nullable() && v.getNullCount() > 0) {
        throw new SchemaException(
            "Cannot write column \""
                + field.name()
                + "\": it contains null values but the"
                + " field is not nullable. Make the field nullable or remove the nulls.");
      }
      vectors.add(v);
    }
    try {
      for (int i = 0; i < fields.size(); i++) {
        fields.get(i).append(vectors.get(i), out);
      }
    } catch (IOException e) {
      throw new StorageException("Cannot write Lance file: " + e.getMessage(), e);
    }
    rows += n;
  }

  /**
   * Writes an extra global buffer now (64-byte aligned) and returns its index in the global buffer
   * table: 1 for the first, 2 for the next (0 is always the file descriptor). Lance index files
   * keep IVF centroids and codebooks this way.
   */
  public int addGlobalBuffer(byte[] bytes) {
    checkOpen();
    try {
      long pos = out.writeAligned(bytes);
      globalBuffers.add(new long[] {pos, bytes.length});
      return globalBuffers.size();
    } catch (IOException e) {
      throw new StorageException("Cannot write Lance file: " + e.getMessage(), e);
    }
  }

  /** Adds (or replaces) a schema metadata entry written at {@link #finish()}. */
  public void putSchemaMetadata(String key, String value) {
    checkOpen();
    extraMetadata.put(key, value);
  }

  /** Flushes the last pages, writes schema, column metadata and footer, and closes the stream. */
  public WriteSummary finish() {
    checkOpen();
    try {
      if (blobFiles != null) {
        blobFiles.close();
      }
      int pages = 0;
      for (ColumnWriter c : columns) {
        c.flush(out);
        pages += c.pages();
      }
      java.util.Map<String, String> schemaMetadata =
          new java.util.LinkedHashMap<>(schema.metadata());
      schemaMetadata.putAll(extraMetadata);
      LanceSchema written = LanceSchema.of(fileFields(schema.fields()), schemaMetadata);
      FileProtos.FileDescriptor descriptor =
          FileProtos.FileDescriptor.newBuilder()
              .setSchema(SchemaProtos.toProto(written))
              .setLength(rows)
              .build();
      byte[] descriptorBytes = descriptor.toByteArray();
      long descriptorPos = out.writeAligned(descriptorBytes);

      long columnMetaStart = out.position();
      long[] metaPos = new long[columns.size()];
      long[] metaLen = new long[columns.size()];
      for (int i = 0; i < columns.size(); i++) {
        byte[] meta = columns.get(i).metadata().toByteArray();
        metaPos[i] = out.write(meta);
        metaLen[i] = meta.length;
      }
      long cmo = out.position();
      int numGlobal = 1 + globalBuffers.size();
      ByteBuffer tables =
          ByteBuffer.allocate(16 * (columns.size() + numGlobal)).order(ByteOrder.LITTLE_ENDIAN);
      for (int i = 0; i < columns.size(); i++) {
        tables.putLong(metaPos[i]).putLong(metaLen[i]);
      }
      long gbo = cmo + 16L * columns.size();
      tables.putLong(descriptorPos).putLong(descriptorBytes.length);
      for (long[] g : globalBuffers) {
        tables.putLong(g[0]).putLong(g[1]);
      }
      out.write(tables.array());

      ByteBuffer footer = ByteBuffer.allocate(FileFooter.SIZE).order(ByteOrder.LITTLE_ENDIAN);
      footer
          .putLong(columnMetaStart)
          .putLong(cmo)
          .putLong(gbo)
          .putInt(numGlobal)
          .putInt(columns.size())
          .putShort((short) version.major())
          .putShort((short) version.minor())
          .put(new byte[] {'L', 'A', 'N', 'C'});
      out.write(footer.array());
      stream.flush();
      long size = out.position();
      finished = true;
      close();
      List<LanceField> leaves = schema.columnFields();
      int[] fieldIds = new int[leaves.size()];
      int[] columnIndices = new int[leaves.size()];
      for (int i = 0; i < leaves.size(); i++) {
        fieldIds[i] = leaves.get(i).id();
        columnIndices[i] = i;
      }
      return new WriteSummary(rows, size, columns.size(), fieldIds, columnIndices, version, pages);
    } catch (IOException e) {
      throw new StorageException("Cannot finish Lance file: " + e.getMessage(), e);
    }
  }

  /**
   * The fields as the file's own schema records them: as Lance 7 writes it, a blob v2 column is a
   * packed struct of its descriptor's members (without ids) marked as a blob, instead of the
   * dataset's {@code data} and {@code uri}.
   */
  private static List<LanceField> fileFields(List<LanceField> fields) {
    List<LanceField> out = new ArrayList<>(fields.size());
    for (LanceField f : fields) {
      if (!f.isBlobV2()) {
        out.add(f);
        continue;
      }
      java.util.Map<String, String> meta = new java.util.LinkedHashMap<>(f.metadata());
      meta.remove(dev.lancelot.engine.schema.LogicalTypes.ARROW_EXT_NAME);
      meta.put(LanceField.BLOB_KEY, "true");
      meta.put("lance-encoding:packed", "true");
      out.add(
          new LanceField(
              f.id(),
              f.parentId(),
              f.name(),
              f.logicalType(),
              f.nullable(),
              meta,
              BlobColumns.descriptorMembers(),
              f.legacyEncoding(),
              f.unenforcedPrimaryKey()));
    }
    return out;
  }

  /** Same types all the way down (struct fields matched by position and name). */
  private static boolean sameShape(
      org.apache.arrow.vector.types.pojo.Field actual,
      org.apache.arrow.vector.types.pojo.Field expected) {
    if (!actual.getType().equals(expected.getType())
        || actual.getChildren().size() != expected.getChildren().size()) {
      return false;
    }
    boolean struct = expected.getType() instanceof ArrowType.Struct;
    for (int i = 0; i < expected.getChildren().size(); i++) {
      org.apache.arrow.vector.types.pojo.Field a = actual.getChildren().get(i);
      org.apache.arrow.vector.types.pojo.Field e = expected.getChildren().get(i);
      if ((struct && !a.getName().equals(e.getName())) || !sameShape(a, e)) {
        return false;
      }
    }
    return true;
  }

  private static String describe(org.apache.arrow.vector.types.pojo.Field f) {
    if (f.getChildren().isEmpty()) {
      return f.getType().toString();
    }
    StringBuilder sb = new StringBuilder(f.getType().toString()).append('<');
    for (int i = 0; i < f.getChildren().size(); i++) {
      org.apache.arrow.vector.types.pojo.Field c = f.getChildren().get(i);
      sb.append(i == 0 ? "" : ", ").append(c.getName()).append(": ").append(describe(c));
    }
    return sb.append('>').toString();
  }

  private void checkOpen() {
    if (finished || closed) {
      throw new IllegalStateException(
          "The Lance file writer is already " + (finished ? "finished" : "closed"));
    }
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      if (blobFiles != null) {
        blobFiles.close();
      }
      stream.close();
    } catch (IOException e) {
      throw new StorageException("Cannot close Lance file: " + e.getMessage(), e);
    }
  }
}
