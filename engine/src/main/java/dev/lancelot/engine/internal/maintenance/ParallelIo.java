package dev.lancelot.engine.internal.maintenance;

import dev.lancelot.engine.LancelotException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Storage requests of a maintenance job run {@code parallelism} at a time: on object stores each
 * read, list or delete waits on the network, so a job touching thousands of files is bound by how
 * many are in flight. Results come back in the order of the inputs; the first failure is rethrown
 * once every request started has finished. Long phases log their progress every {@value
 * #PROGRESS_SECONDS} seconds.
 */
final class ParallelIo implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ParallelIo.class);
  private static final long PROGRESS_SECONDS = 10;
  private static final AtomicInteger POOLS = new AtomicInteger();

  private final ExecutorService pool;
  private final String job;

  /**
   * @param job what the requests are for, in progress logs (e.g. "Cleanup of s3a://b/t")
   */
  ParallelIo(int parallelism, String job) {
    this.job = job;
    if (parallelism <= 1) {
      this.pool = null;
    } else {
      int id = POOLS.incrementAndGet();
      AtomicInteger thread = new AtomicInteger();
      this.pool =
          Executors.newFixedThreadPool(
              parallelism,
              r -> {
                Thread t = new Thread(r, "lancelot-io-" + id + "-" + thread.incrementAndGet());
                t.setDaemon(true);
                return t;
              });
    }
  }

  /** {@code fn} applied to every item, {@code parallelism} at a time; {@code phase} names it. */
  <T, R> List<R> map(List<T> items, Function<T, R> fn, String phase) {
    List<R> out = new ArrayList<>(items.size());
    if (pool == null || items.size() <= 1) {
      long next = System.nanoTime() + TimeUnit.SECONDS.toNanos(PROGRESS_SECONDS);
      for (T item : items) {
        out.add(fn.apply(item));
        if (System.nanoTime() > next) {
          progress(phase, out.size(), items.size());
          next = System.nanoTime() + TimeUnit.SECONDS.toNanos(PROGRESS_SECONDS);
        }
      }
      return out;
    }
    List<Future<R>> futures = new ArrayList<>(items.size());
    for (T item : items) {
      futures.add(pool.submit(() -> fn.apply(item)));
    }
    RuntimeException failure = null;
    long next = System.nanoTime() + TimeUnit.SECONDS.toNanos(PROGRESS_SECONDS);
    for (Future<R> f : futures) {
      try {
        out.add(f.get());
      } catch (ExecutionException e) {
        if (failure == null) {
          failure =
              e.getCause() instanceof RuntimeException re
                  ? re
                  : new LancelotException(job + ": " + phase + " failed", e.getCause());
        }
        out.add(null);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        futures.forEach(x -> x.cancel(true));
        throw new LancelotException(job + ": interrupted while " + phase, e);
      }
      if (System.nanoTime() > next) {
        progress(phase, out.size(), items.size());
        next = System.nanoTime() + TimeUnit.SECONDS.toNanos(PROGRESS_SECONDS);
      }
    }
    if (failure != null) {
      throw failure;
    }
    return out;
  }

  private void progress(String phase, int done, int total) {
    LOG.info("{}: {} {} of {}", job, phase, done, total);
  }

  @Override
  public void close() {
    if (pool != null) {
      pool.shutdownNow();
    }
  }
}
