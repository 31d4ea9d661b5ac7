package dev.lancelot.engine.internal.index.vector.kmeans;

import dev.lancelot.engine.vector.VectorException;
import dev.lancelot.engine.vector.VectorKernels;
import dev.lancelot.engine.vector.VectorizationProvider;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * k-modes for binary (uint8, hamming) vectors, as Lance's {@code KModeAlgo}: the same loop as
 * {@link KMeans} (random init, balance penalty, relative-loss stop) with hamming distance for
 * membership and a per-bit majority vote for the update (bit {@code b} of byte {@code i} is bit
 * {@code 8i + b}, least significant first; a bit is set when more than half the members have it). A
 * cluster left empty gets an all-zero centroid (Lance stores nulls, read as zero bytes); there is
 * no splitting.
 */
public final class BinaryKMeans {
  private static final Logger LOG = LoggerFactory.getLogger(BinaryKMeans.class);
  private static final VectorKernels K = VectorizationProvider.kernels();

  private BinaryKMeans() {}

  /** Centroids row-major, {@code bytes} bytes each. */
  public record Result(byte[] centroids, int k, int bytes, double loss, int iterations) {}

  public static Result train(byte[] data, int n, int bytes, int k, KMeansParams params) {
    if (n < k) {
      throw new VectorException(
          "Cannot train k-modes with "
              + k
              + " clusters: only "
              + n
              + " training rows. Use at most "
              + n
              + " clusters or train on more rows.");
    }
    int rows = (int) Math.min(n, (long) k * 512);
    SplittableRandom random = new SplittableRandom(params.seed());
    int[] chosen = Sampling.distinct(rows, k, random);
    byte[] centroids = new byte[k * bytes];
    for (int c = 0; c < k; c++) {
      System.arraycopy(data, chosen[c] * bytes, centroids, c * bytes, bytes);
    }
    float balance = params.balanceFactor() / rows;
    float adjusted = Float.MAX_VALUE;
    int[] sizes = new int[k];
    int[] membership = new int[rows];
    float[] memberDistance = new float[rows];
    double loss = Double.MAX_VALUE;
    double lastLoss = Double.MAX_VALUE;
    int iter = 0;
    while (iter < params.maxIters()) {
      iter++;
      float bias = Math.min(adjusted, balance);
      for (int i = 0; i < rows; i++) {
        int best = -1;
        float bestScore = Float.POSITIVE_INFINITY;
        float bestDistance = Float.POSITIVE_INFINITY;
        for (int c = 0; c < k; c++) {
          float d = K.hammingDistance(data, i * bytes, centroids, c * bytes, bytes);
          float score = d + bias * sizes[c];
          if (score < bestScore) {
            bestScore = score;
            bestDistance = d;
            best = c;
          }
        }
        membership[i] = best;
        memberDistance[i] = bestDistance;
      }
      Arrays.fill(sizes, 0);
      double[] clusterLoss = new double[k];
      float[] radius = new float[k];
      int largest = 0;
      for (int i = 0; i < rows; i++) {
        int c = membership[i];
        sizes[c]++;
        clusterLoss[c] += memberDistance[i];
        radius[c] = Math.max(radius[c], memberDistance[i]);
        if (sizes[c] > sizes[largest]) {
          largest = c;
        }
      }
      adjusted = (radius[largest] - (float) clusterLoss[largest] / sizes[largest]) / rows;
      double sizeSquares = 0;
      for (int s : sizes) {
        sizeSquares += (double) s * s;
      }
      lastLoss = bias * (sizeSquares - (double) rows * rows / k);
      for (double l : clusterLoss) {
        lastLoss += l;
      }
      centroids = majority(data, rows, bytes, k, membership, sizes);
      LOG.debug(
          "k-modes iteration {}/{}: k={}, rows={}, loss={}",
          iter,
          params.maxIters(),
          k,
          rows,
          lastLoss);
      if (Math.abs(loss - lastLoss) < params.tolerance() * lastLoss) {
        break;
      }
      loss = lastLoss;
    }
    LOG.info(
        "Trained k-modes: k={}, bytes={}, rows={}, iterations={}, loss={}",
        k,
        bytes,
        rows,
        iter,
        lastLoss);
    return new Result(centroids, k, bytes, lastLoss, iter);
  }

  private static byte[] majority(
      byte[] data, int rows, int bytes, int k, int[] membership, int[] sizes) {
    int[] ones = new int[k * bytes * 8];
    for (int i = 0; i < rows; i++) {
      int base = membership[i] * bytes * 8;
      for (int j = 0; j < bytes; j++) {
        int v = data[i * bytes + j] & 0xFF;
        while (v != 0) {
          int bit = Integer.numberOfTrailingZeros(v);
          ones[base + j * 8 + bit]++;
          v &= v - 1;
        }
      }
    }
    byte[] out = new byte[k * bytes];
    for (int c = 0; c < k; c++) {
      for (int j = 0; j < bytes; j++) {
        int v = 0;
        for (int bit = 0; bit < 8; bit++) {
          if (ones[(c * bytes + j) * 8 + bit] * 2 > sizes[c]) {
            v |= 1 << bit;
          }
        }
        out[c * bytes + j] = (byte) v;
      }
    }
    return out;
  }
}
