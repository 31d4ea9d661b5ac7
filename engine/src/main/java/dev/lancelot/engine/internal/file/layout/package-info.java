/**
 * Structural page layouts of Lance 2.1+: how rows of a page are located, fetched and sliced.
 *
 * <p>A {@link dev.lancelot.engine.internal.file.layout.PageReader} plans a {@link
 * dev.lancelot.engine.internal.file.layout.PageLoad} (rounds of I/O) for row ranges and yields
 * {@link dev.lancelot.engine.internal.file.layout.RowSource}s that decode rows into {@link
 * dev.lancelot.engine.internal.file.arrow.ColumnSink}s: mini-block (chunks), full-zip (zipped
 * control words and values) and all-null / constant pages.
 *
 * <p>A row is a top-level row. For flat columns it is one item whose definition level (0 = valid)
 * travels with its value. For leaves of lists and structs, a page also sends the row span's
 * repetition/definition levels, translated to the column's canonical scheme ({@link
 * dev.lancelot.engine.internal.file.repdef.RepDefLayers}), and only the items behind visible
 * entries (null and empty lists have levels but no item). Rows of list columns are located with the
 * mini-block repetition index (rows may span chunks) or the full-zip repetition index; the {@link
 * dev.lancelot.engine.internal.file.arrow.FieldSink} of the top-level field rebuilds offsets and
 * validity from the levels.
 */
package dev.lancelot.engine.internal.file.layout;
