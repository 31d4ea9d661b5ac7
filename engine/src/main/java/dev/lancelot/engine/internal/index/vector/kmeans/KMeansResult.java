package dev.lancelot.engine.internal.index.vector.kmeans;

/**
 * Trained centroids, row-major ({@code centroids[c * dim + d]}), with the final loss (sum of
 * distances to the assigned centroid, plus the balance penalty) and the iterations run.
 */
public record KMeansResult(float[] centroids, int k, int dim, double loss, int iterations) {}
