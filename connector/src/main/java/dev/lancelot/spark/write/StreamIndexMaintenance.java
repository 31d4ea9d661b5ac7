package dev.lancelot.spark.write;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.LancelotException;
import dev.lancelot.engine.index.IndexStatistics;
import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.index.scalar.ScalarIndexBuilder;
import dev.lancelot.spark.LanceOptions;
import dev.lancelot.spark.index.LanceIndexBuilder;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Index maintenance for a streaming sink (semantics S13): after a micro-batch is committed, the
 * table's indexes that lag behind are brought up to date with {@link LanceIndexBuilder#optimize} (a
 * vector index gets a delta segment over the appended fragments, a scalar index new segments), so
 * searches keep using the index while data flows.
 *
 * <p>An index is optimized when it has unindexed rows and either the stream crossed a multiple of
 * {@code everyBatches} batches since its previous commit ({@value
 * LanceOptions#OPTIMIZE_INDEX_EVERY_BATCHES}), or the index has at least {@code unindexedRows}
 * unindexed rows ({@value LanceOptions#OPTIMIZE_INDEX_UNINDEXED_ROWS}). Counting batches by the
 * query's batch ids makes the schedule the same after a restart. A maintenance failure (for example
 * a concurrent writer's conflicting index build) is logged and does not fail the stream: the
 * batch's rows are committed, and the next due batch tries again. Indexes lancelot cannot build
 * (full-text indexes) are left alone, with a warning once per query.
 *
 * @param everyBatches optimize every this many batches (0: not by batch count)
 * @param unindexedRows optimize an index once this many of its rows are unindexed (0: not by rows)
 */
record StreamIndexMaintenance(long everyBatches, long unindexedRows) implements Serializable {
  private static final Logger LOG = LoggerFactory.getLogger(StreamIndexMaintenance.class);

  /** No maintenance: the defaults. */
  static final StreamIndexMaintenance NONE = new StreamIndexMaintenance(0, 0);

  /** Reads the two options from a streaming write's options (names compared ignoring case). */
  static StreamIndexMaintenance parse(Map<String, String> options) {
    Map<String, String> lower = new java.util.HashMap<>();
    options.forEach((k, v) -> lower.put(k.toLowerCase(Locale.ROOT), v));
    return new StreamIndexMaintenance(
        positive(LanceOptions.OPTIMIZE_INDEX_EVERY_BATCHES, lower),
        positive(LanceOptions.OPTIMIZE_INDEX_UNINDEXED_ROWS, lower));
  }

  private static long positive(String name, Map<String, String> lower) {
    String value = lower.get(name.toLowerCase(Locale.ROOT));
    if (value == null) {
      return 0;
    }
    long parsed;
    try {
      parsed = Long.parseLong(value.trim());
    } catch (NumberFormatException e) {
      parsed = -1;
    }
    if (parsed < 1) {
      throw new InvalidInputException(
          "Cannot use option "
              + name
              + "=\""
              + value
              + "\": expected a whole number of at least 1 (leave the option out to turn this"
              + " maintenance off).");
    }
    return parsed;
  }

  boolean enabled() {
    return everyBatches > 0 || unindexedRows > 0;
  }

  /**
   * Whether batch {@code epochId} is a batch-count maintenance point: the stream crossed a multiple
   * of {@link #everyBatches} since {@code previousEpoch}, its previous committed batch (-1: none).
   */
  boolean batchDue(long previousEpoch, long epochId) {
    return everyBatches > 0 && (previousEpoch + 1) / everyBatches < (epochId + 1) / everyBatches;
  }

  /**
   * The indexes of {@code committed} to optimize after batch {@code epochId}; indexes of a kind
   * lancelot cannot build are reported in {@code skipped}.
   */
  List<String> due(Dataset committed, long previousEpoch, long epochId, List<String> skipped) {
    boolean batchDue = batchDue(previousEpoch, epochId);
    List<String> due = new ArrayList<>();
    for (String name : committed.indexes().names()) {
      IndexStatistics stats = IndexStatistics.of(committed, name);
      if (stats.unindexedRows() == 0) {
        continue;
      }
      if (!batchDue && (unindexedRows == 0 || stats.unindexedRows() < unindexedRows)) {
        continue;
      }
      if (!optimizable(stats.type())) {
        skipped.add(name + " (" + stats.type() + ")");
        continue;
      }
      due.add(name);
    }
    return due;
  }

  private static boolean optimizable(IndexType type) {
    return (type.isVector() && type.isSupported()) || ScalarIndexBuilder.builds(type);
  }

  /**
   * Optimizes the indexes due after batch {@code epochId} of query {@code queryId}, committed as
   * {@code committed}; returns how many were optimized. Never throws for a failed optimize.
   */
  int run(
      SparkSession spark,
      String location,
      Dataset committed,
      long previousEpoch,
      long epochId,
      String queryId,
      java.util.Set<String> warned) {
    List<String> skipped = new ArrayList<>();
    List<String> due = due(committed, previousEpoch, epochId, skipped);
    for (String name : skipped) {
      if (warned.add(name)) {
        LOG.warn(
            "Streaming query {}: index {} of {} is not maintained while the stream runs (lancelot"
                + " cannot build indexes of its kind); its unindexed rows are searched without it",
            queryId,
            name,
            location);
      }
    }
    int optimized = 0;
    for (String name : due) {
      long start = System.nanoTime();
      try {
        long version = LanceIndexBuilder.optimize(spark, location, name, false);
        optimized++;
        LOG.info(
            "Streaming query {}: optimized index {} of {} after batch {} (version {}, {} ms)",
            queryId,
            name,
            location,
            epochId,
            version,
            (System.nanoTime() - start) / 1_000_000);
      } catch (LancelotException e) {
        LOG.warn(
            "Streaming query {}: optimizing index {} of {} after batch {} failed; the batch is"
                + " committed and the next due batch tries again: {}",
            queryId,
            name,
            location,
            epochId,
            e.getMessage());
      }
    }
    return optimized;
  }
}
