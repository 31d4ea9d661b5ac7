package dev.lancelot.engine.distributed;

import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.internal.query.exec.Candidates;
import dev.lancelot.engine.internal.query.exec.UnitResult;
import dev.lancelot.engine.query.UnitStats;
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
 * What one {@link SearchTask} found: its local best candidates for each query vector it ran with
 * (row addresses and distances only, at most {@code k × refine_factor} per query for an index
 * segment and {@code k} for a flat search), and what it did ({@link UnitStats}). Small; {@linkplain
 * #toBytes() travels as bytes}.
 */
public final class TaskResult implements Serializable {
  private static final long serialVersionUID = 1L;
  private final int task;
  private final UnitResult result;

  TaskResult(int task, UnitResult result) {
    this.task = task;
    this.result = result;
  }

  UnitResult internal() {
    return result;
  }

  /** The task's position in its plan. */
  public int task() {
    return task;
  }

  /** Number of query vectors the task ran with. */
  public int queries() {
    return result.perQuery().size();
  }

  /** What the task did: partitions probed, rows scanned, distances computed, time. */
  public UnitStats stats() {
    return result.stats();
  }

  /**
   * Query {@code i}'s candidates alone, for gathering a query frame's candidates by query ({@link
   * VectorSearchPlan#mergeQueries}); {@code withStats} attaches this task's statistics (meaningful
   * when the task ran for that one query).
   */
  public QueryCandidates candidates(int i, boolean withStats) {
    return new QueryCandidates(task, result.perQuery().get(i), withStats ? result.stats() : null);
  }

  /** Total candidates over every query. */
  public long candidateCount() {
    long n = 0;
    for (Candidates c : result.perQuery()) {
      n += c.size();
    }
    return n;
  }

  /** The result as bytes ({@link #fromBytes} reads them back). */
  public byte[] toBytes() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(64 + (int) candidateCount() * 16);
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeByte(Wire.TASK_RESULT);
      out.writeByte(Wire.FORMAT);
      out.writeInt(task);
      out.writeUTF(result.unitId());
      QueryCandidates.writeStats(out, result.stats());
      out.writeInt(result.perQuery().size());
      for (Candidates c : result.perQuery()) {
        QueryCandidates.writeCandidates(out, c);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  /**
   * Reads a result written by {@link #toBytes}.
   *
   * @throws InvalidInputException if the bytes are not a task result
   */
  public static TaskResult fromBytes(byte[] bytes) {
    Wire.check(Wire.TASK_RESULT, bytes, "a search task's result");
    try (DataInputStream in =
        new DataInputStream(new ByteArrayInputStream(bytes, 2, bytes.length - 2))) {
      int task = in.readInt();
      String unitId = in.readUTF();
      UnitStats stats = QueryCandidates.readStats(in);
      int n = in.readInt();
      List<Candidates> perQuery = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        perQuery.add(QueryCandidates.readCandidates(in));
      }
      return new TaskResult(task, new UnitResult(unitId, perQuery, stats));
    } catch (IOException e) {
      throw new InvalidInputException(
          "Cannot read a search task's result: the bytes are corrupt (" + e + ")");
    }
  }

  @Override
  public String toString() {
    return "TaskResult[" + result.unitId() + ", queries=" + queries() + "]";
  }
}
