package dev.lancelot.engine;

/**
 * What {@link Dataset#compact} rewrites, with Lance 7's defaults ({@code CompactionOptions} of
 * {@code rust/lance/src/dataset/optimize.rs}).
 *
 * <p>A fragment is a candidate when more than {@code materializeDeletionsThreshold} of its physical
 * rows are deleted (and {@code materializeDeletions}), or when it has fewer than {@code
 * targetRowsPerFragment} physical rows; a small fragment is only rewritten together with adjacent
 * candidates. Candidates are grouped with their neighbours in fragment order, never across a
 * fragment that is not a candidate nor across fragments covered by different index segments, and
 * each group is written as fragments of at most {@code targetRowsPerFragment} rows.
 *
 * @param targetRowsPerFragment rows a compacted fragment holds at most (default 1,048,576)
 * @param materializeDeletions rewrite fragments with many deleted rows (default true)
 * @param materializeDeletionsThreshold fraction of deleted physical rows above which a fragment is
 *     rewritten (default 0.1); at 1.0 or more deletions are never materialized
 * @param targetBase the base the rewritten fragments' data files go to: the name or path of a base
 *     the dataset registers, as {@link WriteOptions#targetBase()}; {@code null} (the default, and
 *     what Lance's compaction always does) for the dataset root (decision D68)
 */
public record CompactionOptions(
    int targetRowsPerFragment,
    boolean materializeDeletions,
    double materializeDeletionsThreshold,
    String targetBase)
    implements java.io.Serializable {
  public static final int DEFAULT_TARGET_ROWS_PER_FRAGMENT = 1024 * 1024;
  public static final double DEFAULT_MATERIALIZE_DELETIONS_THRESHOLD = 0.1;

  public CompactionOptions {
    if (targetRowsPerFragment < 1) {
      throw new InvalidInputException(
          "Cannot compact: target_rows_per_fragment must be at least 1, got "
              + targetRowsPerFragment);
    }
    if (Double.isNaN(materializeDeletionsThreshold)) {
      throw new InvalidInputException(
          "Cannot compact: materialize_deletions_threshold must be a number");
    }
  }

  /** Options writing the rewritten fragments at the dataset root. */
  public CompactionOptions(
      int targetRowsPerFragment,
      boolean materializeDeletions,
      double materializeDeletionsThreshold) {
    this(targetRowsPerFragment, materializeDeletions, materializeDeletionsThreshold, null);
  }

  public static CompactionOptions defaults() {
    return new CompactionOptions(
        DEFAULT_TARGET_ROWS_PER_FRAGMENT, true, DEFAULT_MATERIALIZE_DELETIONS_THRESHOLD);
  }

  public CompactionOptions withTargetRowsPerFragment(int rows) {
    return new CompactionOptions(
        rows, materializeDeletions, materializeDeletionsThreshold, targetBase);
  }

  public CompactionOptions withMaterializeDeletions(boolean on) {
    return new CompactionOptions(
        targetRowsPerFragment, on, materializeDeletionsThreshold, targetBase);
  }

  public CompactionOptions withMaterializeDeletionsThreshold(double fraction) {
    return new CompactionOptions(targetRowsPerFragment, materializeDeletions, fraction, targetBase);
  }

  /**
   * These options writing the rewritten fragments to base {@code nameOrPath} ({@code null}: the
   * root).
   */
  public CompactionOptions withTargetBase(String nameOrPath) {
    return new CompactionOptions(
        targetRowsPerFragment, materializeDeletions, materializeDeletionsThreshold, nameOrPath);
  }

  /**
   * Whether deletions are materialized at all (a threshold of 1.0 or more turns it off, as in
   * Lance).
   */
  public boolean materializesDeletions() {
    return materializeDeletions && materializeDeletionsThreshold < 1.0;
  }
}
