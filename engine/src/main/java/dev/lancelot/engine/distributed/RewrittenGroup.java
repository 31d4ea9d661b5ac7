package dev.lancelot.engine.distributed;

import dev.lancelot.engine.FragmentMetadata;
import dev.lancelot.engine.InvalidInputException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * What a {@link CompactionTask} wrote: the new fragments of one group, uncommitted. {@linkplain
 * #toBytes() Travels as bytes}; {@link CompactionPlan#commit} commits every group's in one version.
 */
public final class RewrittenGroup implements Serializable {
  private static final long serialVersionUID = 1L;
  private final int group;
  private final List<FragmentMetadata> fragments;

  RewrittenGroup(int group, List<FragmentMetadata> fragments) {
    this.group = group;
    this.fragments = List.copyOf(fragments);
  }

  /** The group's position in its plan. */
  public int group() {
    return group;
  }

  /** The new fragments, in order. */
  public List<FragmentMetadata> fragments() {
    return fragments;
  }

  /** The group as bytes ({@link #fromBytes} reads them back). */
  public byte[] toBytes() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeByte(Wire.REWRITTEN_GROUP);
      out.writeByte(Wire.FORMAT);
      out.writeInt(group);
      out.writeInt(fragments.size());
      for (FragmentMetadata f : fragments) {
        byte[] b = f.toBytes();
        out.writeInt(b.length);
        out.write(b);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  /**
   * Reads a group written by {@link #toBytes}.
   *
   * @throws InvalidInputException if the bytes are not a rewritten group
   */
  public static RewrittenGroup fromBytes(byte[] bytes) {
    Wire.check(Wire.REWRITTEN_GROUP, bytes, "a rewritten compaction group");
    try (DataInputStream in =
        new DataInputStream(new ByteArrayInputStream(bytes, 2, bytes.length - 2))) {
      int group = in.readInt();
      int n = in.readInt();
      List<FragmentMetadata> fragments = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        byte[] b = new byte[in.readInt()];
        in.readFully(b);
        fragments.add(FragmentMetadata.fromBytes(b));
      }
      return new RewrittenGroup(group, fragments);
    } catch (IOException | NegativeArraySizeException e) {
      throw new InvalidInputException(
          "Cannot read a rewritten compaction group: the bytes are corrupt (" + e + ")");
    }
  }

  @Override
  public String toString() {
    return "RewrittenGroup[" + group + ", " + fragments.size() + " fragments]";
  }
}
