/**
 * Reading Lance inverted indexes (token sets, posting lists, document tables), Lance's text
 * analysis and BM25 scoring, behind {@code dev.lancelot.engine.index.text} (decision D66).
 */
package dev.lancelot.engine.internal.index.text;
