/**
 * The BTree index files ({@link dev.lancelot.engine.internal.index.scalar.btree.BTreeFiles}
 * documents the layout): reading a segment and answering {@link
 * dev.lancelot.engine.internal.index.scalar.btree.Condition}s page by page ({@link
 * dev.lancelot.engine.internal.index.scalar.btree.BTreeSegmentReader}), and writing one ({@link
 * dev.lancelot.engine.internal.index.scalar.btree.BTreeWriter}). Values are compared as 64-bit keys
 * or unsigned bytes ({@link dev.lancelot.engine.internal.index.scalar.btree.ValueCodec}), the forms
 * the filter kernels use.
 */
package dev.lancelot.engine.internal.index.scalar.btree;
