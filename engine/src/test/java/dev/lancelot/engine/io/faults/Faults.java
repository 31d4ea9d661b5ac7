package dev.lancelot.engine.io.faults;

import java.io.IOException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.file.AccessDeniedException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * The script of one {@link FaultInjectingFileSystem}: it counts every storage operation, records
 * them, and breaks the ones its rules match. Thread-safe. Scripts are found by the authority of
 * {@code faulty://<id>/...} locations; {@link #register()} makes a fresh one.
 */
public final class Faults {
  /** The kinds of storage operation. */
  public enum Op {
    CREATE,
    OPEN,
    READ,
    CLOSE,
    RENAME,
    DELETE,
    LIST,
    STATUS,
    MKDIRS
  }

  /** What a matched operation suffers. */
  public enum Kind {
    /** Fails before acting, with a permanent error (access denied). */
    FAIL,
    /**
     * Acts, then fails with a permanent error: on {@link Op#CLOSE}, a close that throws after
     * storing the file.
     */
    FAIL_AFTER,
    /** Fails before acting, as S3 throttling does (HTTP 503 SlowDown). */
    SLOW_DOWN,
    /** Fails before acting with a connection reset. */
    CONNECTION_RESET,
    /**
     * Blocks until released or the hang time-out passes, then (if not released) times out without
     * acting.
     */
    HANG,
    /**
     * Acts, then blocks until released or the time-out passes, then (if not released) times out.
     */
    HANG_AFTER,
    /**
     * On {@link Op#CREATE}: the stream silently keeps only the first bytes (optionally the close
     * then throws).
     */
    TRUNCATE
  }

  /** One operation seen: its number (from 1), kind and path. */
  public record Call(int seq, Op op, String path) {
    /**
     * The path an error from this call must name: for a rename, the target (the manifest it was to
     * publish); for the temporary file of a manifest, the manifest.
     */
    public String reportedPath() {
      if (op == Op.RENAME) {
        return path.substring(path.indexOf(" -> ") + 4);
      } else if (path.contains("/_versions/.") && path.endsWith(".tmp")) {
        String name = path.substring(path.lastIndexOf("/.") + 2);
        return path.substring(0, path.lastIndexOf("/.") + 1)
            + name.substring(0, name.indexOf(".manifest") + 9);
      }
      return path;
    }
  }

  /** What a rule decided for one call. */
  public record Decision(Kind kind, long keepBytes, boolean throwOnClose) {}

  private record Rule(
      Set<Op> ops,
      Predicate<String> path,
      int from,
      int times,
      Decision decision,
      java.util.concurrent.atomic.AtomicInteger matched) {}

  private static final Map<String, Faults> BY_ID = new ConcurrentHashMap<>();

  private final String id;
  private final List<Rule> rules = new ArrayList<>();
  private final List<Call> calls = new ArrayList<>();
  private final List<Call> injected = new ArrayList<>();
  private final List<String> openFiles = new ArrayList<>();
  private volatile long hangMillis = 50;
  private volatile CountDownLatch release = new CountDownLatch(1);

  private Faults(String id) {
    this.id = id;
  }

  /** A new script, reachable as {@code faulty://<id()>/...}. */
  public static Faults register() {
    Faults f = new Faults("f" + UUID.randomUUID().toString().replace("-", "").substring(0, 12));
    BY_ID.put(f.id, f);
    return f;
  }

  static Faults forId(String id) {
    Faults f = BY_ID.get(id);
    if (f == null) {
      throw new IllegalStateException("No fault script registered for faulty://" + id);
    }
    return f;
  }

  public void unregister() {
    BY_ID.remove(id);
  }

  public String id() {
    return id;
  }

  /** {@code faulty://<id>} + an absolute local path. */
  public String location(java.nio.file.Path local) {
    return FaultInjectingFileSystem.SCHEME + "://" + id + local.toAbsolutePath();
  }

  /** Forgets rules, calls, injections and open files, and renews the hang latch. */
  public synchronized Faults reset() {
    rules.clear();
    calls.clear();
    injected.clear();
    openFiles.clear();
    release.countDown();
    release = new CountDownLatch(1);
    return this;
  }

  public Faults hangMillis(long millis) {
    hangMillis = millis;
    return this;
  }

  /** Lets every hanging call go on (as if the store answered after all). */
  public void release() {
    release.countDown();
  }

  /** Faults the {@code n}-th operation (counting all kinds, from 1) with {@code kind}. */
  public synchronized Faults failNth(int n, Kind kind) {
    return add(EnumSet.allOf(Op.class), p -> true, n, 1, new Decision(kind, 0, false));
  }

  /** Faults the {@code n}-th operation and every one after it with {@code kind}. */
  public synchronized Faults failFromNth(int n, Kind kind) {
    return add(
        EnumSet.allOf(Op.class), p -> true, n, Integer.MAX_VALUE, new Decision(kind, 0, false));
  }

  /**
   * Faults {@code times} operations of kind {@code op} on paths matching {@code path}, from its
   * {@code n}-th.
   */
  public synchronized Faults fail(Op op, Predicate<String> path, int n, int times, Kind kind) {
    return add(EnumSet.of(op), path, n, times, new Decision(kind, 0, false));
  }

  /**
   * The {@code n}-th file created keeps only its first {@code keepBytes}; its close throws when
   * asked.
   */
  public synchronized Faults truncateNthCreate(int n, long keepBytes, boolean throwOnClose) {
    return add(
        EnumSet.of(Op.CREATE),
        p -> true,
        n,
        1,
        new Decision(Kind.TRUNCATE, keepBytes, throwOnClose));
  }

  private Faults add(Set<Op> ops, Predicate<String> path, int from, int times, Decision d) {
    if (from < 1) {
      throw new IllegalArgumentException("Operations are counted from 1, got " + from);
    }
    rules.add(new Rule(ops, path, from, times, d, new java.util.concurrent.atomic.AtomicInteger()));
    return this;
  }

  public synchronized List<Call> calls() {
    return List.copyOf(calls);
  }

  public synchronized List<Call> injected() {
    return List.copyOf(injected);
  }

  /**
   * The files the store created through this script whose streams were neither closed nor aborted
   * (one entry per open stream), whether the caller got the stream or a fault hid it. A faulted
   * operation must not leave any: on HDFS an open stream holds a lease on its file and makes the
   * client try to complete the file when it shuts down.
   */
  public synchronized List<String> openFiles() {
    return List.copyOf(openFiles);
  }

  synchronized void opened(String path) {
    openFiles.add(path);
  }

  synchronized void ended(String path) {
    openFiles.remove(path);
  }

  /** Counts the call and returns what the first matching rule decided, or null. */
  synchronized Decision decide(Op op, String path) {
    Call call = new Call(calls.size() + 1, op, path);
    calls.add(call);
    Decision decision = null;
    for (Rule r : rules) {
      if (r.ops.contains(op) && r.path.test(path)) {
        int m = r.matched.incrementAndGet();
        if (decision == null && m >= r.from && (long) m < (long) r.from + r.times) {
          decision = r.decision;
        }
      }
    }
    if (decision != null) {
      injected.add(call);
    }
    return decision;
  }

  /** An operation that reaches the store. */
  interface Action<T> {
    T run() throws IOException;
  }

  <T> T around(Op op, String path, Action<T> action) throws IOException {
    return apply(decide(op, path), op, path, action);
  }

  <T> T apply(Decision decision, Op op, String path, Action<T> action) throws IOException {
    if (decision == null || decision.kind() == Kind.TRUNCATE) {
      return action.run();
    }
    switch (decision.kind()) {
      case FAIL:
        throw new AccessDeniedException(null, null, "Access Denied (injected " + op + " failure)");
      case SLOW_DOWN:
        throw new IOException(
            "injected "
                + op
                + ": software.amazon.awssdk.services.s3.model.S3Exception: Please "
                + "reduce your request rate. (Service: S3, Status Code: 503, Request ID: injected) SlowDown");
      case CONNECTION_RESET:
        throw new SocketException("Connection reset");
      case FAIL_AFTER:
        {
          T result = action.run();
          discard(result, path);
          throw new IOException("injected " + op + " failure after the store acted");
        }
      case HANG:
        hang(op);
        return action.run();
      case HANG_AFTER:
        {
          T result = action.run();
          try {
            hang(op);
          } catch (IOException e) {
            discard(result, path);
            throw e;
          }
          return result;
        }
      default:
        throw new IllegalStateException("Unhandled fault kind " + decision.kind());
    }
  }

  /**
   * Ends a stream the store opened although the caller is told the call failed, so that nothing
   * holds it open: the caller never sees it and cannot close it. A written stream is aborted where
   * the store can (S3A: nothing is uploaded), otherwise closed (HDFS: the file is already visible
   * from its creation, as it would be after the name node recovered its lease).
   */
  void discard(Object result, String path) {
    try {
      if (result instanceof org.apache.hadoop.fs.FSDataOutputStream out) {
        endOutput(out);
        ended(path);
      } else if (result instanceof java.io.Closeable c) {
        c.close();
      }
    } catch (IOException | RuntimeException e) {
      // the caller already gets the injected failure; a second one would hide it
    }
  }

  /** {@link #endOutput}, keeping the caller's error the only one. */
  static void endOutputQuietly(org.apache.hadoop.fs.FSDataOutputStream out) {
    try {
      endOutput(out);
    } catch (IOException | RuntimeException e) {
      // the caller already gets the injected failure
    }
  }

  /** Aborts {@code out} where the store supports it, else closes it. */
  static void endOutput(org.apache.hadoop.fs.FSDataOutputStream out) throws IOException {
    if (out.hasCapability(org.apache.hadoop.fs.StreamCapabilities.ABORTABLE_STREAM)) {
      out.abort();
    } else {
      out.close();
    }
  }

  private void hang(Op op) throws IOException {
    CountDownLatch latch = release;
    try {
      if (!latch.await(hangMillis, TimeUnit.MILLISECONDS)) {
        throw new SocketTimeoutException(
            "injected " + op + ": no answer within " + hangMillis + " ms (timed out)");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException("interrupted while hanging");
    }
  }
}
