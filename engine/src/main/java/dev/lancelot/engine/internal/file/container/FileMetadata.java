package dev.lancelot.engine.internal.file.container;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.lancelot.engine.internal.file.CorruptFileException;
import dev.lancelot.engine.internal.file.FileVersion;
import dev.lancelot.engine.internal.file.UnsupportedFileFeatureException;
import dev.lancelot.engine.internal.file.proto.Encodings20Protos.ArrayEncoding;
import dev.lancelot.engine.internal.file.proto.Encodings21Protos.PageLayout;
import dev.lancelot.engine.internal.file.proto.File2Protos;
import dev.lancelot.engine.internal.format.SchemaProtos;
import dev.lancelot.engine.internal.format.proto.FileProtos;
import dev.lancelot.engine.io.ByteRange;
import dev.lancelot.engine.io.InputFile;
import dev.lancelot.engine.schema.LanceSchema;
import dev.lancelot.engine.schema.SchemaException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * Everything read when a file is opened: footer, schema, row count and the metadata of every
 * column. Immutable and thread-safe.
 *
 * <p>Opening costs one read of the last {@value #TAIL_READ_BYTES} bytes, plus one more read only
 * when the schema and column metadata do not fit in it.
 */
public final class FileMetadata {
  /** Bytes fetched by the first (speculative) tail read. */
  public static final int TAIL_READ_BYTES = 64 * 1024;

  /** Type URL of 2.1+ page layouts. */
  public static final String PAGE_LAYOUT_21 = "/lance.encodings21.PageLayout";

  /** Type URL of 2.0 page encodings. */
  public static final String ARRAY_ENCODING_20 = "/lance.encodings.ArrayEncoding";

  private final String location;
  private final long fileLength;
  private final FileFooter footer;
  private final LanceSchema schema;
  private final long numRows;
  private final List<ColumnInfo> columns;
  private final List<ByteRange> globalBuffers;

  private FileMetadata(
      String location,
      long fileLength,
      FileFooter footer,
      LanceSchema schema,
      long numRows,
      List<ColumnInfo> columns,
      List<ByteRange> globalBuffers) {
    this.location = location;
    this.fileLength = fileLength;
    this.footer = footer;
    this.schema = schema;
    this.numRows = numRows;
    this.columns = List.copyOf(columns);
    this.globalBuffers = List.copyOf(globalBuffers);
  }

  /** Reads and validates the metadata of a Lance 2.x file. */
  public static FileMetadata read(InputFile file) {
    String location = file.location();
    long len = file.length();
    ByteBuffer tail =
        file.readTail((int) Math.min(len, TAIL_READ_BYTES)).order(ByteOrder.LITTLE_ENDIAN);
    long tailStart = len - tail.remaining();
    FileFooter footer = FileFooter.parse(location, tail, len);
    FileVersion version = footer.version();
    if (version.equals(FileVersion.LEGACY) || (version.major() == 0 && version.minor() < 3)) {
      throw new UnsupportedFileFeatureException(
          "Cannot open Lance file "
              + location
              + ": it uses the legacy"
              + " file format "
              + version.major()
              + "."
              + version.minor()
              + ", which lancelot does not read. Rewrite the dataset with Lance 0.20 or later.");
    }
    if (!version.equals(FileVersion.V2_0)
        && !version.equals(FileVersion.V2_1)
        && !version.equals(FileVersion.V2_2)) {
      throw new UnsupportedFileFeatureException(
          "Cannot open Lance file "
              + location
              + ": file format version "
              + version.major()
              + "."
              + version.minor()
              + " is not supported (supported: 2.0, 2.1, 2.2).");
    }
    if (footer.numGlobalBuffers() < 1) {
      throw new CorruptFileException(
          "Cannot open Lance file "
              + location
              + ": it has no global buffers, so no schema. The file is corrupt.");
    }
    // Everything from the start of the metadata section to the end of the file.
    Region region = new Region(location, tail, tailStart, len);
    region.ensure(file, footer.gboTablePosition());
    List<ByteRange> globals = new ArrayList<>(footer.numGlobalBuffers());
    for (int i = 0; i < footer.numGlobalBuffers(); i++) {
      long pos = region.getLong(footer.gboTablePosition() + 16L * i);
      long size = region.getLong(footer.gboTablePosition() + 16L * i + 8);
      checkRange(location, "global buffer " + i, pos, size, len);
      globals.add(new ByteRange(pos, size));
    }
    ByteRange descriptorRange = globals.get(0);
    region.ensure(file, Math.min(descriptorRange.offset(), footer.columnMetadataStart()));

    FileProtos.FileDescriptor descriptor;
    try {
      descriptor =
          FileProtos.FileDescriptor.parseFrom(
              region.slice(descriptorRange.offset(), (int) descriptorRange.length()));
    } catch (InvalidProtocolBufferException e) {
      throw new CorruptFileException(
          "Cannot open Lance file "
              + location
              + ": the file descriptor (global buffer 0) is not a valid protobuf message. The file is corrupt.",
          e);
    }
    LanceSchema schema;
    try {
      schema = SchemaProtos.fromProto(descriptor.getSchema());
    } catch (SchemaException e) {
      throw new CorruptFileException(
          "Cannot open Lance file " + location + ": " + e.getMessage(), e);
    }

    List<ColumnInfo> columns = new ArrayList<>(footer.numColumns());
    for (int c = 0; c < footer.numColumns(); c++) {
      long pos = region.getLong(footer.cmoTablePosition() + 16L * c);
      long size = region.getLong(footer.cmoTablePosition() + 16L * c + 8);
      if (pos < footer.columnMetadataStart()
          || size < 0
          || pos + size > footer.cmoTablePosition()) {
        throw new CorruptFileException(
            "Cannot open Lance file "
                + location
                + ": metadata of column "
                + c
                + " at ["
                + pos
                + ", "
                + (pos + size)
                + ") lies outside the column metadata section. The file is corrupt.");
      }
      File2Protos.ColumnMetadata meta;
      try {
        meta = File2Protos.ColumnMetadata.parseFrom(region.slice(pos, (int) size));
      } catch (InvalidProtocolBufferException e) {
        throw new CorruptFileException(
            "Cannot open Lance file "
                + location
                + ": metadata of column "
                + c
                + " is not a valid protobuf message. The file is corrupt.",
            e);
      }
      columns.add(toColumn(location, c, meta, len));
    }
    return new FileMetadata(
        location, len, footer, schema, descriptor.getLength(), columns, globals);
  }

  private static ColumnInfo toColumn(
      String location, int c, File2Protos.ColumnMetadata meta, long fileLength) {
    List<PageInfo> pages = new ArrayList<>(meta.getPagesCount());
    long row = 0;
    for (int p = 0; p < meta.getPagesCount(); p++) {
      File2Protos.ColumnMetadata.Page page = meta.getPages(p);
      if (page.getBufferOffsetsCount() != page.getBufferSizesCount()) {
        throw new CorruptFileException(
            "Cannot open Lance file "
                + location
                + ": page "
                + p
                + " of column "
                + c
                + " lists "
                + page.getBufferOffsetsCount()
                + " buffer offsets but "
                + page.getBufferSizesCount()
                + " sizes. The file is corrupt.");
      }
      long[] offsets = new long[page.getBufferOffsetsCount()];
      long[] sizes = new long[offsets.length];
      for (int b = 0; b < offsets.length; b++) {
        offsets[b] = page.getBufferOffsets(b);
        sizes[b] = page.getBufferSizes(b);
        checkRange(
            location,
            "buffer " + b + " of page " + p + " of column " + c,
            offsets[b],
            sizes[b],
            fileLength);
      }
      Any any = unpackAny(location, "page " + p + " of column " + c, page.getEncoding());
      PageLayout layout = null;
      if (any.getTypeUrl().equals(PAGE_LAYOUT_21)) {
        try {
          layout = PageLayout.parseFrom(any.getValue());
        } catch (InvalidProtocolBufferException e) {
          throw new CorruptFileException(
              "Cannot open Lance file "
                  + location
                  + ": the layout of page "
                  + p
                  + " of column "
                  + c
                  + " is not a valid PageLayout message. The file is corrupt.",
              e);
        }
      }
      ArrayEncoding arrayEncoding = null;
      if (any.getTypeUrl().equals(ARRAY_ENCODING_20)) {
        try {
          arrayEncoding = ArrayEncoding.parseFrom(any.getValue());
        } catch (InvalidProtocolBufferException e) {
          throw new CorruptFileException(
              "Cannot open Lance file "
                  + location
                  + ": the encoding of page "
                  + p
                  + " of column "
                  + c
                  + " is not a valid ArrayEncoding message. The file is corrupt.",
              e);
        }
      }
      pages.add(
          new PageInfo(
              p, row, page.getLength(), offsets, sizes, layout, any.getTypeUrl(), arrayEncoding));
      row += page.getLength();
    }
    String columnEncoding =
        meta.hasEncoding()
            ? unpackAny(location, "column " + c, meta.getEncoding()).getTypeUrl()
            : "";
    long[] cOffsets = meta.getBufferOffsetsList().stream().mapToLong(Long::longValue).toArray();
    long[] cSizes = meta.getBufferSizesList().stream().mapToLong(Long::longValue).toArray();
    return new ColumnInfo(c, pages, columnEncoding, cOffsets, cSizes);
  }

  private static Any unpackAny(String location, String what, File2Protos.Encoding encoding) {
    if (!encoding.hasDirect()) {
      throw new UnsupportedFileFeatureException(
          "Cannot open Lance file "
              + location
              + ": the encoding of "
              + what
              + " is stored "
              + (encoding.hasIndirect() ? "indirectly (deferred)" : "nowhere")
              + ", which lancelot does not support.");
    }
    try {
      return Any.parseFrom(encoding.getDirect().getEncoding());
    } catch (InvalidProtocolBufferException e) {
      throw new CorruptFileException(
          "Cannot open Lance file "
              + location
              + ": the encoding of "
              + what
              + " is not a valid protobuf Any. The file is corrupt.",
          e);
    }
  }

  private static void checkRange(
      String location, String what, long pos, long size, long fileLength) {
    if (pos < 0 || size < 0 || pos + size > fileLength) {
      throw new CorruptFileException(
          "Cannot open Lance file "
              + location
              + ": "
              + what
              + " at ["
              + pos
              + ", "
              + (pos + size)
              + ") lies outside the file of "
              + fileLength
              + " bytes. The file is truncated or corrupt.");
    }
  }

  /** The bytes [start, fileLength) of the file, grown on demand with one extra read. */
  private static final class Region {
    private final String location;
    private final long fileLength;
    private ByteBuffer bytes;
    private long start;

    Region(String location, ByteBuffer tail, long start, long fileLength) {
      this.location = location;
      this.bytes = tail;
      this.start = start;
      this.fileLength = fileLength;
    }

    void ensure(InputFile file, long from) {
      if (from >= start) {
        return;
      }
      if (from < 0) {
        throw new CorruptFileException(
            "Cannot open Lance file "
                + location
                + ": metadata offset "
                + from
                + " is negative. The file is corrupt.");
      }
      ByteBuffer prefix = file.read(from, (int) (start - from));
      ByteBuffer merged =
          ByteBuffer.allocate((int) (fileLength - from)).order(ByteOrder.LITTLE_ENDIAN);
      merged.put(prefix.duplicate()).put(bytes.duplicate()).flip();
      bytes = merged;
      start = from;
    }

    long getLong(long pos) {
      return bytes.getLong(bytes.position() + (int) (pos - start));
    }

    ByteString slice(long pos, int len) {
      ByteBuffer dup = bytes.duplicate();
      dup.position(bytes.position() + (int) (pos - start));
      dup.limit(dup.position() + len);
      return ByteString.copyFrom(dup);
    }
  }

  public String location() {
    return location;
  }

  public long fileLength() {
    return fileLength;
  }

  public FileFooter footer() {
    return footer;
  }

  public FileVersion version() {
    return footer.version();
  }

  public LanceSchema schema() {
    return schema;
  }

  public long numRows() {
    return numRows;
  }

  public List<ColumnInfo> columns() {
    return columns;
  }

  public ColumnInfo column(int index) {
    return columns.get(index);
  }

  /** Positions and sizes of the global buffers (buffer 0 is the file descriptor). */
  public List<ByteRange> globalBuffers() {
    return globalBuffers;
  }
}
