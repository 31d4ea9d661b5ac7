/**
 * Distance metrics and the kernels under them.
 *
 * <p>{@link dev.lancelot.engine.vector.DistanceMetric} follows Lance's conventions exactly (checked
 * against lance-core 7.0.0 flat-KNN {@code _distance} values): l2 is squared Euclidean, cosine is
 * {@code 1 - cos} (NaN for a zero vector), dot is {@code 1 - a·b}, hamming counts differing bits of
 * uint8 vectors. Smaller is always closer.
 *
 * <p>{@link dev.lancelot.engine.vector.VectorizationProvider} picks the kernels once per JVM: SIMD
 * ({@code jdk.incubator.vector}, loaded reflectively) when the module is present, scalar otherwise;
 * {@code -Dlancelot.vector.impl=scalar|simd|auto} forces the choice. float16 vectors are held as
 * raw bits in {@code short[]} ({@link dev.lancelot.engine.vector.Float16}).
 */
package dev.lancelot.engine.vector;
