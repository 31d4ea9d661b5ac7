/**
 * Full-text search through Lance inverted indexes (decision D66): {@link
 * dev.lancelot.engine.index.text.FullTextQuery} (a match query) and {@link
 * dev.lancelot.engine.index.text.FullTextSearch}, whose rows carry Lance's BM25 {@code _score}. The
 * index files are read by {@code dev.lancelot.engine.internal.index.text}.
 */
package dev.lancelot.engine.index.text;
