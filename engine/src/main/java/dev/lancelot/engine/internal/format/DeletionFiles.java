package dev.lancelot.engine.internal.format;

import dev.lancelot.engine.internal.format.proto.TableProtos.DeletionFile;
import dev.lancelot.engine.io.FileIO;
import dev.lancelot.engine.io.InputFile;
import dev.lancelot.engine.io.StorageException;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SeekableByteChannel;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.compression.CompressionUtil;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.arrow.vector.ipc.message.IpcOption;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.ByteArrayReadableSeekableByteChannel;
import org.roaringbitmap.RoaringBitmap;

/**
 * Deletion files in {@code _deletions/{fragment_id}-{read_version}-{id}.{arrow|bin}}.
 *
 * <ul>
 *   <li>{@code .arrow}: an Arrow IPC <em>file</em> with one column {@code row_id: uint32 not null}
 *       holding the deleted row offsets within the fragment; buffers ZSTD-compressed.
 *   <li>{@code .bin}: a 32-bit Roaring bitmap in the portable serialization.
 * </ul>
 *
 * Like Lance, a fragment with more than {@value #BITMAP_THRESHOLD} deleted rows gets a bitmap file.
 */
public final class DeletionFiles {
  public static final String DIR = "_deletions";
  public static final int BITMAP_THRESHOLD = 5000;
  private static final Schema ARROW_SCHEMA =
      new Schema(
          List.of(new Field("row_id", FieldType.notNullable(new ArrowType.Int(32, false)), null)));

  private DeletionFiles() {}

  public static String relativePath(long fragmentId, DeletionFile file) {
    String suffix = file.getFileType() == DeletionFile.DeletionFileType.BITMAP ? "bin" : "arrow";
    return DIR
        + "/"
        + fragmentId
        + "-"
        + file.getReadVersion()
        + "-"
        + Long.toUnsignedString(file.getId())
        + "."
        + suffix;
  }

  /** Reads the deleted row offsets of a fragment. */
  public static RoaringBitmap read(
      FileIO io, String datasetRoot, long fragmentId, DeletionFile file) {
    return read(io, datasetRoot, fragmentId, file, 0);
  }

  /**
   * Reads the deleted row offsets of a fragment of {@code physicalRows} rows (0: not recorded), and
   * checks that every offset lies inside the fragment: a damaged file must not delete rows that do
   * not exist or make readers index outside their batches.
   */
  public static RoaringBitmap read(
      FileIO io, String datasetRoot, long fragmentId, DeletionFile file, long physicalRows) {
    return readAt(io, datasetRoot + "/" + relativePath(fragmentId, file), file, physicalRows);
  }

  /**
   * As {@link #read(FileIO, String, long, DeletionFile, long)}, for the deletion file at the
   * fully-qualified {@code location} (under the dataset root or another base path).
   */
  public static RoaringBitmap readAt(
      FileIO io, String location, DeletionFile file, long physicalRows) {
    byte[] bytes;
    try (InputFile in = io.newInputFile(location)) {
      ByteBuffer buf = in.read(0, Math.toIntExact(in.length()));
      bytes = new byte[buf.remaining()];
      buf.get(bytes);
    }
    RoaringBitmap deleted =
        file.getFileType() == DeletionFile.DeletionFileType.BITMAP
            ? parseBitmap(location, bytes)
            : parseArrow(location, bytes, file.getNumDeletedRows());
    if (file.getNumDeletedRows() != 0 && deleted.getLongCardinality() != file.getNumDeletedRows()) {
      throw new CorruptFileException(
          location,
          "it lists "
              + deleted.getLongCardinality()
              + " deleted rows but the manifest records "
              + file.getNumDeletedRows());
    }
    if (!deleted.isEmpty()) {
      long last = Integer.toUnsignedLong(deleted.last());
      long bound = physicalRows > 0 ? physicalRows : (long) Integer.MAX_VALUE + 1;
      if (last >= bound) {
        throw new CorruptFileException(
            location,
            "it deletes row offset "
                + last
                + " of a fragment of "
                + (physicalRows > 0 ? physicalRows + " rows" : "at most 2^31 rows"));
      }
    }
    return deleted;
  }

  static RoaringBitmap parseBitmap(String location, byte[] bytes) {
    RoaringBitmap bitmap = new RoaringBitmap();
    try {
      bitmap.deserialize(ByteBuffer.wrap(bytes));
    } catch (IOException | RuntimeException e) {
      throw new CorruptFileException(
          location, "not a portable Roaring bitmap (" + e.getMessage() + ")", e);
    }
    return bitmap;
  }

