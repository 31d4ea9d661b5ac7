package dev.lancelot.engine.expr;

import dev.lancelot.engine.InvalidInputException;

/**
 * A filter string that is not valid filter SQL. The message quotes the filter and names the 0-based
 * character position and what was expected there, e.g. {@code Cannot parse filter "tenant_id = ":
 * expected a value at position 12}.
 */
public class FilterParseException extends InvalidInputException {
  private final String filter;
  private final int position;

  public FilterParseException(String filter, int position, String problem) {
    super(
        "Cannot parse filter \"" + filter + "\": " + problem + " at position " + position,
        filter,
        position);
    this.filter = filter;
    this.position = position;
  }

  /** The filter text as given. */
  public String filter() {
    return filter;
  }

  /** 0-based index into {@link #filter()} where parsing failed (its length at the end). */
  public int position() {
    return position;
  }
}
