package dev.lancelot.engine.internal.file.layout;

import dev.lancelot.engine.internal.file.codec.Codecs;
import dev.lancelot.engine.internal.file.codec.DecodeException;
import dev.lancelot.engine.internal.file.container.PageInfo;
import dev.lancelot.engine.internal.file.proto.Encodings21Protos.AllNullLayout;
import dev.lancelot.engine.internal.file.proto.Encodings21Protos.FullZipLayout;
import dev.lancelot.engine.internal.file.proto.Encodings21Protos.MiniBlockLayout;
import dev.lancelot.engine.internal.file.proto.Encodings21Protos.PageLayout;
import dev.lancelot.engine.internal.file.proto.Encodings21Protos.RepDefLayer;
import java.util.List;

/** Chooses the page reader for a page layout, and describes layouts in words. */
public final class Layouts {
  private Layouts() {}

  /** The reader for a page; fails with {@link DecodeException#unsupported} for unknown layouts. */
  public static PageReader reader(PageInfo page) {
    PageLayout layout = page.layout();
    if (layout != null) {
      rejectUnknownFields(layout, "PageLayout");
    }
    if (layout == null) {
      if (page.arrayEncoding() != null) {
        rejectUnknownFields(page.arrayEncoding(), "ArrayEncoding");
        return new dev.lancelot.engine.internal.file.v20.Page20Reader(page);
      }
      throw DecodeException.unsupported("page encoding " + page.encodingType());
    }
    return switch (layout.getLayoutCase()) {
      case MINI_BLOCK_LAYOUT -> new MiniBlockPageReader(page, layout.getMiniBlockLayout());
      case FULL_ZIP_LAYOUT -> new FullZipPageReader(page, layout.getFullZipLayout());
      case ALL_NULL_LAYOUT -> new AllNullPageReader(page, layout.getAllNullLayout());
      case BLOB_LAYOUT -> blobDescriptorReader(page, layout.getBlobLayout());
      default ->
          throw DecodeException.unsupported(
              "page layout " + layout.getLayoutCase() + " (unknown to this reader)");
    };
  }

  /**
   * The reader of a legacy blob page's descriptors: a {@code BlobLayout} wraps the layout of the
   * page's (position, size) descriptors, which hold every row (a null row's definition level is
   * folded into its position, with size 0); the wrapper's layers say what the field's levels mean.
   * A top-level blob field has one item layer; a blob field inside structs more ({@link
   * NestedBlobPageReader}); blob fields inside lists are refused there.
   */
  private static PageReader blobDescriptorReader(
      PageInfo page, dev.lancelot.engine.internal.file.proto.Encodings21Protos.BlobLayout blob) {
    PageLayout inner = blob.getInnerLayout();
    PageReader descriptors =
        switch (inner.getLayoutCase()) {
          case MINI_BLOCK_LAYOUT -> new MiniBlockPageReader(page, inner.getMiniBlockLayout());
          case FULL_ZIP_LAYOUT -> new FullZipPageReader(page, inner.getFullZipLayout());
          default ->
              throw DecodeException.unsupported("blob page layout around " + describe(inner));
        };
    if (blob.getLayersCount() <= 1) {
      for (RepDefLayer layer : blob.getLayersList()) {
        if (layer != RepDefLayer.REPDEF_ALL_VALID_ITEM
            && layer != RepDefLayer.REPDEF_NULLABLE_ITEM) {
          throw DecodeException.corrupt(
              "blob page layout with layers " + layers(blob.getLayersList()));
        }
      }
      return descriptors;
    }
    return new NestedBlobPageReader(
        descriptors,
        dev.lancelot.engine.internal.file.repdef.RepDefLayers.of(blob.getLayersList()));
  }

  /**
   * Refuses layouts carrying fields this reader does not know (a newer writer's extension could
   * change what the bytes mean: better an error than wrong values).
   */
  static void rejectUnknownFields(com.google.protobuf.Message m, String path) {
    if (!m.getUnknownFields().asMap().isEmpty()) {
      throw DecodeException.unsupported(
          "page layout field(s) "
              + m.getUnknownFields().asMap().keySet()
              + " of "
              + path
              + " (written by a newer Lance)");
    }
    for (java.util.Map.Entry<com.google.protobuf.Descriptors.FieldDescriptor, Object> e :
        m.getAllFields().entrySet()) {
      if (e.getKey().getJavaType()
          != com.google.protobuf.Descriptors.FieldDescriptor.JavaType.MESSAGE) {
        continue;
      }
      if (e.getKey().isRepeated()) {
        for (Object o : (java.util.List<?>) e.getValue()) {
          rejectUnknownFields((com.google.protobuf.Message) o, path + "." + e.getKey().getName());
        }
      } else {
        rejectUnknownFields(
            (com.google.protobuf.Message) e.getValue(), path + "." + e.getKey().getName());
      }
    }
  }

