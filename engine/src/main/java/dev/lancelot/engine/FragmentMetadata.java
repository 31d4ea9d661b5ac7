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

  /** In {@link #withSourceRows}: a row that replaces no row of the version read. */
  public static final long NEW_ROW = -1L;

  /**
   * This fragment, its rows marked with the rows they replace in a row-level change ({@link
   * Dataset#commitRowChanges}): {@code sourceAddresses[i]} is the address, in the version the
   * change read, of the row that row {@code i} is the new version of (a row the change deletes), or
   * {@link #NEW_ROW}. On a dataset with stable row ids each such row keeps the id of the row it
   * replaces (as Lance's updates keep it); new rows take fresh ids.
   *
   * @throws IllegalArgumentException unless there is one address per row
   */
  public FragmentMetadata withSourceRows(long[] sourceAddresses) {
    DataFragment f = toProto();
    if (sourceAddresses.length != f.getPhysicalRows()) {
      throw new IllegalArgumentException(
          "A fragment of "
              + f.getPhysicalRows()
              + " rows needs one source address per row, got "
              + sourceAddresses.length);
    }
    return new FragmentMetadata(
        f.toBuilder()
            .setInlineRowIds(
                com.google.protobuf.ByteString.copyFrom(
                    dev.lancelot.engine.internal.format.RowIdSequence.of(sourceAddresses)
                        .serialize()))
            .build());
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
