package dev.lancelot.engine.internal.file;

import dev.lancelot.engine.internal.file.arrow.ColumnSink;
import dev.lancelot.engine.internal.file.arrow.FieldSink;
import dev.lancelot.engine.io.ByteRange;
import dev.lancelot.engine.io.InputFile;
import dev.lancelot.engine.schema.LanceField;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.LargeVarBinaryVector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;

/**
 * Blob columns ({@link LanceField#isBlob()}): the column holds one descriptor per row and the bytes
 * live elsewhere. Descriptors are read like a packed struct; the bytes of the rows a read returns
 * are then fetched with ranged reads, so a read that does not project the column reads none of
 * them.
 *
 * <ul>
 *   <li><b>Legacy blobs</b> (files 2.0 and 2.1): {@code {position: uint64, size: uint64}}, the
 *       bytes at {@code position} of the data file itself. A null row has size 0 and its definition
 *       level in the position (never 0); an empty value has position 0 and size 0. In 2.1 the page
 *       layout is a {@code BlobLayout} around the descriptors' mini-block page; in 2.0 a {@code
 *       PackedStruct} page.
 *   <li><b>Blob v2</b> (files 2.2): {@code {kind: uint8, position: uint64, size: uint64, blob_id:
 *       uint32, blob_uri: utf8}} in a full-zip page, the struct null for a null row. Kind 0
 *       (inline): bytes in the data file; 1 (packed): at {@code position} of the blob file {@code
 *       blob_id}; 2 (dedicated): the whole blob file {@code blob_id}; 3 (external): at a URI, read
 *       when it is under the dataset's root ({@link #externalLocation}). Blob file {@code n} of
 *       data file {@code data/<stem>.lance} is {@code data/<stem>/<32 binary digits of n, least
 *       significant first>.blob}.
 * </ul>
 */
public final class BlobColumns {
  private BlobColumns() {}

  public static final int INLINE = 0;
  public static final int PACKED = 1;
  public static final int DEDICATED = 2;
  public static final int EXTERNAL = 3;

  /**
   * Where one row's bytes are: {@code file} null means the data file itself; {@code size} {@link
   * #TO_THE_END} means from {@code offset} to the end of {@code file} (an external blob that names
   * a whole object).
   */
  public record Location(String file, long offset, long size) {}

  /** {@link Location#size()} of an external blob that is its whole object. */
  public static final long TO_THE_END = -1;

  /** The Arrow field the descriptors of a blob column are read into. */
  static Field descriptorField(LanceField blob) {
    Map<String, String> packed = Map.of("packed", "true");
    List<Field> members;
    if (blob.isBlobV2()) {
      members =
          List.of(
              member("kind", new ArrowType.Int(8, false)),
              member("position", new ArrowType.Int(64, false)),
              member("size", new ArrowType.Int(64, false)),
              member("blob_id", new ArrowType.Int(32, false)),
              member("blob_uri", ArrowType.Utf8.INSTANCE));
    } else {
      members =
          List.of(
              member("position", new ArrowType.Int(64, false)),
              member("size", new ArrowType.Int(64, false)));
    }
    return new Field(
        blob.name(),
        new FieldType(blob.nullable(), ArrowType.Struct.INSTANCE, null, packed),
        members);
  }

  /**
   * The members of a blob v2 column's descriptor as a data file's own schema lists them under the
   * column's struct (without field ids or parent, as Lance 7 writes them).
   */
  public static List<LanceField> descriptorMembers() {
    List<LanceField> out = new ArrayList<>(5);
    String[][] members = {
      {"kind", "uint8"},
      {"position", "uint64"},
      {"size", "uint64"},
      {"blob_id", "uint32"},
      {"blob_uri", "string"}
    };
    for (String[] m : members) {
      out.add(LanceField.of(m[0], m[1], false));
    }
    return out;
  }

  private static Field member(String name, ArrowType type) {
    return new Field(name, FieldType.notNullable(type), List.of());
  }

  /** The name of blob file {@code blobId} of a data file (see the class comment). */
  public static String blobFileName(long blobId) {
    StringBuilder sb = new StringBuilder(37);
    for (int bit = 0; bit < 32; bit++) {
      sb.append(((blobId >>> bit) & 1) == 1 ? '1' : '0');
    }
    return sb.append(".blob").toString();
  }

  /** The directory of a data file's blob files: its location without {@code .lance}. */
  static String blobDirectory(String dataFile) {
    String stem =
        dataFile.endsWith(".lance") ? dataFile.substring(0, dataFile.length() - 6) : dataFile;
    return stem + "/";
  }