  /** One-line description of a page layout with its encodings. */
  public static String describe(PageInfo page) {
    if (page.arrayEncoding() != null) {
      return dev.lancelot.engine.internal.file.v20.Page20Reader.describe(page.arrayEncoding());
    }
    if (page.layout() == null) {
      return page.encodingType();
    }
    return describeWithBuffers(page);
  }

  public static String describe(PageLayout layout) {
    return switch (layout.getLayoutCase()) {
      case MINI_BLOCK_LAYOUT -> describe(layout.getMiniBlockLayout());
      case FULL_ZIP_LAYOUT -> describe(layout.getFullZipLayout());
      case ALL_NULL_LAYOUT -> describe(layout.getAllNullLayout());
      case BLOB_LAYOUT ->
          "Blob["
              + describe(layout.getBlobLayout().getInnerLayout())
              + ", layers="
              + layers(layout.getBlobLayout().getLayersList())
              + "]";
      default -> "unknown layout";
    };
  }

  static String describe(MiniBlockLayout l) {
    StringBuilder sb =
        new StringBuilder("MiniBlock[values=").append(Codecs.describe(l.getValueCompression()));
    if (l.hasDefCompression()) {
      sb.append(", def=").append(Codecs.describe(l.getDefCompression()));
    }
    if (l.hasRepCompression()) {
      sb.append(", rep=").append(Codecs.describe(l.getRepCompression()));
    }
    if (l.hasDictionary()) {
      sb.append(", dictionary=")
          .append(Codecs.describe(l.getDictionary()))
          .append(" x")
          .append(l.getNumDictionaryItems());
    }
    if (l.getRepetitionIndexDepth() > 0) {
      sb.append(", repindex depth ").append(l.getRepetitionIndexDepth());
    }
    if (l.getHasLargeChunk()) {
      sb.append(", large chunks");
    }
    return sb.append(", layers=").append(layers(l.getLayersList())).append(']').toString();
  }

  static String describe(FullZipLayout l) {
    StringBuilder sb = new StringBuilder("FullZip[");
    if (l.hasBitsPerValue()) {
      sb.append("fixed ").append(l.getBitsPerValue()).append(" bits");
    } else {
      sb.append("variable, ").append(l.getBitsPerOffset()).append("-bit lengths");
    }
    sb.append(", values=").append(Codecs.describe(l.getValueCompression()));
    if (l.getBitsRep() + l.getBitsDef() > 0) {
      sb.append(", rep bits ").append(l.getBitsRep()).append(", def bits ").append(l.getBitsDef());
    }
    return sb.append(", layers=").append(layers(l.getLayersList())).append(']').toString();
  }

  static String describe(AllNullLayout l) {
    if (l.hasConstantValue()) {
      return "Constant[inline "
          + l.getConstantValue().size()
          + " bytes, layers="
          + layers(l.getLayersList())
          + "]";
    }
    return "AllNull[layers=" + layers(l.getLayersList()) + "]";
  }

  /**
   * Like {@link #describe(PageLayout)} but tells constant pages whose value is in a buffer (2.2).
   */
  static String describeWithBuffers(PageInfo page) {
    PageLayout layout = page.layout();
    if (layout.hasAllNullLayout()
        && !layout.getAllNullLayout().hasConstantValue()
        && (page.numBuffers() == 1 || page.numBuffers() == 3)) {
      return "Constant[value in buffer 0, layers="
          + layers(layout.getAllNullLayout().getLayersList())
          + "]";
    }
    return describe(layout);
  }

  private static String layers(List<RepDefLayer> layers) {
    StringBuilder sb = new StringBuilder();
    for (RepDefLayer layer : layers) {
      if (sb.length() > 0) {
        sb.append('/');
      }
      sb.append(layer.name().replace("REPDEF_", "").toLowerCase(java.util.Locale.ROOT));
    }
    return sb.toString();
  }
}
