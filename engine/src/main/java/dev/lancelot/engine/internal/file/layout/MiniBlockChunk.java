package dev.lancelot.engine.internal.file.layout;

import dev.lancelot.engine.internal.file.codec.Values;

/**
 * A decoded mini-block chunk.
 *
 * @param values the chunk's items (dictionary values already looked up)
 * @param rep repetition levels, one per level entry (null without lists)
 * @param def definition levels, one per level entry (null without nulls); canonical for nested
 *     columns, else 0 = valid
 * @param itemDefs definition levels of the items only (null when every item is valid): equal to
 *     {@code def} unless special entries (null/empty lists) are interleaved
 * @param numLevels level entries (for columns without lists and nulls: the items)
 * @param rowStarts list pages only (else null): the level index of every row start (an entry at the
 *     maximum repetition level), then {@code numLevels}
 * @param rowItems list pages only: the items before each entry of {@code rowStarts} (the last is
 *     the chunk's item count)
 * @param numRowStarts row starts in the chunk ({@code rowStarts} holds one entry more)
 */
record MiniBlockChunk(
    Values values,
    short[] rep,
    short[] def,
    short[] itemDefs,
    int numLevels,
    int[] rowStarts,
    int[] rowItems,
    int numRowStarts) {}
