package dev.lancelot.engine.internal.query.plan;

import java.io.Serializable;
import java.util.List;

/**
 * An independent piece of a vector search: it runs anywhere given the dataset location, version and
 * query, and returns its local best candidates (row address, distance). Units never depend on each
 * other; the {@link MergeSpec} combines their results.
 */
public sealed interface SearchUnit extends Serializable permits AnnUnit, FlatUnit {
  /**
   * Short id used in explain output and Spark partition names, e.g. {@code ann-0}, {@code flat-2}.
   */
  String id();

  /** Fragments whose rows this unit searches. */
  List<Long> fragments();
}
