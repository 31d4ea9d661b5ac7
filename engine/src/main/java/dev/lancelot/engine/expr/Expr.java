package dev.lancelot.engine.expr;

import java.io.Serializable;

/**
 * A value computed per row: a {@link Column}, a {@link Literal}, or arithmetic, {@code CAST} and
 * function calls over them. Predicates compare, test and combine values. Immutable and {@link
 * Serializable}; {@link #toSql()} parses back to an equal expression. Types are checked when a
 * predicate is bound to a schema ({@link BoundPredicate#bind}), not here.
 */
public sealed interface Expr extends Serializable
    permits Column, Literal, Negate, Arithmetic, Cast, Call {

  /** Filter SQL for this value. */
  String toSql();

  /** Binding strength when rendered: higher binds tighter (for parentheses in {@code toSql}). */
  default int precedence() {
    return 100;
  }
}