  /**
   * The location of each row's bytes from a vector of descriptors ({@link #descriptorField}), null
   * for a null row.
   */
  static List<Location> locations(
      LanceField blob,
      StructVector descriptors,
      String dataFile,
      String context,
      String externalRoot) {
    int n = descriptors.getValueCount();
    List<Location> out = new ArrayList<>(n);
    if (!blob.isBlobV2()) {
      UInt8Vector position = (UInt8Vector) descriptors.getChild("position");
      UInt8Vector size = (UInt8Vector) descriptors.getChild("size");
      for (int i = 0; i < n; i++) {
        if (descriptors.isNull(i)) {
          out.add(null);
          continue;
        }
        long p = position.get(i);
        long s = size.get(i);
        out.add(s == 0 && p != 0 ? null : new Location(null, s == 0 ? 0 : p, s));
      }
      return out;
    }
    UInt1Vector kind = (UInt1Vector) descriptors.getChild("kind");
    UInt8Vector position = (UInt8Vector) descriptors.getChild("position");
    UInt8Vector size = (UInt8Vector) descriptors.getChild("size");
    UInt4Vector blobId = (UInt4Vector) descriptors.getChild("blob_id");
    VarCharVector uri = (VarCharVector) descriptors.getChild("blob_uri");
    String dir = blobDirectory(dataFile);
    for (int i = 0; i < n; i++) {
      if (descriptors.isNull(i)) {
        out.add(null);
        continue;
      }
      int k = Byte.toUnsignedInt(kind.get(i));
      long p = position.get(i);
      long s = size.get(i);
      long id = Integer.toUnsignedLong(blobId.get(i));
      switch (k) {
        case INLINE -> out.add(new Location(null, p, s));
        case PACKED -> out.add(new Location(dir + blobFileName(id), p, s));
        case DEDICATED -> out.add(new Location(dir + blobFileName(id), 0, s));
        case EXTERNAL -> {
          String u = new String(uri.get(i), java.nio.charset.StandardCharsets.UTF_8);
          String where =
              "Cannot read blob column \""
                  + blob.name()
                  + "\" of "
                  + context
                  + ": a row's blob is stored at the external URI "
                  + u;
          if (id != 0) {
            throw new UnsupportedFileFeatureException(
                where
                    + " relative to the dataset's external base "
                    + id
                    + ", which lancelot does not read.");
          }
          String location = externalLocation(u, externalRoot, where);
          out.add(new Location(location, p, p == 0 && s == 0 ? TO_THE_END : s));
        }
        default ->
            throw new CorruptFileException(
                "Cannot read blob column \""
                    + blob.name()
                    + "\" of "
                    + context
                    + ": a descriptor has blob kind "
                    + k
                    + ", which Lance does not define.");
      }
    }
    return out;
  }

  /**
   * The location of an external blob's URI, read only when it is an absolute URI (with a scheme)
   * under the dataset's root {@code root}, without {@code ..} segments: a dataset then makes the
   * reader open only files it could hold itself. Anything else is refused ({@code where} says which
   * row).
   */
  static String externalLocation(String uri, String root, String where) {
    if (root == null) {
      throw new UnsupportedFileFeatureException(
          where + ", which is read only through the dataset (open the dataset).");
    }
    java.net.URI parsed;
    try {
      parsed = new java.net.URI(uri);
    } catch (java.net.URISyntaxException e) {
      throw new CorruptFileException(where + ", which is not a valid URI: " + e.getMessage());
    }
    String path = parsed.getPath();
    boolean dots =
        path == null
            || java.util.Arrays.asList(path.split("/", -1)).contains("..")
            || java.util.Arrays.asList(path.split("/", -1)).contains(".");
    String normalized =
        parsed.getScheme() == null || dots
            ? null
            : new org.apache.hadoop.fs.Path(parsed.normalize()).toString();
    String base = new org.apache.hadoop.fs.Path(root).toString();
    if (normalized == null
        || parsed.getQuery() != null
        || parsed.getFragment() != null
        || !normalized.startsWith(base.endsWith("/") ? base : base + "/")) {
      throw new UnsupportedFileFeatureException(
          where
              + ", outside the dataset's root "
              + base
              + ": lancelot reads external blobs only at absolute URIs under the dataset's root"
              + " (no '.' or '..' segments), never other locations a dataset names.");
    }
    return normalized;
  }

