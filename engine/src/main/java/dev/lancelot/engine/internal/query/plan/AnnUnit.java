package dev.lancelot.engine.internal.query.plan;

import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.vector.DistanceMetric;
import java.util.List;

/**
 * Search of one vector index segment (SPEC Q4–Q7): rank IVF partitions, probe {@code minNprobes}
 * (raised by Lance's early-pruning rule, capped at the maximum) and widen one partition at a time
 * up to {@code maxNprobes} (null: all) while fewer than the query's k results (or all rows the
 * prefilter admits) were found; HNSW partitions are searched with {@code ef}. Returns the best
 * {@code candidateK} candidates by approximate distance, with exact distances too when {@code
 * exactDistances} (refine, or merging with flat results).
 *
 * @param fragments the segment's fragments present in this version
 */
public record AnnUnit(
    String id,
    String indexName,
    String segment,
    IndexType type,
    DistanceMetric metric,
    List<Long> fragments,
    int candidateK,
    int minNprobes,
    Integer maxNprobes,
    int ef,
    PrefilterSpec prefilter,
    boolean exactDistances)
    implements SearchUnit {
  public AnnUnit {
    fragments = List.copyOf(fragments);
  }
}
