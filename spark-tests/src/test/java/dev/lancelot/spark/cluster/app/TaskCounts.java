package dev.lancelot.spark.cluster.app;

import java.util.concurrent.atomic.AtomicInteger;
import org.apache.spark.Success$;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerExecutorRemoved;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.scheduler.SparkListenerTaskStart;

/**
 * Counts what a fault test must have provoked: speculative attempts, failed attempts, lost
 * executors.
 */
final class TaskCounts extends SparkListener {
  final AtomicInteger speculativeAttempts = new AtomicInteger();
  final AtomicInteger failedAttempts = new AtomicInteger();
  final AtomicInteger executorsRemoved = new AtomicInteger();

  @Override
  public void onTaskStart(SparkListenerTaskStart start) {
    if (start.taskInfo().speculative()) {
      speculativeAttempts.incrementAndGet();
    }
  }

  @Override
  public void onTaskEnd(SparkListenerTaskEnd end) {
    if (end.reason() != Success$.MODULE$) {
      failedAttempts.incrementAndGet();
    }
  }

  @Override
  public void onExecutorRemoved(SparkListenerExecutorRemoved removed) {
    executorsRemoved.incrementAndGet();
  }
}
