package dev.lancelot.engine.internal.file.write;

import dev.lancelot.engine.internal.file.BlobColumns;
import dev.lancelot.engine.io.PositionOutputStream;
import java.io.IOException;
import java.util.function.Function;

/**
 * The blob files of one data file (blob v2, format 2.2): packed files holding several blobs back to
 * back, and dedicated files holding one. Ids are given out from 1 in the order files are started,
 * shared by every blob column of the data file; a packed file is closed and a new one started when
 * a blob would take it past {@link #PACK_FILE_MAX_BYTES}. Files are created through {@code opener}
 * with their name ({@link BlobColumns#blobFileName}), relative to the data file's blob directory.
 */
public final class BlobFiles implements AutoCloseable {
  /** Largest packed blob file, as Lance 7 writes them. */
  static final long PACK_FILE_MAX_BYTES = 1L << 30;

  private final Function<String, PositionOutputStream> opener;
  private long nextId = 1;
  private PositionOutputStream pack;
  private long packId;

  public BlobFiles(Function<String, PositionOutputStream> opener) {
    this.opener = opener;
  }

  /** Where a blob went: blob file {@code id}, at {@code position}. */
  record Placed(long id, long position) {}

  /** Appends {@code bytes} to the current packed file (starting one when needed). */
  Placed packed(byte[] bytes) throws IOException {
    if (pack != null && pack.position() + bytes.length > PACK_FILE_MAX_BYTES) {
      pack.close();
      pack = null;
    }
    if (pack == null) {
      packId = nextId();
      pack = opener.apply(BlobColumns.blobFileName(packId));
    }
    long position = pack.position();
    pack.write(bytes);
    return new Placed(packId, position);
  }

  /** Writes {@code bytes} as a dedicated blob file of its own and returns its id. */
  long dedicated(byte[] bytes) throws IOException {
    long id = nextId();
    try (PositionOutputStream out = opener.apply(BlobColumns.blobFileName(id))) {
      out.write(bytes);
    }
    return id;
  }

  private long nextId() {
    if (nextId > 0xFFFF_FFFFL) {
      throw new IllegalStateException("more than 2^32 - 1 blob files for one data file");
    }
    return nextId++;
  }

  /** Closes the open packed file, if any. */
  @Override
  public void close() throws IOException {
    if (pack != null) {
      PositionOutputStream p = pack;
      pack = null;
      p.close();
    }
  }
}
