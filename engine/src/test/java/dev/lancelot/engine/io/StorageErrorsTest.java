package dev.lancelot.engine.io;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.file.AccessDeniedException;
import org.junit.jupiter.api.Test;

/** Which errors {@link RetryingFileIO} retries. */
class StorageErrorsTest {
  @Test
  void timeoutsResetsThrottlingAndServerErrorsAreTransient() {
    assertThat(StorageErrors.isTransient(new SocketTimeoutException("Read timed out"))).isTrue();
    assertThat(StorageErrors.isTransient(new SocketException("Connection reset"))).isTrue();
    assertThat(
            StorageErrors.isTransient(
                new IOException(
                    "getFileStatus on s3a://b/k: S3Exception: Please reduce "
                        + "your request rate. (Service: S3, Status Code: 503, Request ID: X)")))
        .isTrue();
    assertThat(StorageErrors.isTransient(new IOException("SlowDown"))).isTrue();
    assertThat(
            StorageErrors.isTransient(
                new StorageException(
                    "Cannot read s3a://b/k: x",
                    new IOException("wrapped", new SocketException("Broken pipe")))))
        .isTrue();
  }

  @Test
  void missingFilesRefusedAccessAndUnknownErrorsArePermanent() {
    assertThat(StorageErrors.isTransient(new FileNotFoundException("s3a://b/k"))).isFalse();
    assertThat(StorageErrors.isTransient(new AccessDeniedException("s3a://b/k"))).isFalse();
    assertThat(StorageErrors.isTransient(new IOException("disk quota exceeded"))).isFalse();
    assertThat(
            StorageErrors.isTransient(
                new StorageException("Cannot read x: bytes lie outside the file")))
        .isFalse();
    // a permanent error anywhere in the chain wins: retrying cannot make the file appear
    assertThat(
            StorageErrors.isTransient(
                new SocketTimeoutException("timed out") {
                  {
                    initCause(new FileNotFoundException("gone"));
                  }
                }))
        .isFalse();
  }
}
