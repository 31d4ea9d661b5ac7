package dev.lancelot.engine.io;

import java.io.FileNotFoundException;
import java.net.ConnectException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.util.List;
import java.util.Locale;

/**
 * Which storage errors are transient (the same call may succeed if made again a little later) and
 * which are permanent. Only transient ones are retried ({@link RetryingFileIO}); anything not
 * recognised as transient is permanent, so an unknown failure is reported at once rather than
 * hidden behind retries.
 *
 * <p>Transient: time-outs and broken connections ({@link SocketTimeoutException}, {@link
 * SocketException} such as "Connection reset", {@link ConnectException}); S3's throttling and
 * server errors (S3A's {@code AWSServiceThrottledException}, {@code AWSStatus500Exception}, {@code
 * AWSApiCallTimeoutException}, or a message carrying HTTP status 500, 502, 503 or 504, or
 * "SlowDown"); HDFS's {@code RetriableException}, {@code StandbyException} and {@code
 * SafeModeException}. Classes of other libraries are matched by name: the engine depends on neither
 * {@code hadoop-aws} nor the HDFS client.
 *
 * <p>Permanent whatever else the chain holds: a missing file ({@link FileNotFoundException}, {@link
 * java.nio.file.NoSuchFileException}), refused access ({@code AccessDeniedException}, {@code
 * AccessControlException}), an existing file ({@code FileAlreadyExistsException}).
 */
public final class StorageErrors {
  private static final List<String> TRANSIENT_CLASSES =
      List.of(
          "org.apache.hadoop.fs.s3a.AWSServiceThrottledException",
          "org.apache.hadoop.fs.s3a.AWSStatus500Exception",
          "org.apache.hadoop.fs.s3a.AWSApiCallTimeoutException",
          "org.apache.hadoop.ipc.RetriableException",
          "org.apache.hadoop.ipc.StandbyException",
          "org.apache.hadoop.hdfs.server.namenode.SafeModeException");

  private static final List<String> TRANSIENT_MESSAGES =
      List.of(
          "slowdown",
          "slow down",
          "status code: 500",
          "status code: 502",
          "status code: 503",
          "status code: 504",
          "503 service unavailable",
          "connection reset",
          "broken pipe",
          "timed out",
          "timeout waiting for connection");

  private StorageErrors() {}

  /**
   * True when {@code error}, or an exception in its cause chain, is transient and nothing in it is
   * permanent.
   */
  public static boolean isTransient(Throwable error) {
    boolean transientSeen = false;
    int depth = 0;
    for (Throwable t = error;
        t != null && depth < 20;
        t = t.getCause() == t ? null : t.getCause(), depth++) {
      if (isPermanent(t)) {
        return false;
      }
      transientSeen |= isTransientOne(t);
    }
    return transientSeen;
  }

  /**
   * True when the store answered no and so stored nothing: {@code error}, or an exception in its
   * cause chain, is a missing file, refused access, an existing file or a bad request.
   */
  public static boolean isRefusal(Throwable error) {
    int depth = 0;
    for (Throwable t = error;
        t != null && depth < 20;
        t = t.getCause() == t ? null : t.getCause(), depth++) {
      if (isPermanent(t)) {
        return true;
      }
    }
    return false;
  }

  /**
   * True when a transient {@code error} says the request was turned away before the store acted on
   * it: throttling (S3's {@code 503 SlowDown}, S3A's {@code AWSServiceThrottledException}) or a
   * connection that could not be opened. A time-out, a broken connection or a server error (S3 may
   * answer 500 after storing an object) leaves the outcome open.
   */
  public static boolean isRejectedBeforeActing(Throwable error) {
    int depth = 0;
    for (Throwable t = error;
        t != null && depth < 20;
        t = t.getCause() == t ? null : t.getCause(), depth++) {
      if (t instanceof ConnectException) {
        return true;
      }
      for (Class<?> c = t.getClass(); c != null; c = c.getSuperclass()) {
        if (c.getName().equals("org.apache.hadoop.fs.s3a.AWSServiceThrottledException")) {
          return true;
        }
      }
      String m = String.valueOf(t.getMessage()).toLowerCase(Locale.ROOT);
      if (m.contains("slowdown")
          || m.contains("slow down")
          || m.contains("status code: 503")
          || m.contains("503 service unavailable")) {
        return true;
      }
    }
    return false;
  }

  private static boolean isPermanent(Throwable t) {
    if (t instanceof FileNotFoundException
        || t instanceof java.nio.file.NoSuchFileException
        || t instanceof java.nio.file.AccessDeniedException
        || t instanceof java.nio.file.FileAlreadyExistsException
        || t instanceof org.apache.hadoop.fs.FileAlreadyExistsException) {
      return true;
    }
    for (Class<?> c = t.getClass(); c != null; c = c.getSuperclass()) {
      String name = c.getName();
      if (name.equals("org.apache.hadoop.security.AccessControlException")
          || name.equals("org.apache.hadoop.fs.s3a.AWSBadRequestException")
          || name.equals("org.apache.hadoop.fs.s3a.RemoteFileChangedException")) {
        return true;
      }
    }
    return false;
  }

  private static boolean isTransientOne(Throwable t) {
    if (t instanceof SocketTimeoutException
        || t instanceof SocketException
        || t instanceof ConnectException) {
      return true;
    }
    for (Class<?> c = t.getClass(); c != null; c = c.getSuperclass()) {
      if (TRANSIENT_CLASSES.contains(c.getName())) {
        return true;
      }
    }
    String message = t.getMessage();
    if (message == null) {
      return false;
    }
    String m = message.toLowerCase(Locale.ROOT);
    for (String marker : TRANSIENT_MESSAGES) {
      if (m.contains(marker)) {
        return true;
      }
    }
    return false;
  }
}
