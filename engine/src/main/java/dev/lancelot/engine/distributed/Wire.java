package dev.lancelot.engine.distributed;

import dev.lancelot.engine.InvalidInputException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.io.UncheckedIOException;

/**
 * Bytes of the opaque pieces: a one-byte kind tag, a one-byte format version, then the body. Plans
 * and tasks use Java serialization for the body (they hold engine records that are serializable);
 * the small, numerous pieces write their own compact body.
 */
final class Wire {
  static final byte FORMAT = 1;
  static final byte SEARCH_PLAN = 1;
  static final byte SEARCH_TASK = 2;
  static final byte TASK_RESULT = 3;
  static final byte QUERY_CANDIDATES = 4;
  static final byte INDEX_BUILD_TASK = 5;
  static final byte INDEX_MODEL = 6;
  static final byte WRITTEN_SEGMENT = 7;
  static final byte COMPACTION_PLAN = 8;
  static final byte COMPACTION_TASK = 9;
  static final byte REWRITTEN_GROUP = 10;
  static final byte SCAN_PLAN = 11;
  static final byte SCAN_TASK = 12;
  static final byte SCALAR_INDEX_BUILD_TASK = 13;
  // Full-text search (D71).
  static final byte FULL_TEXT_PLAN = 30;
  static final byte FULL_TEXT_TASK = 31;
  static final byte FULL_TEXT_RESULT = 32;

  private Wire() {}

  static byte[] serialize(byte kind, Serializable value) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    bytes.write(kind);
    bytes.write(FORMAT);
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(value);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  static <T> T deserialize(byte kind, byte[] bytes, Class<T> type, String what) {
    check(kind, bytes, what);
    try (ObjectInputStream in =
        new ObjectInputStream(new ByteArrayInputStream(bytes, 2, bytes.length - 2))) {
      return type.cast(in.readObject());
    } catch (IOException | ClassNotFoundException | ClassCastException e) {
      throw new InvalidInputException(
          "Cannot read " + what + ": the bytes are corrupt (" + e + ")");
    }
  }

  /** Checks the kind tag and format version of {@code bytes}. */
  static void check(byte kind, byte[] bytes, String what) {
    if (bytes == null || bytes.length < 2) {
      throw new InvalidInputException("Cannot read " + what + ": the bytes are too short");
    }
    if (bytes[0] != kind) {
      throw new InvalidInputException(
          "Cannot read " + what + ": the bytes hold another kind of piece (tag " + bytes[0] + ")");
    }
    if (bytes[1] != FORMAT) {
      throw new InvalidInputException(
          "Cannot read "
              + what
              + ": written in format "
              + bytes[1]
              + ", this engine reads format "
              + FORMAT
              + " (mixed lancelot versions in one job?)");
    }
  }
}
