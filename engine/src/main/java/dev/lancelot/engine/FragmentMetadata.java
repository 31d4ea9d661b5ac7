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
