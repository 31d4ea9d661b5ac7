package dev.lancelot.engine.internal.file.container;

import dev.lancelot.engine.internal.file.CorruptFileException;
import dev.lancelot.engine.internal.file.FileVersion;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The fixed 40-byte footer at the end of every Lance 2.x file. Layout (little endian):
 *
 * <pre>
 *   [u64]     position of the first column metadata message
 *   [u64]     position of the column metadata offset table (CMO)
 *   [u64]     position of the global buffer offset table (GBO)
 *   [u32]     number of global buffers
 *   [u32]     number of columns
 *   [u16]     major version (0 with minor 3 means format 2.0)
 *   [u16]     minor version
 *   [4 bytes] magic "LANC"
 * </pre>
 *
 * The CMO table holds {@code (u64 position, u64 size)} per column, the GBO table {@code (u64
 * position, u64 size)} per global buffer. Lance writes them back to back right before the footer;
 * the format allows padding before each of them.
 */
public record FileFooter(
    long columnMetadataStart,
    long cmoTablePosition,
    long gboTablePosition,
    int numGlobalBuffers,
    int numColumns,
    FileVersion version) {

  public static final int SIZE = 40;
  private static final byte[] MAGIC = {'L', 'A', 'N', 'C'};

  /** Parses and validates the footer from the last {@link #SIZE} bytes of {@code tail}. */
  public static FileFooter parse(String location, ByteBuffer tail, long fileLength) {
    if (fileLength < SIZE) {
      throw new CorruptFileException(
          "Cannot open Lance file "
              + location
              + ": it is "
              + fileLength
              + " bytes long, shorter than the "
              + SIZE
              + "-byte footer (truncated or not a Lance file).");
    }
    ByteBuffer b = tail.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    int base = b.limit() - SIZE;
    for (int i = 0; i < 4; i++) {
      if (b.get(base + 36 + i) != MAGIC[i]) {
        throw new CorruptFileException(
            "Cannot open Lance file "
                + location
                + ": the last 4 bytes are not the magic \"LANC\" (truncated, still being written, or not a Lance file).");
      }
    }
    long cmStart = b.getLong(base);
    long cmo = b.getLong(base + 8);
    long gbo = b.getLong(base + 16);
    long numGlobal = Integer.toUnsignedLong(b.getInt(base + 24));
    long numColumns = Integer.toUnsignedLong(b.getInt(base + 28));
    int major = Short.toUnsignedInt(b.getShort(base + 32));
    int minor = Short.toUnsignedInt(b.getShort(base + 34));
    FileVersion version = new FileVersion(major, minor);
    long footerStart = fileLength - SIZE;
    if (cmStart < 0
        || cmStart > cmo
        || cmo > gbo
        || gbo > footerStart
        || cmo + 16 * numColumns > gbo
        || gbo + 16 * numGlobal > footerStart) {
      throw new CorruptFileException(
          "Cannot open Lance file "
              + location
              + ": the footer is inconsistent"
              + " (column metadata at "
              + cmStart
              + ", offset tables at "
              + cmo
              + " and "
              + gbo
              + ", "
              + numColumns
              + " columns, "
              + numGlobal
              + " global buffers, file length "
              + fileLength
              + "). The file is truncated or corrupt.");
    }
    return new FileFooter(cmStart, cmo, gbo, (int) numGlobal, (int) numColumns, version);
  }
}
