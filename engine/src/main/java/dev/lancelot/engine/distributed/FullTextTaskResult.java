package dev.lancelot.engine.distributed;

import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.internal.index.text.TextSearcher;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * What one {@link FullTextSearchTask} found: its partition's best rows (row ids and BM25 scores, at
 * most {@code k}, best first) and how long it took. {@linkplain #toBytes() Travels as bytes} (12
 * bytes per row); only {@link FullTextSearchPlan#finish} turns results into the answer.
 */
public final class FullTextTaskResult implements Serializable {
  private static final long serialVersionUID = 1L;
  private final int task;
  private final List<TextSearcher.Hit> hits;
  private final long nanos;

  FullTextTaskResult(int task, List<TextSearcher.Hit> hits, long nanos) {
    this.task = task;
    this.hits = List.copyOf(hits);
    this.nanos = nanos;
  }

  List<TextSearcher.Hit> hits() {
    return hits;
  }

  /** The task's position in its plan. */
  public int task() {
    return task;
  }

  /** Number of rows the task returned. */
  public int size() {
    return hits.size();
  }

  /** The row id of the {@code i}-th best row. */
  public long rowId(int i) {
    return hits.get(i).rowId();
  }

  /** The score of the {@code i}-th best row. */
  public float score(int i) {
    return hits.get(i).score();
  }

  /** Time the task spent searching, in nanoseconds. */
  public long nanos() {
    return nanos;
  }

  /** The result as bytes ({@link #fromBytes} reads them back). */
  public byte[] toBytes() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(24 + hits.size() * 12);
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeByte(Wire.FULL_TEXT_RESULT);
      out.writeByte(Wire.FORMAT);
      out.writeInt(task);
      out.writeLong(nanos);
      out.writeInt(hits.size());
      for (TextSearcher.Hit h : hits) {
        out.writeLong(h.rowId());
        out.writeFloat(h.score());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  /**
   * Reads a result written by {@link #toBytes}.
   *
   * @throws InvalidInputException if the bytes are not a full-text task's result
   */
  public static FullTextTaskResult fromBytes(byte[] bytes) {
    Wire.check(Wire.FULL_TEXT_RESULT, bytes, "a full-text search task's result");
    try (DataInputStream in =
        new DataInputStream(new ByteArrayInputStream(bytes, 2, bytes.length - 2))) {
      int task = in.readInt();
      long nanos = in.readLong();
      int n = in.readInt();
      if (n < 0 || (long) n * 12 > bytes.length) {
        throw new IOException("bad row count " + n);
      }
      List<TextSearcher.Hit> hits = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        hits.add(new TextSearcher.Hit(in.readLong(), in.readFloat()));
      }
      if (in.available() != 0) {
        throw new IOException(in.available() + " trailing bytes");
      }
      return new FullTextTaskResult(task, hits, nanos);
    } catch (IOException e) {
      throw new InvalidInputException(
          "Cannot read a full-text search task's result: the bytes are corrupt (" + e + ")");
    }
  }

  @Override
  public String toString() {
    return "FullTextTaskResult[task " + task + ", " + hits.size() + " rows]";
  }
}
