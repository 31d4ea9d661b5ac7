package dev.lancelot.engine.internal.file.write;

import dev.lancelot.engine.internal.file.BlobColumns;
import dev.lancelot.engine.internal.file.proto.Encodings21Protos.AllNullLayout;
import dev.lancelot.engine.internal.file.proto.Encodings21Protos.BlobLayout;
import dev.lancelot.engine.internal.file.proto.Encodings21Protos.CompressiveEncoding;
import dev.lancelot.engine.internal.file.proto.Encodings21Protos.FullZipLayout;
import dev.lancelot.engine.internal.file.proto.Encodings21Protos.MiniBlockLayout;
import dev.lancelot.engine.internal.file.proto.Encodings21Protos.PackedStruct;
import dev.lancelot.engine.internal.file.proto.Encodings21Protos.PageLayout;
import dev.lancelot.engine.internal.file.proto.Encodings21Protos.RepDefLayer;
import dev.lancelot.engine.internal.file.proto.Encodings21Protos.VariablePackedStruct;
import dev.lancelot.engine.schema.LanceField;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.LargeVarBinaryVector;
import org.apache.arrow.vector.VarBinaryVector;

/**
 * Writes a blob column ({@link LanceField#isBlob()}, values {@code large_binary}) as Lance 7 does:
 * the bytes out of line, the column one descriptor per row (see {@link BlobColumns} for the
 * layouts).
 *
 * <ul>
 *   <li><b>Legacy</b> (2.1 files): each value's bytes go into the data file as the rows arrive
 *       (before the pages that describe them); the descriptor {@code (position, size)} is a 16-byte
 *       value in a mini-block page whose values are {@code PackedStruct(Flat(128))}, wrapped in a
 *       {@code BlobLayout}. A null row has size 0 and its definition level (1) shifted left by 16
 *       into the position; an empty value has position and size 0.
 *   <li><b>Blob v2</b> (2.2 files): values of at most {@link #INLINE_MAX} bytes are inline in the
 *       data file (kind 0), larger ones up to {@link #DEDICATED_MIN} bytes go into a packed blob
 *       file (kind 1), larger still into a dedicated blob file each (kind 2) ({@link BlobFiles}).
 *       The descriptor {@code (kind, position, size, blob_id, blob_uri)} is one row of a full-zip
 *       {@code VariablePackedStruct} page, the row empty and its definition level 1 when null.
 * </ul>
 */
final class BlobFieldWriter implements FieldWriter {
  /** Largest blob v2 value kept inline in the data file (Lance 7's threshold). */
  static final int INLINE_MAX = 64 * 1024;

  /** Largest blob v2 value written to a packed blob file (Lance 7's threshold). */
  static final int DEDICATED_MIN = 4 * 1024 * 1024;

  /** Bytes of a blob v2 descriptor row without its URI. */
  private static final int V2_ROW_BYTES = 1 + 8 + 8 + 4 + 4;

  private final LanceField field;
  private final BlobFiles blobFiles;
  private final ColumnWriter column;

  /** {@code blobFiles} null writes the legacy layout, else blob v2. */
  BlobFieldWriter(LanceField field, long maxPageBytes, BlobFiles blobFiles) {
    this.field = field;
    this.blobFiles = blobFiles;
    if (blobFiles == null) {
      RepDefLayer layer =
          field.nullable() ? RepDefLayer.REPDEF_NULLABLE_ITEM : RepDefLayer.REPDEF_ALL_VALID_ITEM;
      this.column =
          new ColumnWriter(
              field,
              new FlatColumnBuffer(new FixedItems(16)),
              maxPageBytes,
              l -> legacyLayout(l, layer));
    } else {
      VarItems items = new VarItems(4);
      items.fullZipOnly = true;
      this.column =
          new ColumnWriter(
              field, new FlatColumnBuffer(items), maxPageBytes, BlobFieldWriter::v2Layout);
    }
  }

  @Override
  public LanceField field() {
    return field;
  }

  @Override
  public List<ColumnWriter> columns() {
    return List.of(column);
  }

  @Override
  public void append(FieldVector v, AlignedOutput out) throws IOException {
    LargeVarBinaryVector values = (LargeVarBinaryVector) v;
    int n = values.getValueCount();
    if (blobFiles == null) {
      appendLegacy(values, n, out);
    } else {
      appendV2(values, n, out);
    }
  }

  private void appendLegacy(LargeVarBinaryVector values, int n, AlignedOutput out)
      throws IOException {
    try (FixedSizeBinaryVector d =
        new FixedSizeBinaryVector("descriptors", values.getAllocator(), 16)) {
      d.allocateNew(Math.max(n, 1));
      ByteBuffer row = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
      for (int i = 0; i < n; i++) {
        long position = 0;
        long size = 0;
        if (values.isNull(i)) {
          position = 1L << 16;
        } else {
          byte[] bytes = values.get(i);
          if (bytes.length > 0) {
            position = out.write(bytes);
            size = bytes.length;
          }
        }
        row.clear();
        row.putLong(position).putLong(size);
        d.set(i, row.array());
      }
      d.setValueCount(n);
      column.append(d, out);
    }
  }

