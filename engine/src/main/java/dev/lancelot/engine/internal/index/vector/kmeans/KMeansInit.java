package dev.lancelot.engine.internal.index.vector.kmeans;

/** How k-means picks its first centroids. */
public enum KMeansInit {
  /** k distinct rows drawn uniformly: what Lance does ({@code kmeans_random_init}). */
  RANDOM,
  /** k-means++ (D² sampling): slower to start, often fewer iterations; not what Lance does. */
  KMEANS_PLUS_PLUS
}
