package dev.lancelot.engine.io;

import dev.lancelot.engine.InvalidInputException;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.hadoop.conf.Configuration;

/**
 * How often and for how long a storage call that failed with a transient error (see {@link
 * StorageErrors#isTransient}) is tried again: exponential backoff with jitter, bounded by a number
 * of attempts and by a total time budget, whichever runs out first.
 *
 * <p>The delay before attempt {@code n + 1} is drawn uniformly from {@code [d/2, d]} with {@code d
 * = min(maxBackoffMillis, initialBackoffMillis * 2^(n-1))}: it grows with each failure, and writers
 * failing together do not retry in lockstep. No attempt starts once {@code budgetMillis} have
 * passed since the first one began, and no delay is slept that would end past the budget.
 *
 * @param maxAttempts attempts in all, the first included; 1 turns retries off
 * @param initialBackoffMillis upper bound of the first delay
 * @param maxBackoffMillis upper bound of any delay
 * @param budgetMillis time from the first attempt after which no new attempt starts
 */
public record RetryPolicy(
    int maxAttempts, long initialBackoffMillis, long maxBackoffMillis, long budgetMillis) {
  /** Hadoop configuration key of {@link #maxAttempts()}. */
  public static final String MAX_ATTEMPTS = "lancelot.io.retry.max-attempts";

  /** Hadoop configuration key of {@link #initialBackoffMillis()}. */
  public static final String INITIAL_BACKOFF_MS = "lancelot.io.retry.initial-backoff-ms";

  /** Hadoop configuration key of {@link #maxBackoffMillis()}. */
  public static final String MAX_BACKOFF_MS = "lancelot.io.retry.max-backoff-ms";

  /** Hadoop configuration key of {@link #budgetMillis()}. */
  public static final String BUDGET_MS = "lancelot.io.retry.budget-ms";

  public static final RetryPolicy DEFAULT = new RetryPolicy(5, 100, 5_000, 30_000);

  public RetryPolicy {
    if (maxAttempts < 1) {
      throw new InvalidInputException(
          "Cannot retry storage calls: "
              + MAX_ATTEMPTS
              + " must be at least 1 (1 = "
              + "no retries), got "
              + maxAttempts);
    }
    if (initialBackoffMillis < 0 || maxBackoffMillis < initialBackoffMillis) {
      throw new InvalidInputException(
          "Cannot retry storage calls: need 0 <= "
              + INITIAL_BACKOFF_MS
              + " <= "
              + MAX_BACKOFF_MS
              + ", got "
              + initialBackoffMillis
              + " and "
              + maxBackoffMillis);
    }
    if (budgetMillis < 0) {
      throw new InvalidInputException(
          "Cannot retry storage calls: "
              + BUDGET_MS
              + " must not be negative, got "
              + budgetMillis);
    }
  }

  /** The policy set by {@code conf} (each absent key takes its {@link #DEFAULT} value). */
  public static RetryPolicy from(Configuration conf) {
    if (conf == null) {
      return DEFAULT;
    }
    return new RetryPolicy(
        conf.getInt(MAX_ATTEMPTS, DEFAULT.maxAttempts),
        conf.getLong(INITIAL_BACKOFF_MS, DEFAULT.initialBackoffMillis),
        conf.getLong(MAX_BACKOFF_MS, DEFAULT.maxBackoffMillis),
        conf.getLong(BUDGET_MS, DEFAULT.budgetMillis));
  }

  /** The upper bound of the delay after the {@code failures}-th failed attempt (1-based). */
  long backoffCeilingMillis(int failures) {
    int shift = Math.min(Math.max(failures - 1, 0), 30);
    long ceiling = initialBackoffMillis << shift;
    return ceiling < 0 || ceiling > maxBackoffMillis ? maxBackoffMillis : ceiling;
  }

  /**
   * A delay to sleep after the {@code failures}-th failed attempt: uniform in [ceiling/2, ceiling].
   */
  long backoffMillis(int failures) {
    long ceiling = backoffCeilingMillis(failures);
    long floor = ceiling / 2;
    return floor + ThreadLocalRandom.current().nextLong(ceiling - floor + 1);
  }
}
