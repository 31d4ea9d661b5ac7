package dev.lancelot.engine.internal.file.arrow;

import java.util.List;

/**
 * Which stored members the sinks of one field read from packed struct values: for each struct that
 * is packed or inside a packed struct, in pre-order of the field's vectors, the positions of the
 * vector's members among the members stored in the column, or null when the vector has all of them
 * in order. Consumed once, in that order, while a field's sinks are built.
 */
public final class PackedMembers {
  private final List<int[]> positions;
  private int next;

  private PackedMembers(List<int[]> positions) {
    this.positions = positions;
  }

  /** Every packed struct reads all its stored members. */
  public static PackedMembers all() {
    return new PackedMembers(null);
  }

  public static PackedMembers of(List<int[]> positions) {
    return new PackedMembers(positions);
  }

  /** The positions for the next struct, or null for all members. */
  int[] next() {
    if (positions == null) {
      return null;
    }
    if (next >= positions.size()) {
      throw new IllegalStateException(
          "More packed structs in the field than member selections (" + positions.size() + ")");
    }
    return positions.get(next++);
  }
}
