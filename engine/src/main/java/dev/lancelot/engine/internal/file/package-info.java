/**
 * Lance data files (format 2.x): reading and writing.
 *
 * <p>Public API: {@link dev.lancelot.engine.internal.file.LanceFileReader} (open, scan a projection
 * over a row range in batches, take rows), {@link dev.lancelot.engine.internal.file.FileProjection}
 * (which fields, which columns), {@link dev.lancelot.engine.internal.file.LanceFileWriter} with
 * {@link dev.lancelot.engine.internal.file.WriterOptions} and {@link
 * dev.lancelot.engine.internal.file.WriteSummary}, {@link
 * dev.lancelot.engine.internal.file.LanceFileInspector} (describe a file's pages and encodings),
 * and the errors {@link dev.lancelot.engine.internal.file.CorruptFileException} and {@link
 * dev.lancelot.engine.internal.file.UnsupportedFileFeatureException}.
 *
 * <p>Structure of the implementation:
 *
 * <ul>
 *   <li>{@code container}: footer, offset tables, file descriptor, column and page metadata;
 *   <li>{@code layout}: the structural page layouts (mini-block, full-zip, all-null/constant),
 *       which locate and slice rows and their definition levels;
 *   <li>{@code codec}: compressive encodings (flat, variable, bit-packing, RLE, FSST, dictionary,
 *       general zstd/lz4, fixed-size list, byte-stream-split) decoding to views over buffers;
 *   <li>{@code arrow}: sinks copying decoded values into Arrow vectors in bulk;
 *   <li>{@code write}: page buffering and encoding for the writer.
 * </ul>
 *
 * Byte layouts are documented on the classes that read them. Format facts were checked against
 * files written and read by lance-core 7.0.0 (see the oracle tests).
 */
package dev.lancelot.engine.internal.file;
