package dev.lancelot.engine;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFragment;
import java.io.Serializable;
import java.util.Arrays;

/**
 * A fragment written but not yet committed: what a distributed writer's task sends back to the
 * driver, which commits all of them as one version. Serializable; carries the fragment's manifest
 * entry (without an id: ids are assigned at commit).
 */
public final class FragmentMetadata implements Serializable {
  private static final long serialVersionUID = 1L;
  private final byte[] fragment;

  FragmentMetadata(DataFragment fragment) {
    this.fragment = fragment.toByteArray();
  }

  DataFragment toProto() {
    try {
      return DataFragment.parseFrom(fragment);
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("Corrupt fragment metadata", e);
    }
  }

  public long physicalRows() {
    return toProto().getPhysicalRows();
  }

  /**
   * The fragment id: the id of an existing fragment for files that add columns to it, 0 for a new
   * fragment (ids of new fragments are assigned at commit).
   */
  public long fragmentId() {
    return toProto().getId();
  }

  /** Bytes of the data files written (0 for a file whose size is not recorded). */
  public long dataFileBytes() {
    long bytes = 0;
    for (var f : toProto().getFilesList()) {
      bytes += Math.max(0, f.getFileSizeBytes());
    }
    return bytes;
  }

  /** The fragment's manifest entry as bytes ({@link #fromBytes} reads them back). */
  public byte[] toBytes() {
    return fragment.clone();
  }

  /**
   * Reads what {@link #toBytes} wrote.
   *
   * @throws InvalidInputException if the bytes are not a fragment's manifest entry
   */
  public static FragmentMetadata fromBytes(byte[] bytes) {
    try {
      return new FragmentMetadata(DataFragment.parseFrom(bytes));
    } catch (InvalidProtocolBufferException e) {
      throw new InvalidInputException(
          "Cannot read fragment metadata: the bytes are corrupt (" + e.getMessage() + ")");
    }
  }

  /** Data file paths, relative to the dataset's {@code data/} directory. */
  public java.util.List<String> dataFiles() {
    return toProto().getFilesList().stream().map(f -> f.getPath()).toList();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof FragmentMetadata other && Arrays.equals(fragment, other.fragment);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(fragment);
  }

  @Override
  public String toString() {
    return "FragmentMetadata{rows=" + physicalRows() + ", files=" + dataFiles() + "}";
  }
}
