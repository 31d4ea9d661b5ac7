package dev.lancelot.engine.internal.format;

import com.google.protobuf.ByteString;
import java.nio.ByteBuffer;
import java.util.UUID;

/** Index segment ids as the manifest stores them: 16 bytes, most significant first. */
public final class IndexUuids {
  private IndexUuids() {}

  public static UUID uuidOf(ByteString bytes) {
    if (bytes.size() != 16) {
      throw new CorruptFileException(
          "index metadata", "an index uuid has " + bytes.size() + " bytes, expected 16");
    }
    ByteBuffer b = bytes.asReadOnlyByteBuffer();
    return new UUID(b.getLong(), b.getLong());
  }

  public static ByteString uuidBytes(UUID uuid) {
    ByteBuffer b = ByteBuffer.allocate(16);
    b.putLong(uuid.getMostSignificantBits()).putLong(uuid.getLeastSignificantBits());
    return ByteString.copyFrom(b.array());
  }
}