  /**
   * Reads the bytes at {@code locations} (null entries are skipped and give null): ranges of the
   * data file in one coalesced request, each blob file opened once with {@code opener}.
   */
  static ByteBuffer[] read(
      List<Location> locations, InputFile dataFile, Function<String, InputFile> opener) {
    ByteBuffer[] out = new ByteBuffer[locations.size()];
    java.util.Map<String, List<Integer>> byFile = new java.util.LinkedHashMap<>();
    for (int i = 0; i < out.length; i++) {
      Location l = locations.get(i);
      if (l == null) {
        continue;
      }
      if (l.size() == 0) {
        out[i] = ByteBuffer.allocate(0);
        continue;
      }
      if (l.size() != TO_THE_END) {
        checkSize(l, dataFile.location());
      }
      byFile.computeIfAbsent(l.file() == null ? "" : l.file(), k -> new ArrayList<>()).add(i);
    }
    for (java.util.Map.Entry<String, List<Integer>> e : byFile.entrySet()) {
      List<ByteBuffer> got;
      if (e.getKey().isEmpty()) {
        got = dataFile.readRanges(ranges(locations, e.getValue(), dataFile));
      } else {
        try (InputFile blobFile = opener.apply(e.getKey())) {
          got = blobFile.readRanges(ranges(locations, e.getValue(), blobFile));
        }
      }
      for (int k = 0; k < got.size(); k++) {
        out[e.getValue().get(k)] = got.get(k);
      }
    }
    return out;
  }

  private static List<ByteRange> ranges(
      List<Location> locations, List<Integer> rows, InputFile in) {
    List<ByteRange> ranges = new ArrayList<>();
    for (int i : rows) {
      Location l = resolve(locations.get(i), in);
      checkSize(l, in.location());
      ranges.add(new ByteRange(l.offset(), l.size()));
    }
    return ranges;
  }

  /** {@code l} with its size known: {@link #TO_THE_END} becomes the rest of {@code in}. */
  public static Location resolve(Location l, InputFile in) {
    if (l.size() != TO_THE_END) {
      return l;
    }
    long length = in.length();
    if (l.offset() > length) {
      throw new CorruptFileException(
          "A blob starts at byte " + l.offset() + " of " + l.file() + ", which has " + length);
    }
    return new Location(l.file(), l.offset(), length - l.offset());
  }

  static void checkSize(Location l, String dataFile) {
    if (l.size() < 0 || l.size() > Integer.MAX_VALUE - 16 || l.offset() < 0) {
      throw new UnsupportedFileFeatureException(
          "Cannot read a blob of "
              + Long.toUnsignedString(l.size())
              + " bytes at "
              + Long.toUnsignedString(l.offset())
              + " of "
              + (l.file() == null ? dataFile : l.file())
              + " into one Arrow value (at most 2 GiB); read it with Dataset.openBlob instead.");
    }
  }

  /**
   * The sink of a blob column in a read: descriptors go to {@code descriptors}; finishing reads the
   * rows' bytes into a {@code large_binary} vector of {@code field}.
   */
  static FieldSink sink(
      LanceField blob,
      Field field,
      FieldSink descriptors,
      BufferAllocator allocator,
      InputFile dataFile,
      Function<String, InputFile> opener,
      String externalRoot) {
    return new FieldSink() {
      @Override
      public int numColumns() {
        return 1;
      }

      @Override
      public ColumnSink column(int i) {
        return descriptors.column(i);
      }

      @Override
      public FieldVector finish() {
        List<Location> locations;
        try (FieldVector d = descriptors.finish()) {
          locations =
              locations(
                  blob, (StructVector) d, dataFile.location(), dataFile.location(), externalRoot);
        }
        ByteBuffer[] bytes = read(locations, dataFile, opener);
        LargeVarBinaryVector out = (LargeVarBinaryVector) field.createVector(allocator);
        try {
          fill(out, bytes);
          return out;
        } catch (RuntimeException e) {
          out.close();
          throw e;
        }
      }

      @Override
      public void abort() {
        descriptors.abort();
      }
    };
  }

  /** Fills an empty {@code out} with {@code bytes}, a null entry giving a null value. */
  static void fill(LargeVarBinaryVector out, ByteBuffer[] bytes) {
    long total = 0;
    for (ByteBuffer b : bytes) {
      total += b == null ? 0 : b.remaining();
    }
    out.setInitialCapacity(bytes.length);
    out.allocateNew(Math.max(total, 1), bytes.length);
    for (int i = 0; i < bytes.length; i++) {
      if (bytes[i] == null) {
        out.setNull(i);
      } else {
        out.setSafe(i, bytes[i], bytes[i].position(), bytes[i].remaining());
      }
    }
    out.setValueCount(bytes.length);
  }

