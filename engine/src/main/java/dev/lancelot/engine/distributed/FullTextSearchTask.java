package dev.lancelot.engine.distributed;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.expr.BoundPredicate;
import dev.lancelot.engine.internal.index.text.TextSearcher;
import dev.lancelot.engine.internal.index.text.TextTasks;
import java.io.Serializable;
import java.util.List;

/**
 * One independent piece of a {@link FullTextSearchPlan}: the search of one partition of one segment
 * of the inverted index. Self-contained: it carries the dataset location and version, the query's
 * tokens, the corpus-wide BM25 statistics the plan gathered, {@code k}, the operator and the bound
 * prefilter, so it runs anywhere that can open the dataset and scores exactly as the local search
 * does. Returns its partition's best rows ({@link FullTextTaskResult}).
 */
public final class FullTextSearchTask implements Serializable {
  private static final long serialVersionUID = 1L;
  private final String location;
  private final long version;
  private final String index;
  private final TextTasks.Unit unit;
  private final List<String> tokens;
  private final TextSearcher.Corpus corpus;
  private final boolean and;
  private final int k;
  private final BoundPredicate prefilter;
  private final int position;

  FullTextSearchTask(
      String location,
      long version,
      String index,
      TextTasks.Unit unit,
      List<String> tokens,
      TextSearcher.Corpus corpus,
      boolean and,
      int k,
      BoundPredicate prefilter,
      int position) {
    this.location = location;
    this.version = version;
    this.index = index;
    this.unit = unit;
    this.tokens = List.copyOf(tokens);
    this.corpus = corpus;
    this.and = and;
    this.k = k;
    this.prefilter = prefilter;
    this.position = position;
  }

  /** Position of this task in its plan's {@link FullTextSearchPlan#tasks()}. */
  public int index() {
    return position;
  }

  /** Short id, as explain prints it: {@code fts-0}, {@code fts-1}, ... */
  public String id() {
    return "fts-" + position;
  }

  /** The dataset location the task searches. */
  public String location() {
    return location;
  }

  /** The dataset version the task searches. */
  public long version() {
    return version;
  }

  /** The uuid of the index segment whose partition the task searches. */
  public String segment() {
    return unit.segment();
  }

  /** The id of the partition (within its segment) the task searches. */
  public int partition() {
    return unit.partition();
  }

  /** Documents the partition indexes. */
  public int documents() {
    return unit.documents();
  }

  /** Fragments whose rows the partition indexes. */
  public List<Long> fragments() {
    return unit.fragments();
  }

  /**
   * What this task reads that stays the same across versions (the segment and partition), for
   * schedulers that place a task where the same piece was searched before and is cached.
   */
  public String placementKey() {
    return location.replaceAll("/+$", "")
        + "#segment:"
        + unit.segment()
        + "/partition:"
        + unit.partition();
  }

  /**
   * Runs the task on {@code dataset} (the plan's version, e.g. from {@link Dataset#openCached}).
   *
   * @throws IllegalStateException if {@code dataset} is another version
   */
  public FullTextTaskResult run(Dataset dataset) {
    if (dataset.version() != version) {
      throw new IllegalStateException(
          "Task "
              + id()
              + " planned on version "
              + version
              + " of "
              + location
              + " run on version "
              + dataset.version());
    }
    long start = System.nanoTime();
    List<TextSearcher.Hit> hits =
        TextTasks.run(dataset, index, unit, tokens, corpus, and, k, prefilter);
    return new FullTextTaskResult(position, hits, System.nanoTime() - start);
  }

  /** The task as bytes ({@link #fromBytes} reads them back). */
  public byte[] toBytes() {
    return Wire.serialize(Wire.FULL_TEXT_TASK, this);
  }

  /**
   * Reads a task written by {@link #toBytes}.
   *
   * @throws InvalidInputException if the bytes are not a full-text search task
   */
  public static FullTextSearchTask fromBytes(byte[] bytes) {
    return Wire.deserialize(
        Wire.FULL_TEXT_TASK, bytes, FullTextSearchTask.class, "a full-text search task");
  }

  @Override
  public String toString() {
    return "FullTextSearchTask[" + id() + " of " + location + "@v" + version + "]";
  }
}
