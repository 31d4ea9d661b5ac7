package dev.lancelot.engine.internal.format;

import com.google.protobuf.ByteString;
import dev.lancelot.engine.internal.format.proto.TableProtos.IndexMetadata;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.roaringbitmap.RoaringBitmap;

/**
 * The fragment bitmap of an index segment as the manifest stores it: the ids of the fragments the
 * segment covers, as a portable Roaring bitmap. Read by the index layer, written by index builds
 * and by the table layer when a commit changes which fragments a segment covers.
 */
public final class FragmentBitmaps {
  private FragmentBitmaps() {}

  /** The fragments {@code index} covers (empty when the manifest stores no bitmap). */
  public static RoaringBitmap of(IndexMetadata index) {
    RoaringBitmap bitmap = new RoaringBitmap();
    if (index.getFragmentBitmap().isEmpty()) {
      return bitmap;
    }
    try {
      bitmap.deserialize(index.getFragmentBitmap().asReadOnlyByteBuffer());
    } catch (IOException | RuntimeException e) {
      throw new CorruptFileException(
          "index " + index.getName(), "its fragment bitmap is not a portable Roaring bitmap", e);
    }
    return bitmap;
  }

  /** {@code bitmap} serialized as the manifest stores it. */
  public static ByteString bytes(RoaringBitmap bitmap) {
    bitmap.runOptimize();
    ByteBuffer buf = ByteBuffer.allocate(bitmap.serializedSizeInBytes());
    bitmap.serialize(buf);
    return ByteString.copyFrom(buf.array());
  }
}
