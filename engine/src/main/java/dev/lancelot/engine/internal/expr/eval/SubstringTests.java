package dev.lancelot.engine.internal.expr.eval;

import java.util.Optional;

/** Recognises {@code contains(column, 'part')} in a bound kernel tree, for n-gram indexes. */
public final class SubstringTests {
  private SubstringTests() {}

  /** A column (by slot) that must contain {@code part} (UTF-8) for the kernel to be TRUE. */
  public record Substring(int slot, byte[] part) {}

  /** The substring test {@code k} is, if it is {@code contains(top-level column, literal)}. */
  public static Optional<Substring> of(Kernel k) {
    if (k instanceof ValueTestKernel t
        && t.test() == ValueTestKernel.Test.BOOL
        && t.value() instanceof CallNode call
        && call.function() == dev.lancelot.engine.expr.FilterFunction.CONTAINS
        && call.arguments().get(0) instanceof ColumnValueNode column
        && call.arguments().get(1) instanceof ConstantNode literal
        && !literal.type().isNull()
        && literal.bytesValue() != null
        && column.column().kind().isString()) {
      return Optional.of(new Substring(column.column().slot(), literal.bytesValue()));
    }
    return Optional.empty();
  }
}
