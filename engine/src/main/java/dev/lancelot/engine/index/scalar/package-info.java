/**
 * Scalar (BTree) indexes in Lance 7's layout, used to answer filters exactly (SPEC Q7).
 *
 * <ul>
 *   <li>{@link dev.lancelot.engine.index.scalar.BTreeIndexBuilder} builds and commits a BTree
 *       ({@link dev.lancelot.engine.index.scalar.BTreeBuildParams}).
 *   <li>{@link dev.lancelot.engine.index.scalar.ScalarIndexQuery} decides whether the BTrees of a
 *       version answer a filter exactly, explains why not, and evaluates it into a {@link
 *       dev.lancelot.engine.index.scalar.ScalarIndexResult} of row addresses with the fragments it
 *       covers.
 *   <li>{@link dev.lancelot.engine.index.scalar.BTreeIndexStatistics}: rows, NULLs, pages,
 *       coverage.
 * </ul>
 *
 * <p>Sub-packages: {@code btree} (file layout, page reader and writer, per-page conditions) and
 * {@code query} (translation of a bound filter into index conditions, evaluation). See {@code
 * docs/scalar-indexes.md}.
 */
package dev.lancelot.engine.index.scalar;
