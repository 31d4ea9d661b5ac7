package dev.lancelot.engine.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link FileIO} that makes the calls of another again when they fail with a transient error
 * ({@link StorageErrors#isTransient}), as its {@link RetryPolicy} allows. Permanent errors, and
 * transient ones once the policy gives up, reach the caller as a {@link StorageException} naming
 * the operation and the location.
 *
 * <p>What is retried, and why it is safe:
 *
 * <ul>
 *   <li>reads ({@code length}, {@code read}, {@code readRanges}) on a file opened afresh, since a
 *       stream that failed may be broken; files are immutable, so a new stream reads the same
 *       bytes;
 *   <li>{@code exists}, {@code list}, {@code delete}, {@code deleteRecursively}, {@code overwrite}:
 *       making them twice has the effect of making them once (a repeated delete may report {@code
 *       false} for a file its first attempt removed);
 *   <li>{@code create} up to the returned stream: callers create files only under fresh unique
 *       names, so a file left by a failed attempt is deleted before the next. Bytes written to the
 *       stream are not retried (they are not kept); a write or close that fails fails the
 *       operation, which committed nothing. After the stream is closed, the stored length is
 *       checked against the bytes written, so a store that silently dropped the tail of a file is
 *       caught before anything refers to it;
 *   <li>{@code putIfAbsent}, the commit point, is not simply made again: a put that failed with a
 *       transient or an unknown error may have succeeded (a time-out after the store acted). The
 *       location is read back: the same bytes mean this put won (manifests carry the writer's
 *       unique transaction id and time, so another writer's manifest never equals ours); other
 *       bytes mean another writer won; no file means the put did not happen, and it is made again
 *       with the same bytes (an unknown error is reported instead). A put the store refuses because
 *       the name is taken is read back too: the name may be taken by this very put, when the
 *       store's client sent it again after losing the answer to a first attempt that took effect.
 *       When the outcome cannot be read back within the budget, or the budget runs out after a
 *       failure (a time-out, a broken connection) that could leave the put on its way to the store,
 *       {@link CommitOutcomeUnknownException}.
 * </ul>
 *
 * <p>Time-outs are the store client's own ({@code fs.s3a.connection.request.timeout}, {@code
 * dfs.client.socket-timeout}, ...): a call that hangs ends when its client gives up, with a {@link
 * java.net.SocketTimeoutException} or similar, which is transient. Thread-safe when the wrapped
 * {@code FileIO} is.
 */
public final class RetryingFileIO implements FileIO {
  private static final Logger LOG = LoggerFactory.getLogger(RetryingFileIO.class);

  /** Sleeps between attempts; a seam for tests. */
  interface Sleeper {
    void sleep(long millis) throws InterruptedException;
  }

  private final FileIO delegate;
  private final RetryPolicy policy;
  private final Sleeper sleeper;
  private final LongSupplier clockMillis;

  public RetryingFileIO(FileIO delegate, RetryPolicy policy) {
    this(delegate, policy, Thread::sleep, System::currentTimeMillis);
  }

  RetryingFileIO(FileIO delegate, RetryPolicy policy, Sleeper sleeper, LongSupplier clockMillis) {
    this.delegate = delegate;
    this.policy = policy;
    this.sleeper = sleeper;
    this.clockMillis = clockMillis;
  }

  public RetryPolicy policy() {
    return policy;
  }

  // ---------------------------------------------------------------- the retry loop

  /** One run of the policy: attempts made, time started. */
  private final class Attempts {
    private final long start = clockMillis.getAsLong();
    private int failures;

    /**
     * Records a failure and sleeps before the next attempt; false when the policy allows no further
     * attempt (then nothing is slept).
     */
    boolean again(String what, RuntimeException error) {
      failures++;
      if (failures >= policy.maxAttempts()) {
        return false;
      }
      long delay = policy.backoffMillis(failures);
      long elapsed = clockMillis.getAsLong() - start;
      if (elapsed + delay > policy.budgetMillis()) {
        return false;
      }
      LOG.warn(
          "Transient storage error ({}), attempt {}/{}; trying again in {} ms: {}",
          what,
          failures,
          policy.maxAttempts(),
          delay,
          error.getMessage());
      try {
        sleeper.sleep(delay);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new StorageException(
            "Cannot " + what + ": interrupted while waiting to retry after: " + error.getMessage(),
            error);
      }
      return true;
    }

    long elapsed() {
      return clockMillis.getAsLong() - start;
    }

    StorageException gaveUp(String what, RuntimeException last) {
      return gaveUp(what, last, "");
    }

    StorageException gaveUp(String what, RuntimeException last, String note) {
      // The wrapped FileIO's messages already say what failed where ("Cannot read <path>: ...").
      String message = String.valueOf(last.getMessage());
      String cause = message.startsWith("Cannot ") ? message : "Cannot " + what + ": " + message;
      return new StorageException(
          cause
              + note
              + " (a transient error; gave up after "
              + failures
              + " attempt"
              + (failures == 1 ? "" : "s")
              + " in "
              + (clockMillis.getAsLong() - start)
              + " ms, see "
              + RetryPolicy.MAX_ATTEMPTS
              + " and "
              + RetryPolicy.BUDGET_MS
              + ")",
          last);
    }
  }

  private <T> T retry(String what, Supplier<T> call) {
    Attempts attempts = new Attempts();
    while (true) {
      try {
        return call.get();
      } catch (RuntimeException e) {
        if (!StorageErrors.isTransient(e)) {
          throw e;
        }
        if (!attempts.again(what, e)) {
          throw attempts.gaveUp(what, e);
        }
      }
    }
  }

  // ---------------------------------------------------------------- FileIO

  @Override
  public InputFile newInputFile(String location) {
    return new RetryingInputFile(location, -1);
  }

  @Override
  public InputFile newInputFile(String location, long knownLength) {
    return new RetryingInputFile(location, knownLength);
  }

  @Override
  public PositionOutputStream create(String location) {
    Attempts attempts = new Attempts();
    while (true) {
      try {
        return new CheckedOutputStream(location, delegate.create(location));
      } catch (RuntimeException e) {
        if (!StorageErrors.isTransient(e)) {
          throw e;
        }
        if (!attempts.again("create " + location, e)) {
          throw attempts.gaveUp("create " + location, e);
        }
        // The failed attempt may have created the file; its name is ours alone (fresh and unique).
        retry("delete " + location, () -> delegate.delete(location));
      }
    }
  }

  @Override
  public boolean exists(String location) {
    return retry("check whether " + location + " exists", () -> delegate.exists(location));
  }

  @Override
  public List<FileEntry> list(String directory) {
    return retry("list " + directory, () -> delegate.list(directory));
  }

  @Override
  public boolean delete(String location) {
    return retry("delete " + location, () -> delegate.delete(location));
  }

  @Override
  public boolean deleteRecursively(String location) {
    return retry("delete " + location, () -> delegate.deleteRecursively(location));
  }

  @Override
  public void overwrite(String location, byte[] content) {
    retry(
        "write " + location,
        () -> {
          delegate.overwrite(location, content);
          return null;
        });
  }

  @Override
  public boolean putIfAbsent(String location, byte[] content) {
    String what = "publish " + location;
    Attempts attempts = new Attempts();
    boolean mayStillLand = false;
    while (true) {
      RuntimeException failure;
      try {
        if (delegate.putIfAbsent(location, content)) {
          return true;
        }
        // Refused because the name is taken, possibly by this very put: a store client that sends a
        // request again after losing the answer to the first (S3A does) finds what the first
        // stored.
        if (Boolean.TRUE.equals(
            readBack(location, content, attempts, "the store refused it as existing", null))) {
          LOG.info(
              "Publishing {} was refused as existing, and reading it back shows our own bytes: an earlier "
                  + "attempt of this put, sent again by the store's client, had published it",
              location);
          return true;
        }
        return false;
      } catch (RuntimeException e) {
        if (StorageErrors.isRefusal(e)) {
          throw e; // the store answered no (access denied, bad request, ...): it stored nothing
        }
        failure = e;
      }
      // The put may have taken effect before the error: find out before deciding anything.
      Boolean ours =
          readBack(
              location,
              content,
              attempts,
              "publishing it failed (" + failure.getMessage() + ")",
              failure);
      if (ours != null) {
        LOG.info(
            "Publishing {} failed ({}), and reading it back shows that {}",
            location,
            failure.getMessage(),
            ours ? "it was published" : "another writer published it first");
        return ours;
      }
      if (!StorageErrors.isTransient(failure)) {
        throw failure;
      }
      // A time-out or a broken connection may leave the request on its way to the store, which can
      // still store it after the read-back; a throttled or refused connection cannot.
      mayStillLand |= !StorageErrors.isRejectedBeforeActing(failure);
      if (!attempts.again(what, failure)) {
        if (mayStillLand) {
          throw new CommitOutcomeUnknownException(
              "Cannot tell whether "
                  + location
                  + " was published: publishing "
                  + "it failed "
                  + attempts.failures
                  + " time(s) in "
                  + attempts.elapsed()
                  + " ms (last: "
                  + failure.getMessage()
                  + "), some of them with a time-out or a broken connection, after which the "
                  + "store may still store it, although reading it back found nothing so far. Open the dataset to see "
                  + "its latest version before retrying the operation (see "
                  + RetryPolicy.MAX_ATTEMPTS
                  + " and "
                  + RetryPolicy.BUDGET_MS
                  + ").",
              failure);
        }
        throw attempts.gaveUp(
            what, failure, "; it was read back and is not there, so it was not published");
      }
    }
  }

  /**
   * True: the location holds {@code content}; false: other bytes; null: no file there. When it
   * cannot be read, {@link CommitOutcomeUnknownException} saying {@code why} the read-back was
   * needed.
   */
  private Boolean readBack(
      String location, byte[] content, Attempts attempts, String why, RuntimeException putFailure) {
    while (true) {
      try {
        if (!delegate.exists(location)) {
          return null;
        }
        try (InputFile in = delegate.newInputFile(location)) {
          long length = in.length();
          if (length != content.length) {
            return false;
          }
          ByteBuffer stored = in.read(0, content.length);
          byte[] bytes = new byte[stored.remaining()];
          stored.get(bytes);
          return Arrays.equals(bytes, content);
        }
      } catch (RuntimeException e) {
        if (!StorageErrors.isTransient(e) || !attempts.again("read back " + location, e)) {
          CommitOutcomeUnknownException unknown =
              new CommitOutcomeUnknownException(
                  "Cannot tell whether "
                      + location
                      + " was published: "
                      + why
                      + " and reading it back failed too ("
                      + e.getMessage()
                      + "). Open the dataset to see its latest version before retrying the operation.",
                  putFailure == null ? e : putFailure);
          if (putFailure != null) {
            unknown.addSuppressed(e);
          }
          throw unknown;
        }
      }
    }
  }

  @Override
  public String atomicityGuarantee(String location) {
    return retry(
        "check the commit protocol of " + location, () -> delegate.atomicityGuarantee(location));
  }

  @Override
  public IoStats stats() {
    return delegate.stats();
  }

  @Override
  public void close() {
    delegate.close();
  }

  // ---------------------------------------------------------------- files

  /**
   * Reads through a file of the wrapped FileIO, opened on first use; after a transient failure the
   * file is closed and opened again for the next attempt.
   */
  private final class RetryingInputFile implements InputFile {
    private final String location;
    private volatile long length;
    private InputFile current;

    RetryingInputFile(String location, long knownLength) {
      this.location = location;
      this.length = knownLength;
    }

    private synchronized InputFile current() {
      if (current == null) {
        current =
            length >= 0 ? delegate.newInputFile(location, length) : delegate.newInputFile(location);
      }
      return current;
    }

    private synchronized void reopenAfter(InputFile failed) {
      if (current == failed) {
        current = null;
        failed.close();
      }
    }

    private <T> T withRetries(String what, java.util.function.Function<InputFile, T> call) {
      return retry(
          what,
          () -> {
            InputFile file = current();
            try {
              return call.apply(file);
            } catch (RuntimeException e) {
              if (StorageErrors.isTransient(e)) {
                reopenAfter(file);
              }
              throw e;
            }
          });
    }

    @Override
    public String location() {
      return location;
    }

    @Override
    public long length() {
      long len = length;
      if (len < 0) {
        len = withRetries("read the length of " + location, InputFile::length);
        length = len;
      }
      return len;
    }

    @Override
    public ByteBuffer read(long position, int len) {
      return withRetries(
          "read " + len + " bytes at " + position + " of " + location, f -> f.read(position, len));
    }

    @Override
    public List<ByteBuffer> readRanges(List<ByteRange> ranges) {
      return withRetries(
          "read " + ranges.size() + " ranges of " + location, f -> f.readRanges(ranges));
    }

    @Override
    public ByteBuffer readTail(int len) {
      return withRetries("read the last " + len + " bytes of " + location, f -> f.readTail(len));
    }

    @Override
    public synchronized void close() {
      if (current != null) {
        current.close();
        current = null;
      }
    }
  }

  /**
   * The stream of a created file. Failures name the file; on close, the stored length must equal
   * the bytes written (a store, or a broken client, that dropped the tail of a file is caught here,
   * before any manifest refers to the file).
   */
  private final class CheckedOutputStream extends PositionOutputStream {
    private final String location;
    private final PositionOutputStream out;
    private boolean closed;

    CheckedOutputStream(String location, PositionOutputStream out) {
      this.location = location;
      this.out = out;
    }

    @Override
    public long position() {
      return out.position();
    }

    @Override
    public void write(int b) throws IOException {
      try {
        out.write(b);
      } catch (IOException e) {
        throw named("write", e);
      }
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      try {
        out.write(b, off, len);
      } catch (IOException e) {
        throw named("write", e);
      }
    }

    @Override
    public void flush() throws IOException {
      try {
        out.flush();
      } catch (IOException e) {
        throw named("write", e);
      }
    }

    @Override
    public void close() throws IOException {
      if (closed) {
        return;
      }
      closed = true;
      long written = out.position();
      try {
        out.close();
      } catch (IOException e) {
        throw named("finish writing", e);
      }
      long stored;
      try (InputFile in = newInputFile(location)) {
        stored = in.length();
      }
      if (stored != written) {
        throw new StorageException(
            "Cannot write "
                + location
                + ": "
                + written
                + " bytes were written but the store "
                + "holds "
                + stored
                + " (the write was truncated). Nothing refers to the file yet; retry the operation.");
      }
    }

    private IOException named(String action, IOException e) {
      String message = e.getMessage();
      if (message != null && message.contains(location)) {
        return e;
      }
      return new IOException("Cannot " + action + " " + location + ": " + message, e);
    }
  }
}
