/**
 * Structural page layouts of Lance 2.1+: how rows of a page are located, fetched and sliced.
 *
 * <p>A {@link dev.lancelot.engine.file.layout.PageReader} plans a
 * {@link dev.lancelot.engine.file.layout.PageLoad} (rounds of I/O) for row ranges and yields
 * {@link dev.lancelot.engine.file.layout.RowSource}s that decode rows into
 * {@link dev.lancelot.engine.file.arrow.ColumnSink}s: mini-block (chunks), full-zip (zipped
 * control words and values) and all-null / constant pages.
 *
 * <p>Non-nested columns only, so far: a row is one item and a definition level of 0 means valid.
 * Lists and structs (several rep/def layers, repetition levels, invisible items, the mini-block
 * repetition index, rows spanning chunks) are refused with
 * {@link dev.lancelot.engine.file.codec.DecodeException#unsupported}. Adding them means: loading
 * the mini-block repetition index with the chunk table, mapping row ranges to item and level
 * ranges when slicing chunks and full-zip pages, passing repetition levels to the sinks, and
 * list/struct sinks that unravel offsets and validity layer by layer from the leaf columns.
 */
package dev.lancelot.engine.file.layout;
