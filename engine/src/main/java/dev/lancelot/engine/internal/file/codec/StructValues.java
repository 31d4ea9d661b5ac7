package dev.lancelot.engine.internal.file.codec;

import java.util.List;

/**
 * {@code count} structs given by their members' values (one {@link Values} of {@code count} values
 * per member, in the order the members are stored): the decoded rows of a packed struct. Whether a
 * struct is null comes from definition levels, as for any value.
 */
public record StructValues(List<Values> members, int count) implements Values {
  public StructValues {
    members = List.copyOf(members);
    for (Values m : members) {
      if (m.count() != count) {
        throw DecodeException.corrupt(
            "a packed struct of " + count + " rows has a member of " + m.count() + " values");
      }
    }
  }
}
