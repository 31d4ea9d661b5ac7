package dev.lancelot.engine.distributed;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.FragmentInfo;
import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.index.IndexSegment;
import dev.lancelot.engine.internal.DatasetInternals;
import dev.lancelot.engine.internal.query.DistributedSearch;
import dev.lancelot.engine.internal.query.exec.UnitResult;
import dev.lancelot.engine.internal.query.plan.AnnUnit;
import dev.lancelot.engine.internal.query.plan.SearchPlan;
import dev.lancelot.engine.internal.query.plan.SearchUnit;
import dev.lancelot.engine.io.FileEntry;
import dev.lancelot.engine.query.InvalidQueryException;
import dev.lancelot.engine.query.UnitStats;
import dev.lancelot.engine.query.VectorQuery;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * One independent piece of a {@link VectorSearchPlan}: the search of one index segment (ANN) or of
 * a group of fragments no index covers (flat). Self-contained: it carries its plan's dataset
 * location, version and parameters, so it runs anywhere that can open the dataset. Returns its
 * local best candidates ({@link TaskResult}), which only the plan's merge turns into an answer.
 */
public final class SearchTask implements Serializable {
  private static final long serialVersionUID = 1L;

  /** The plan's parameters with this task's unit as its only unit. */
  private final SearchPlan plan;

  private final int index;

  SearchTask(SearchPlan plan, int index) {
    this.plan = plan;
    this.index = index;
  }

  private SearchUnit unit() {
    return plan.units().get(0);
  }

  /** Position of this task in its plan's {@link VectorSearchPlan#tasks()}. */
  public int index() {
    return index;
  }

  /** Short id, as explain prints it: {@code ann-0}, {@code flat-2}, ... */
  public String id() {
    return unit().id();
  }

  /** The dataset location the task searches. */
  public String location() {
    return plan.location();
  }

  /** The dataset version the task searches. */
  public long version() {
    return plan.version();
  }

  /** Fragments whose rows this task searches. */
  public List<Long> fragments() {
    return unit().fragments();
  }

  /** True for the search of an index segment, false for a flat search of fragments. */
  public boolean isIndexSegment() {
    return unit() instanceof AnnUnit;
  }

  /** The index segment's uuid, for the search of an index segment. */
  public Optional<String> segment() {
    return unit() instanceof AnnUnit a ? Optional.of(a.segment()) : Optional.empty();
  }

  /**
   * What this task reads that stays the same across versions — the index segment (segment files
   * never change), or the fragments — for schedulers that place a task where the same piece was
   * searched before and is cached.
   */
  public String placementKey() {
    return plan.location().replaceAll("/+$", "")
        + "#"
        + (unit() instanceof AnnUnit a ? "segment:" + a.segment() : "fragments:" + fragments());
  }

  /**
   * The files this task reads (an index segment's files, or the data files of its fragments), as
   * locations under the dataset, for schedulers that place tasks by block locality.
   */
  public List<String> files(Dataset dataset) {
    String root = dataset.location().replaceAll("/+$", "");
    List<String> files = new ArrayList<>();
    if (unit() instanceof AnnUnit a) {
      IndexSegment segment =
          dataset.indexes().segments(a.indexName()).stream()
              .filter(s -> s.uuid().toString().equals(a.segment()))
              .findFirst()
              .orElseThrow(
                  () ->
                      new InvalidInputException(
                          "Segment "
                              + a.segment()
                              + " of index "
                              + a.indexName()
                              + " is not in version "
                              + dataset.version()
                              + " of "
                              + dataset.location()));
      // under a base path for an index a branch shares with its parent
      String dir = dev.lancelot.engine.internal.index.IndexInternals.directory(segment, root);
      for (String f : segment.files()) {
        files.add(dir + "/" + f);
      }
      if (files.isEmpty()) { // older writers do not list a segment's files: list its directory
        DatasetInternals.context(dataset).io().list(dir).stream()
            .filter(e -> !e.isDirectory())
            .map(FileEntry::location)
            .sorted()
            .forEach(files::add);
      }
      return files;
    }
    Set<Long> wanted = new HashSet<>(fragments());
    for (FragmentInfo fragment : dataset.fragments()) {
      if (wanted.contains(fragment.id())) {
        fragment.dataFiles().forEach(f -> files.add(root + "/data/" + f));
      }
    }
    return files;
  }

  /**
   * Runs the task for the plan's own query vectors, on {@code dataset} (the plan's version, e.g.
   * from {@link Dataset#openCached}).
   *
   * @throws IllegalStateException if the plan has no vectors (a query frame's plan: use {@link
   *     #run(Dataset, float[][])})
   */
  public TaskResult run(Dataset dataset) {
    if (!plan.query().hasVectors()) {
      throw new IllegalStateException(
          "Task " + id() + " belongs to a plan without query vectors: run it with vectors");
    }
    checkVersion(dataset);
    return new TaskResult(index, DistributedSearch.runUnit(dataset, plan, unit()));
  }

  /**
   * Runs the task for {@code vectors} (a block of a query frame; query {@code i} of the result is
   * {@code vectors[i]}), with the plan's parameters.
   *
   * @throws InvalidQueryException if a vector has the wrong dimension or a non-finite value
   */
  public TaskResult run(Dataset dataset, float[][] vectors) {
    checkVersion(dataset);
    if (vectors.length == 0) {
      String id = unit().id();
      return new TaskResult(
          index, new UnitResult(id, List.of(), new UnitStats(id, 0, 0, 0, 0, 0, null, 0)));
    }
    VectorQuery q = plan.query().toBuilder().vectors(vectors).build();
    SearchPlan withVectors = plan.withQuery(q);
    return new TaskResult(index, DistributedSearch.runUnit(dataset, withVectors, unit()));
  }

  private void checkVersion(Dataset dataset) {
    if (dataset.version() != plan.version()) {
      throw new IllegalStateException(
          "Task "
              + id()
              + " planned on version "
              + plan.version()
              + " of "
              + plan.location()
              + " run on version "
              + dataset.version());
    }
  }

  /** The task as bytes ({@link #fromBytes} reads them back); it holds its plan. */
  public byte[] toBytes() {
    return Wire.serialize(Wire.SEARCH_TASK, this);
  }

  /**
   * Reads a task written by {@link #toBytes}.
   *
   * @throws InvalidInputException if the bytes are not a task
   */
  public static SearchTask fromBytes(byte[] bytes) {
    return Wire.deserialize(Wire.SEARCH_TASK, bytes, SearchTask.class, "a search task");
  }

  @Override
  public String toString() {
    return "SearchTask[" + id() + " of " + plan.location() + "@v" + plan.version() + "]";
  }
}
