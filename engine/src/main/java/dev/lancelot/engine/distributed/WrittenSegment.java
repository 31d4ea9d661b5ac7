package dev.lancelot.engine.distributed;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.internal.format.proto.TableProtos.IndexMetadata;
import java.io.Serializable;
import java.util.Arrays;

/**
 * An index segment written by an {@link IndexBuildTask} but not yet committed: its manifest entry.
 * What a task sends back to the coordinator, which commits every segment of a build in one version.
 * {@linkplain #toBytes() Travels as bytes}.
 */
public final class WrittenSegment implements Serializable {
  private static final long serialVersionUID = 1L;
  private final byte[] metadata;

  WrittenSegment(IndexMetadata metadata) {
    this.metadata = metadata.toByteArray();
  }

  IndexMetadata internal() {
    try {
      return IndexMetadata.parseFrom(metadata);
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("Corrupt index segment metadata", e);
    }
  }

  /** The segment's index name. */
  public String indexName() {
    return internal().getName();
  }

  /** The segment's manifest entry as bytes ({@link #fromBytes} reads them back). */
  public byte[] toBytes() {
    return metadata.clone();
  }

  /**
   * Reads what {@link #toBytes} wrote.
   *
   * @throws InvalidInputException if the bytes are not an index segment's manifest entry
   */
  public static WrittenSegment fromBytes(byte[] bytes) {
    try {
      return new WrittenSegment(IndexMetadata.parseFrom(bytes));
    } catch (InvalidProtocolBufferException e) {
      throw new InvalidInputException(
          "Cannot read an index segment's metadata: the bytes are corrupt ("
              + e.getMessage()
              + ")");
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof WrittenSegment other && Arrays.equals(metadata, other.metadata);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(metadata);
  }

  @Override
  public String toString() {
    return "WrittenSegment[" + indexName() + "]";
  }
}