  /**
   * The row offsets of an Arrow IPC deletion file. Buffers are bounded by what such a file can hold
   * (4 bytes per deleted row the manifest records, and a generous multiple of the file's size for
   * compressed bodies), so a damaged length cannot make the reader allocate more than that.
   */
  static RoaringBitmap parseArrow(String location, byte[] bytes, long recordedRows) {
    RoaringBitmap bitmap = new RoaringBitmap();
    long limit = 4L * Math.max(0, recordedRows) + 64L * bytes.length + (1 << 20);
    try (BufferAllocator allocator = new RootAllocator(limit);
        SeekableByteChannel channel = new ByteArrayReadableSeekableByteChannel(bytes);
        ArrowFileReader reader =
            new ArrowFileReader(channel, allocator, AirCompressionCodecs.INSTANCE)) {
      VectorSchemaRoot root = reader.getVectorSchemaRoot();
      Schema schema = root.getSchema();
      if (schema.getFields().size() != 1 || !(root.getVector(0) instanceof UInt4Vector)) {
        throw new CorruptFileException(
            location, "expected one uint32 column row_id, found schema " + schema);
      }
      while (reader.loadNextBatch()) {
        UInt4Vector ids = (UInt4Vector) root.getVector(0);
        for (int i = 0; i < ids.getValueCount(); i++) {
          bitmap.add(ids.get(i));
        }
      }
    } catch (IOException | RuntimeException e) {
      if (e instanceof CorruptFileException c) {
        throw c;
      }
      throw new CorruptFileException(
          location, "not a valid Arrow IPC deletion file (" + e.getMessage() + ")", e);
    }
    return bitmap;
  }

  /**
   * Writes a deletion file for {@code deleted} (must not be empty) and returns its manifest entry.
   * The file name is unique (random id), so the write never collides with another writer's.
   */
  public static DeletionFile write(
      FileIO io, String datasetRoot, long fragmentId, long readVersion, RoaringBitmap deleted) {
    if (deleted.isEmpty()) {
      throw new IllegalArgumentException("An empty deletion vector needs no file");
    }
    long cardinality = deleted.getLongCardinality();
    DeletionFile.DeletionFileType type =
        cardinality > BITMAP_THRESHOLD
            ? DeletionFile.DeletionFileType.BITMAP
            : DeletionFile.DeletionFileType.ARROW_ARRAY;
    DeletionFile entry =
        DeletionFile.newBuilder()
            .setFileType(type)
            .setReadVersion(readVersion)
            .setId(ThreadLocalRandom.current().nextLong())
            .setNumDeletedRows(cardinality)
            .build();
    byte[] bytes =
        type == DeletionFile.DeletionFileType.BITMAP
            ? serializeBitmap(deleted)
            : serializeArrow(deleted);
    String location = datasetRoot + "/" + relativePath(fragmentId, entry);
    try (var out = io.create(location)) {
      out.write(bytes);
    } catch (IOException e) {
      throw new StorageException(
          "Cannot write deletion file " + location + ": " + e.getMessage(), e);
    }
    return entry;
  }

  static byte[] serializeBitmap(RoaringBitmap bitmap) {
    bitmap.runOptimize();
    ByteArrayOutputStream out = new ByteArrayOutputStream(bitmap.serializedSizeInBytes());
    try (DataOutputStream data = new DataOutputStream(out)) {
      bitmap.serialize(data);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  static byte[] serializeArrow(RoaringBitmap bitmap) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (BufferAllocator allocator = new RootAllocator();
        VectorSchemaRoot root = VectorSchemaRoot.create(ARROW_SCHEMA, allocator)) {
      UInt4Vector ids = (UInt4Vector) root.getVector(0);
      int n = bitmap.getCardinality();
      ids.allocateNew(n);
      int i = 0;
      for (int offset : bitmap) {
        ids.set(i++, offset);
      }
      ids.setValueCount(n);
      root.setRowCount(n);
      try (ArrowFileWriter writer =
          new ArrowFileWriter(
              root,
              null,
              Channels.newChannel(out),
              null,
              IpcOption.DEFAULT,
              AirCompressionCodecs.INSTANCE,
              CompressionUtil.CodecType.ZSTD)) {
        writer.start();
        writer.writeBatch();
        writer.end();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }
}
