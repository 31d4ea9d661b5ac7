package dev.lancelot.engine;

import dev.lancelot.engine.internal.format.proto.TableProtos.DataFragment;
import dev.lancelot.engine.internal.scan.FragmentReader;
import dev.lancelot.engine.io.FileIO;
import dev.lancelot.engine.io.InputFile;
import dev.lancelot.engine.schema.LanceField;
import java.io.InputStream;
import java.nio.ByteBuffer;

/**
 * The bytes of one row's value of a blob column ({@link Dataset#openBlob}), read on demand with
 * ranged reads: opening a blob reads only the row's descriptor, and {@link #read(long, int)} reads
 * only the bytes asked for. The file holding the bytes is opened on the first read and closed by
 * {@link #close()}. Not thread-safe.
 */
public final class Blob implements AutoCloseable {
  private final FileIO io;
  private final String location;
  private final long offset;
  private final long size;
  private InputFile input;

  Blob(FileIO io, String location, long offset, long size) {
    this.io = io;
    this.location = location;
    this.offset = offset;
    this.size = size;
  }

  /** The blob's length in bytes. */
  public long size() {
    return size;
  }

  /** The file holding the bytes (a data file, or one of its blob files). */
  public String location() {
    return location;
  }

  /** {@code length} bytes from {@code position} within the blob. */
  public byte[] read(long position, int length) {
    if (position < 0 || length < 0 || position + length > size) {
      throw new InvalidInputException(
          "Cannot read bytes ["
              + position
              + ", "
              + (position + length)
              + ") of a blob of "
              + size
              + " bytes: the range must lie within the blob.");
    }
    byte[] out = new byte[length];
    if (length == 0) {
      return out;
    }
    if (input == null) {
      input = io.newInputFile(location);
    }
    ByteBuffer b = input.read(offset + position, length);
    b.get(out);
    return out;
  }

  /** All the blob's bytes (at most 2 GiB; read larger blobs in ranges or as a stream). */
  public byte[] readAll() {
    if (size > Integer.MAX_VALUE - 16) {
      throw new InvalidInputException(
          "Cannot read a blob of "
              + size
              + " bytes into one array; read it in ranges or with openStream().");
    }
    return read(0, (int) size);
  }

  /**
   * The blob's bytes as a stream reading {@code 1 MiB} at a time; closing the stream does not close
   * this blob.
   */
  public InputStream openStream() {
    return new InputStream() {
      private long pos;

      @Override
      public int read() {
        if (pos >= size) {
          return -1;
        }
        return Blob.this.read(pos++, 1)[0] & 0xff;
      }

      @Override
      public int read(byte[] b, int off, int len) {
        if (len == 0) {
          return 0;
        }
        if (pos >= size) {
          return -1;
        }
        int n = (int) Math.min(Math.min(len, size - pos), 1 << 20);
        System.arraycopy(Blob.this.read(pos, n), 0, b, off, n);
        pos += n;
        return n;
      }

      @Override
      public long skip(long n) {
        long k = Math.max(0, Math.min(n, size - pos));
        pos += k;
        return k;
      }

      @Override
      public int available() {
        return (int) Math.min(Integer.MAX_VALUE, size - pos);
      }
    };
  }

  @Override
  public void close() {
    if (input != null) {
      input.close();
      input = null;
    }
  }

  @Override
  public String toString() {
    return "Blob[" + size + " bytes at " + offset + " of " + location + "]";
  }

  /** {@link Dataset#openBlob}. */
  static java.util.Optional<Blob> open(Dataset dataset, String column, long rowAddress) {
    LanceField field =
        dataset.lanceSchema().fieldByPath(column).orElseGet(() -> dataset.field(column));
    for (LanceField p = parent(dataset, field); p != null; p = parent(dataset, p)) {
      if (!p.logicalType().equals("struct") || p.isPackedStruct()) {
        throw new InvalidInputException(
            "Cannot open a blob of column \""
                + column
                + "\" of "
                + dataset.location()
                + ": it is inside the "
                + p.logicalType()
                + " field \""
                + p.name()
                + "\"; Dataset.openBlob reaches blob fields at the top level or inside structs.");
      }
    }
    if (!field.isBlob()) {
      throw new InvalidInputException(
          "Cannot open a blob of column \""
              + column
              + "\" of "
              + dataset.location()
              + ": it is a "
              + field.logicalType()
              + " column, not a blob column. Read it with take or a scan.");
    }
    long fragmentId = dev.lancelot.engine.internal.scan.RowAddress.fragment(rowAddress);
    long offset = dev.lancelot.engine.internal.scan.RowAddress.offset(rowAddress);
    DataFragment fragment = dataset.snapshot().fragment(fragmentId).orElse(null);
    String row = "row " + rowAddress + " (fragment " + fragmentId + ", offset " + offset + ")";
    String cannot =
        "Cannot open the blob of "
            + row
            + " of column \""
            + column
            + "\" of "
            + dataset.location()
            + " version "
            + dataset.version();
    if (fragment == null || offset >= fragment.getPhysicalRows()) {
      throw new InvalidInputException(cannot + ": no such row in this version.");
    }
    if (dataset.deletedRows(fragment).contains((int) offset)) {
      throw new InvalidInputException(cannot + ": the row is deleted.");
    }
    try (FragmentReader reader = dataset.openFragment(fragment)) {
      var l = reader.blobLocation(field, offset);
      return l == null
          ? java.util.Optional.empty()
          : java.util.Optional.of(new Blob(dataset.context().io(), l.file(), l.offset(), l.size()));
    }
  }

  private static LanceField parent(Dataset dataset, LanceField f) {
    return f.parentId() < 0 ? null : dataset.lanceSchema().fieldById(f.parentId()).orElse(null);
  }
}