  /**
   * The sink of a legacy blob field inside a struct, the leaf {@code leaf} of the struct's vector
   * tree: its values are the descriptors (null where the levels say so), and finishing fills {@code
   * leaf} with the bytes they point to.
   */
  static ColumnSink leafSink(
      LanceField blob,
      LargeVarBinaryVector leaf,
      int capacity,
      InputFile dataFile,
      Function<String, InputFile> opener,
      String externalRoot) {
    ColumnSink descriptors =
        dev.lancelot.engine.internal.file.arrow.Sinks.create(
            descriptorField(blob), leaf.getAllocator(), capacity);
    return new ColumnSink() {
      @Override
      public void appendNulls(int n) {
        descriptors.appendNulls(n);
      }

      @Override
      public void append(
          dev.lancelot.engine.internal.file.codec.Values values,
          int from,
          int n,
          short[] defs,
          int defFrom) {
        descriptors.append(values, from, n, defs, defFrom);
      }

      @Override
      public void reserve(int items) {
        descriptors.reserve(items);
      }

      @Override
      public int size() {
        return descriptors.size();
      }

      @Override
      public FieldVector finish() {
        List<Location> locations;
        try (FieldVector d = descriptors.finish()) {
          locations =
              locations(
                  blob, (StructVector) d, dataFile.location(), dataFile.location(), externalRoot);
        }
        fill(leaf, read(locations, dataFile, opener));
        return leaf;
      }

      @Override
      public void abort() {
        descriptors.abort();
      }
    };
  }

  /**
   * The sinks of the blob fields inside struct {@code top} (legacy blobs, as Lance 7 writes them in
   * 2.1 and 2.2 files; read as their bytes). Blob fields inside lists, packed structs or 2.0 files
   * are refused naming them.
   */
  static dev.lancelot.engine.internal.file.arrow.LeafSinks nestedBlobs(
      LanceField top,
      FileVersion version,
      InputFile file,
      Function<String, InputFile> blobFiles,
      String externalBlobRoot) {
    List<LanceField> columns = new ArrayList<>();
    boolean any = columnFields(top, columns, false, top, version, file.location());
    if (!any) {
      return dev.lancelot.engine.internal.file.arrow.LeafSinks.NONE;
    }
    return (column, leaf, capacity) -> {
      LanceField f = column < columns.size() ? columns.get(column) : null;
      if (f == null || !f.isBlob()) {
        return null;
      }
      if (!(leaf instanceof org.apache.arrow.vector.LargeVarBinaryVector bytes)) {
        throw new CorruptFileException(
            "Cannot read field \""
                + top.name()
                + "\" of "
                + file.location()
                + ": blob field \""
                + f.name()
                + "\" is not read as large_binary.");
      }
      return leafSink(f, bytes, capacity, file, blobFiles, externalBlobRoot);
    };
  }

  /**
   * Adds the column fields of {@code f} (pre-order, as its sinks' columns) to {@code out}; returns
   * whether a blob field is among them, refusing those Lance does not store readably.
   */
  private static boolean columnFields(
      LanceField f,
      List<LanceField> out,
      boolean inList,
      LanceField top,
      FileVersion version,
      String location) {
    if (f.isColumn()) {
      out.add(f);
      if (f.isBlob() && !f.equals(top)) {
        String why =
            inList
                ? "Lance 7 writes the blob descriptors of list items without the list lengths, so"
                    + " the lists cannot be rebuilt (lance-core 7 cannot read them either)"
                : f.isBlobV2()
                    ? "lancelot reads blob v2 fields at the top level only"
                    : version.equals(FileVersion.V2_0)
                        ? "lancelot reads blob fields inside structs in files of format 2.1 and"
                            + " later"
                        : null;
        if (why != null) {
          throw new UnsupportedFileFeatureException(
              "Cannot read field \""
                  + top.name()
                  + "\" of "
                  + location
                  + ": it holds the blob field \""
                  + f.name()
                  + "\"; "
                  + why
                  + ".");
        }
        return true;
      }
      if (!f.isLeaf() && hasBlob(f)) {
        throw new UnsupportedFileFeatureException(
            "Cannot read field \""
                + top.name()
                + "\" of "
                + location
                + ": it holds a blob field inside the packed struct \""
                + f.name()
                + "\", which lancelot does not read.");
      }
      return false;
    }
    boolean any = false;
    boolean list = inList || !f.logicalType().equals("struct");
    for (LanceField c : f.children()) {
      any |= columnFields(c, out, list, top, version, location);
    }
    return any;
  }

  private static boolean hasBlob(LanceField f) {
    for (LanceField c : f.children()) {
      if (c.isBlob() || hasBlob(c)) {
        return true;
      }
    }
    return false;
  }
}
