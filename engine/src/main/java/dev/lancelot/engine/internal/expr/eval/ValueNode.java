package dev.lancelot.engine.internal.expr.eval;

/**
 * A bound value expression: evaluates to one value per row of a batch. Nodes never modify the
 * {@link Values} of their children (a child may hand out a shared, cached array). Immutable and
 * thread-safe.
 */
interface ValueNode {
  ValueType type();

  Values evaluate(Batch batch);

  /** The expression as filter SQL, for error messages. */
  String sql();
}
