package dev.lancelot.engine.distributed;

import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.internal.query.exec.Candidates;
import dev.lancelot.engine.query.UnitStats;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInput;
import java.io.DataInputStream;
import java.io.DataOutput;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.util.Optional;

/**
 * One query's candidates from one {@link SearchTask} (row addresses with approximate and exact
 * distances), and optionally that task's statistics for the query: the record a query frame's
 * search groups by query before {@link VectorSearchPlan#mergeQueries}. {@linkplain #toBytes()
 * Travels as bytes} ({@code 16} bytes per candidate).
 */
public final class QueryCandidates implements Serializable {
  private static final long serialVersionUID = 1L;
  private final int task;
  private final Candidates candidates;
  private final UnitStats stats;

  QueryCandidates(int task, Candidates candidates, UnitStats stats) {
    this.task = task;
    this.candidates = candidates;
    this.stats = stats;
  }

  Candidates internal() {
    return candidates;
  }

  /** The position in its plan of the task that found these candidates. */
  public int task() {
    return task;
  }

  /** Number of candidates. */
  public int size() {
    return candidates.size();
  }

  /** The task's statistics for this query, when they were attached. */
  public Optional<UnitStats> stats() {
    return Optional.ofNullable(stats);
  }

  /**
   * These candidates with the attached statistics' time replaced by {@code nanos} (e.g. the time
   * the caller measured around the task, overheads included).
   *
   * @throws IllegalStateException if no statistics are attached
   */
  public QueryCandidates withNanos(long nanos) {
    if (stats == null) {
      throw new IllegalStateException("No statistics attached to these candidates");
    }
    return new QueryCandidates(
        task,
        candidates,
        new UnitStats(
            stats.unitId(),
            stats.partitionsProbed(),
            stats.rowsScanned(),
            stats.distancesComputed(),
            stats.candidates(),
            nanos,
            stats.maskSource(),
            stats.maskRows()));
  }

  /** The candidates as bytes ({@link #fromBytes} reads them back). */
  public byte[] toBytes() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(16 + candidates.size() * 16);
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeByte(Wire.QUERY_CANDIDATES);
      out.writeByte(Wire.FORMAT);
      out.writeInt(task);
      writeCandidates(out, candidates);
      out.writeBoolean(stats != null);
      if (stats != null) {
        writeStats(out, stats);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  /**
   * Reads candidates written by {@link #toBytes}.
   *
   * @throws InvalidInputException if the bytes are not a query's candidates
   */
  public static QueryCandidates fromBytes(byte[] bytes) {
    Wire.check(Wire.QUERY_CANDIDATES, bytes, "a query's candidates");
    try (DataInputStream in =
        new DataInputStream(new ByteArrayInputStream(bytes, 2, bytes.length - 2))) {
      int task = in.readInt();
      Candidates c = readCandidates(in);
      UnitStats stats = in.readBoolean() ? readStats(in) : null;
      return new QueryCandidates(task, c, stats);
    } catch (IOException e) {
      throw new InvalidInputException(
          "Cannot read a query's candidates: the bytes are corrupt (" + e + ")");
    }
  }

  static void writeCandidates(DataOutput out, Candidates c) throws IOException {
    out.writeInt(c.size());
    for (int i = 0; i < c.size(); i++) {
      out.writeLong(c.rowAddresses()[i]);
      out.writeFloat(c.approx()[i]);
      out.writeFloat(c.exact()[i]);
    }
  }

  static Candidates readCandidates(DataInput in) throws IOException {
    int n = in.readInt();
    if (n < 0) {
      throw new IOException("negative candidate count " + n);
    }
    long[] rows = new long[n];
    float[] approx = new float[n];
    float[] exact = new float[n];
    for (int i = 0; i < n; i++) {
      rows[i] = in.readLong();
      approx[i] = in.readFloat();
      exact[i] = in.readFloat();
    }
    return new Candidates(rows, approx, exact);
  }

  static void writeStats(DataOutput out, UnitStats s) throws IOException {
    out.writeUTF(s.unitId());
    out.writeLong(s.partitionsProbed());
    out.writeLong(s.rowsScanned());
    out.writeLong(s.distancesComputed());
    out.writeLong(s.candidates());
    out.writeLong(s.nanos());
    out.writeBoolean(s.maskSource() != null);
    if (s.maskSource() != null) {
      out.writeUTF(s.maskSource());
    }
    out.writeLong(s.maskRows());
  }

  static UnitStats readStats(DataInput in) throws IOException {
    String id = in.readUTF();
    long probed = in.readLong();
    long scanned = in.readLong();
    long distances = in.readLong();
    long candidates = in.readLong();
    long nanos = in.readLong();
    String mask = in.readBoolean() ? in.readUTF() : null;
    long maskRows = in.readLong();
    return new UnitStats(id, probed, scanned, distances, candidates, nanos, mask, maskRows);
  }

  @Override
  public String toString() {
    return "QueryCandidates[task " + task + ", " + candidates.size() + " rows]";
  }
}
