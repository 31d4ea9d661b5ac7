package dev.lancelot.engine.internal.file.codec;

/**
 * Decoded leaf values of a run of items (a mini-block chunk, a slice of a full-zip page, a
 * dictionary). Views over little-endian byte buffers; nothing is copied until the values are
 * appended to an Arrow vector. Nulls are not represented here: they come from definition levels.
 */
public sealed interface Values permits FixedValues, VarValues, FslValues, StructValues {
  /** Number of values. */
  int count();
}
