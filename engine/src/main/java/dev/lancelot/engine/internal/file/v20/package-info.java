/**
 * Format 2.0 pages (footer version 0.3): {@code lance.encodings.ArrayEncoding} trees, one column
 * per field (struct and list fields included). See {@link
 * dev.lancelot.engine.internal.file.v20.Encoding20} for the byte layouts Lance 7 writes and {@link
 * dev.lancelot.engine.internal.file.v20.Page20Reader} for how rows are fetched.
 */
package dev.lancelot.engine.internal.file.v20;
