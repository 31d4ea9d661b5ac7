package dev.lancelot.engine.internal.query.exec;

import dev.lancelot.engine.LancelotException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RunnableFuture;

/** Waiting for work handed to a pool, with the failures of one task surfacing as the caller's. */
public final class Futures {
  private Futures() {}

  /**
   * The results of {@code futures}, in order. With {@code runUnstarted}, the calling thread runs
   * any task no pool thread has started yet (a {@link RunnableFuture} runs at most once), so a task
   * waiting on tasks of the same pool cannot deadlock. On failure or interruption every task is
   * cancelled; an unchecked exception of a task is rethrown as it is, anything else is wrapped in a
   * {@link LancelotException} naming {@code what}.
   */
  public static <T> List<T> collect(
      List<? extends Future<T>> futures, boolean runUnstarted, String what) {
    List<T> out = new ArrayList<>(futures.size());
    try {
      for (Future<T> f : futures) {
        if (runUnstarted && f instanceof RunnableFuture<T> r) {
          r.run();
        }
        out.add(f.get());
      }
      return out;
    } catch (InterruptedException e) {
      futures.forEach(f -> f.cancel(true));
      Thread.currentThread().interrupt();
      throw new LancelotException(what + " interrupted", e);
    } catch (ExecutionException e) {
      futures.forEach(f -> f.cancel(true));
      if (e.getCause() instanceof RuntimeException re) {
        throw re;
      }
      throw new LancelotException(what + " failed: " + e.getCause(), e.getCause());
    }
  }
}
