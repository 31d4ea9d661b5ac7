/**
 * In-memory vector index structures, laid out as Lance stores them, and the one scoring abstraction
 * they share.
 *
 * <ul>
 *   <li>{@link dev.lancelot.engine.internal.index.vector.VectorStorage} / {@link
 *       dev.lancelot.engine.internal.index.vector.QueryScorer}: vectors of one partition (flat, SQ
 *       or PQ) and per-query scorers with bulk methods; smaller is closer.
 *   <li>{@link dev.lancelot.engine.internal.index.vector.AcceptMask} (prefilter as node ids) and
 *       {@link dev.lancelot.engine.internal.index.vector.TopKCollector} (ties by id, SPEC Q14).
 *   <li>{@code ivf}: k-means (Lance's balanced, random-init, hierarchical above 256) and {@code
 *       IvfModel} (rank partitions, assign, residuals).
 *   <li>{@code pq}: 8-bit codebooks in Lance's {@code [256, dim]} layout, encoding, lookup tables
 *       and ADC over transposed partition codes.
 *   <li>{@code sq}: 8-bit scalar quantization with global bounds.
 *   <li>{@code hnsw}: graph build and search over any storage (IVF_HNSW_FLAT/SQ/PQ).
 *   <li>{@code flat}: exact scans.
 * </ul>
 *
 * <p>How these compose into Lance's IVF search (normalize for cosine, rank partitions, residual for
 * PQ on l2/cosine, search each probed partition, merge) is shown by the test composition {@code
 * conformance.IvfComposite}.
 */
package dev.lancelot.engine.index.vector;
