/**
 * From a bound filter to index answers: {@link
 * dev.lancelot.engine.internal.index.scalar.query.KernelTranslator} rewrites the filter's kernel
 * tree into an {@link dev.lancelot.engine.internal.index.scalar.query.IndexExpr} (AND/OR of
 * per-column conditions, NOTs pushed down), and {@link
 * dev.lancelot.engine.internal.index.scalar.query.IndexEvaluator} evaluates it with the BTree
 * segments of each column.
 */
package dev.lancelot.engine.internal.index.scalar.query;