  private void appendV2(LargeVarBinaryVector values, int n, AlignedOutput out) throws IOException {
    try (VarBinaryVector d = new VarBinaryVector("descriptors", values.getAllocator())) {
      d.allocateNew((long) n * V2_ROW_BYTES + 1, Math.max(n, 1));
      ByteBuffer row = ByteBuffer.allocate(V2_ROW_BYTES).order(ByteOrder.LITTLE_ENDIAN);
      for (int i = 0; i < n; i++) {
        if (values.isNull(i)) {
          d.setNull(i);
          continue;
        }
        byte[] bytes = values.get(i);
        int kind;
        long position = 0;
        long blobId = 0;
        if (bytes.length > DEDICATED_MIN) {
          kind = BlobColumns.DEDICATED;
          blobId = blobFiles.dedicated(bytes);
        } else if (bytes.length > INLINE_MAX) {
          kind = BlobColumns.PACKED;
          BlobFiles.Placed p = blobFiles.packed(bytes);
          blobId = p.id();
          position = p.position();
        } else {
          kind = BlobColumns.INLINE;
          // an empty value is at the current position, as Lance writes it, and never at 0:
          // lance-core takes an inline descriptor with position and size 0 for a null row
          position = bytes.length == 0 ? Math.max(1, out.position()) : out.write(bytes);
        }
        row.clear();
        row.put((byte) kind)
            .putLong(position)
            .putLong(bytes.length)
            .putInt((int) blobId)
            .putInt(0); // an empty URI
        d.setSafe(i, row.array());
      }
      d.setValueCount(n);
      column.append(d, out);
    }
  }

  private static CompressiveEncoding flat(int bits) {
    return MiniBlockBuilder.flat(bits);
  }

  /** The mini-block page of 16-byte descriptors as a legacy blob page. */
  private static PageLayout legacyLayout(PageLayout page, RepDefLayer layer) {
    if (!page.hasMiniBlockLayout()) {
      throw new IllegalStateException("legacy blob descriptors in a " + page.getLayoutCase());
    }
    MiniBlockLayout mini = page.getMiniBlockLayout();
    MiniBlockLayout packed =
        mini.toBuilder()
            .setValueCompression(
                CompressiveEncoding.newBuilder()
                    .setPackedStruct(
                        PackedStruct.newBuilder()
                            .addBitsPerValue(64)
                            .addBitsPerValue(64)
                            .setValues(mini.getValueCompression())))
            .build();
    return PageLayout.newBuilder()
        .setBlobLayout(
            BlobLayout.newBuilder()
                .setInnerLayout(PageLayout.newBuilder().setMiniBlockLayout(packed))
                .addLayers(layer))
        .build();
  }

  /** The full-zip page of descriptor rows as a blob v2 page: a packed struct of five members. */
  private static PageLayout v2Layout(PageLayout page) {
    return switch (page.getLayoutCase()) {
      case FULL_ZIP_LAYOUT -> {
        FullZipLayout zip = page.getFullZipLayout();
        VariablePackedStruct.Builder members = VariablePackedStruct.newBuilder();
        for (int bits : new int[] {8, 64, 64, 32}) {
          members.addFields(
              VariablePackedStruct.FieldEncoding.newBuilder()
                  .setValue(flat(bits))
                  .setBitsPerValue(bits));
        }
        members.addFields(
            VariablePackedStruct.FieldEncoding.newBuilder()
                .setValue(
                    CompressiveEncoding.newBuilder()
                        .setVariable(
                            dev.lancelot.engine.internal.file.proto.Encodings21Protos.Variable
                                .newBuilder()
                                .setOffsets(flat(32))))
                .setBitsPerLength(32));
        FullZipLayout.Builder b =
            zip.toBuilder()
                .setValueCompression(
                    CompressiveEncoding.newBuilder().setVariablePackedStruct(members))
                .clearLayers()
                .addLayers(RepDefLayer.REPDEF_ALL_VALID_ITEM)
                .addAllLayers(zip.getLayersList());
        yield PageLayout.newBuilder().setFullZipLayout(b).build();
      }
      case ALL_NULL_LAYOUT ->
          PageLayout.newBuilder()
              .setAllNullLayout(
                  AllNullLayout.newBuilder()
                      .addLayers(RepDefLayer.REPDEF_ALL_VALID_ITEM)
                      .addLayers(RepDefLayer.REPDEF_NULLABLE_ITEM))
              .build();
      default ->
          throw new IllegalStateException("blob v2 descriptors in a " + page.getLayoutCase());
    };
  }
}
