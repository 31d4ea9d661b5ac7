/**
 * Row filters: the filter SQL of Lance (parsed by {@link dev.lancelot.engine.expr.FilterParser} or
 * built with {@link dev.lancelot.engine.expr.Predicates}), bound to an Arrow schema ({@link
 * dev.lancelot.engine.expr.BoundPredicate}) and evaluated vectorised on Arrow batches into a {@link
 * dev.lancelot.engine.expr.RowSelection}.
 *
 * <pre>{@code
 * Predicate p = FilterParser.parse("tenant_id = 42 AND name LIKE 'a%'");
 * BoundPredicate f = BoundPredicate.bind(p, schema);     // FilterBindException if it does not fit
 * RowSelection rows = f.evaluate(batch);                  // batch holds f.referencedColumns()
 * }</pre>
 *
 * <p>Semantics follow Lance 7 (SQL three-valued logic, total-order floats, byte-wise strings,
 * Lance's LIKE escapes and timestamp rules) and are checked against lance-core in the tests; the
 * few places where Lance is inconsistent and this package is not are listed in {@code
 * docs/filters.md}. Implementation: {@code parse} (lexer), {@code eval} (binder and kernels).
 */
package dev.lancelot.engine.expr;
