package dev.lancelot.engine;

import java.util.Optional;
import java.util.OptionalInt;

/**
 * Input a user gave that cannot be used as given: an option value, a filter, a query, a path, a
 * schema that does not fit. The message says what to change ({@code "Cannot <action>: <reason>.
 * <how to fix>"}); where the input is text with a position (a filter), {@link #input()} and {@link
 * #inputPosition()} point at it.
 *
 * <p>Every exception for bad user input is this class or a subclass: the CLI reports them as bad
 * input (exit code 2). The other {@link LancelotException}s are failures the input did not cause
 * (storage, damaged or unsupported data, a concurrent writer); {@link IllegalStateException},
 * {@link IllegalArgumentException} and the like are broken invariants, i.e. bugs.
 */
public class InvalidInputException extends LancelotException {
  private final String input;
  private final int position;

  public InvalidInputException(String message) {
    this(message, null, -1);
  }

  public InvalidInputException(String message, Throwable cause) {
    super(message, cause);
    this.input = null;
    this.position = -1;
  }

  /**
   * @param input the offending text as the user gave it, or null
   * @param position 0-based index into {@code input} where the problem is, or -1
   */
  public InvalidInputException(String message, String input, int position) {
    super(message);
    this.input = input;
    this.position = position;
  }

  /** The offending text as given, when the error is about one piece of text. */
  public Optional<String> input() {
    return Optional.ofNullable(input);
  }

  /** The 0-based position in {@link #input()} where the problem is, when known. */
  public OptionalInt inputPosition() {
    return position < 0 ? OptionalInt.empty() : OptionalInt.of(position);
  }
}
