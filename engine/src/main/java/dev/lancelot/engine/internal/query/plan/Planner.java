package dev.lancelot.engine.internal.query.plan;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.expr.BoundPredicate;
import dev.lancelot.engine.index.IndexCatalog;
import dev.lancelot.engine.index.IndexSegment;
import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.internal.DatasetInternals;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFragment;
import dev.lancelot.engine.internal.index.IndexInternals;
import dev.lancelot.engine.query.InvalidQueryException;
import dev.lancelot.engine.query.VectorQuery;
import dev.lancelot.engine.schema.LanceField;
import dev.lancelot.engine.vector.DistanceMetric;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.roaringbitmap.RoaringBitmap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns a {@link VectorQuery} on one dataset version into a {@link SearchPlan}. Reads only metadata
 * (schema, manifest, index section): every check of SPEC Q1 happens here, before any data is read.
 */
public final class Planner {
  private static final Logger LOG = LoggerFactory.getLogger(Planner.class);

  /** Decides whether a scalar index answers a prefilter exactly over some fragments. */
  public interface ScalarIndexAdvisor {
    /**
     * The index that answers {@code filter} exactly and covers every fragment in {@code needed}.
     */
    Optional<String> indexFor(Dataset dataset, BoundPredicate filter, List<Long> needed);

    /** Why no scalar index can serve the filter, for explain output. */
    String whyNot(Dataset dataset, BoundPredicate filter, List<Long> needed);
  }

  private final ScalarIndexAdvisor scalarIndexes;
  private final java.util.Set<IndexType> searchable;

  /**
   * @param searchable the vector index types the executors can search; an index of another type is
   *     bypassed with flat search (exact results), and explain says so
   */
  public Planner(ScalarIndexAdvisor scalarIndexes, java.util.Set<IndexType> searchable) {
    this.scalarIndexes = scalarIndexes;
    this.searchable = searchable;
  }

  public SearchPlan plan(Dataset dataset, VectorQuery q) {
    LanceField field = vectorField(dataset, q.column());
    int dim = ((ArrowType.FixedSizeList) field.arrowType()).getListSize();
    for (int i = 0; i < q.vectors().length; i++) {
      if (q.vectors()[i].length != dim) {
        throw new InvalidQueryException(
            "Cannot search column \""
                + q.column()
                + "\": "
                + (q.isBatch() ? "query vector " + i : "the query vector")
                + " has "
                + q.vectors()[i].length
                + " dimensions but the column holds "
                + dim
                + "-dimensional vectors.");
      }
    }
    List<String> columns = resultColumns(dataset, q);
    // The one parse and bind of the query's filter; units and the merge carry the bound predicate.
    BoundPredicate filter = q.filter().map(dataset::bindFilter).orElse(null);
    if (q.fastSearch() && !q.useIndex()) {
      throw new InvalidQueryException(
          "Cannot search with fast_search and use_index=false together: fast_search "
              + "searches only the index. Drop one of them.");
    }
    DistanceMetric queryMetric = q.metric().orElse(null);
    checkMetricForType(q, field, queryMetric);
    List<String> notes = new ArrayList<>();
    List<SearchUnit> units = new ArrayList<>();
    String flatReason =
        !q.useIndex() ? "use_index=false" : "no vector index on \"" + q.column() + "\"";
    IndexCatalog catalog = dataset.indexes();
    Optional<String> indexName =
        q.useIndex() ? catalog.vectorIndexOn(field.id()) : Optional.empty();
    if (!q.useIndex()) {
      notes.add("use_index=false: exact search over every fragment");
    }

    if (indexName.isPresent()) {
      List<IndexSegment> segments = catalog.segments(indexName.get());
      IndexSegment first = segments.get(0);
      DistanceMetric indexMetric = segmentMetric(indexName.get(), segments);
      if (!searchable.contains(first.type())) {
        flatReason =
            "index " + indexName.get() + " (" + first.type() + ") cannot be searched by lancelot";
        if (q.fastSearch()) {
          throw new InvalidQueryException(
              "Cannot search column \""
                  + q.column()
                  + "\" with fast_search: "
                  + flatReason
                  + " yet, and fast_search searches only the index. Drop fast_search to search"
                  + " every fragment exactly (flat), or search with Lance.");
        }
        LOG.warn(
            "Vector search on {}: {}; every fragment is searched exactly (flat) instead",
            q.column(),
            flatReason);
        notes.add(flatReason + "; falling back to flat search");
        indexName = Optional.empty();
      } else if (queryMetric != null && queryMetric != indexMetric) {
        flatReason =
            "metric mismatch: the query asks for "
                + queryMetric.lanceName()
                + " but index "
                + indexName.get()
                + " was built with "
                + indexMetric.lanceName();
        LOG.warn("Vector search on {}: {}; falling back to flat search", q.column(), flatReason);
        notes.add(flatReason + "; falling back to flat search");
        indexName = Optional.empty();
      } else {
        return annPlan(
            dataset,
            q,
            filter,
            dim,
            columns,
            notes,
            catalog,
            indexName.get(),
            segments,
            indexMetric);
      }
    }

    if (q.fastSearch()) {
      notes.add(
          "fast_search: no usable vector index on \"" + q.column() + "\", so the result is empty");
      MergeSpec merge =
          merge(q, filter, columns, false, queryMetric == null ? DistanceMetric.L2 : queryMetric);
      return new SearchPlan(
          dataset.location(), dataset.version(), q, q.column(), dim, List.of(), merge, notes, true);
    }
    DistanceMetric metric = queryMetric == null ? DistanceMetric.L2 : queryMetric;
    for (DataFragment f : DatasetInternals.snapshot(dataset).fragments()) {
      units.add(
          new FlatUnit(
              "flat-" + units.size(),
              List.of(f.getId()),
              metric,
              q.k(),
              q.prefilter() ? filter : null,
              flatReason));
    }
    return new SearchPlan(
        dataset.location(),
        dataset.version(),
        q,
        q.column(),
        dim,
        units,
        merge(q, filter, columns, true, metric),
        notes,
        false);
  }

  private SearchPlan annPlan(
      Dataset dataset,
      VectorQuery q,
      BoundPredicate bound,
      int dim,
      List<String> columns,
      List<String> notes,
      IndexCatalog catalog,
      String name,
      List<IndexSegment> segments,
      DistanceMetric metric) {
    IndexType type = segments.get(0).type();
    int candidateK = q.candidateK();
    if (type.isHnsw() && q.effectiveEf() < candidateK) {
      throw new InvalidQueryException(
          "Cannot search index "
              + name
              + " ("
              + type
              + "): ef must be ≥ k × "
              + "refine_factor, but ef="
              + q.effectiveEf()
              + " < "
              + q.k()
              + " × "
              + q.refineFactor().orElse(1)
              + " = "
              + candidateK
              + ". Raise ef or leave it unset (default "
              + (candidateK + candidateK / 2)
              + ").");
    }
    List<DataFragment> unindexed =
        q.fastSearch() ? List.of() : IndexInternals.unindexedFragments(catalog, name);
    boolean exact = q.refineFactor().isPresent() || !unindexed.isEmpty();
    List<SearchUnit> units = new ArrayList<>();
    RoaringBitmap present = new RoaringBitmap();
    DatasetInternals.snapshot(dataset)
        .fragments()
        .forEach(f -> present.add(Math.toIntExact(f.getId())));
    BoundPredicate filter = q.prefilter() ? bound : null;
    for (IndexSegment s : segments) {
      List<Long> frags = new ArrayList<>();
      RoaringBitmap.and(s.fragments(), present)
          .forEach((int f) -> frags.add(Integer.toUnsignedLong(f)));
      if (frags.isEmpty()) {
        continue; // every fragment it covered was deleted
      }
      PrefilterSpec prefilter = null;
      if (filter != null) {
        Optional<String> scalar = scalarIndexes.indexFor(dataset, filter, frags);
        prefilter =
            scalar.isPresent()
                ? new PrefilterSpec(filter, PrefilterSpec.Source.SCALAR_INDEX, scalar.get(), null)
                : new PrefilterSpec(
                    filter,
                    PrefilterSpec.Source.SCAN,
                    null,
                    scalarIndexes.whyNot(dataset, filter, frags));
      }
      units.add(
          new AnnUnit(
              "ann-" + units.size(),
              name,
              s.uuid().toString(),
              type,
              metric,
              frags,
              candidateK,
              q.minimumNprobes(),
              q.maximumNprobes().isPresent() ? q.maximumNprobes().getAsInt() : null,
              q.effectiveEf(),
              prefilter,
              exact));
    }
    for (DataFragment f : unindexed) {
      units.add(
          new FlatUnit(
              "flat-" + units.size(),
              List.of(f.getId()),
              metric,
              q.k(),
              filter,
              "fragment not covered by index " + name));
    }
    if (q.fastSearch() && !IndexInternals.unindexedFragments(catalog, name).isEmpty()) {
      notes.add(
          "fast_search: "
              + IndexInternals.unindexedFragments(catalog, name).size()
              + " unindexed fragment(s) not searched");
    }
    return new SearchPlan(
        dataset.location(),
        dataset.version(),
        q,
        q.column(),
        dim,
        units,
        merge(q, bound, columns, exact, metric),
        notes,
        false);
  }

  /**
   * The one metric of an index's segments. Segments of one index share their model and so their
   * metric; an index whose segments disagree cannot give one ranking, so it is refused.
   */
  private static DistanceMetric segmentMetric(String indexName, List<IndexSegment> segments) {
    DistanceMetric metric = segments.get(0).metric().orElseThrow();
    for (IndexSegment s : segments) {
      DistanceMetric m = s.metric().orElseThrow();
      if (m != metric) {
        throw new InvalidQueryException(
            "Cannot search index "
                + indexName
                + ": its segments were built with "
                + "different metrics (segment "
                + segments.get(0).uuid()
                + ": "
                + metric.lanceName()
                + ", segment "
                + s.uuid()
                + ": "
                + m.lanceName()
                + "), so their distances cannot be ranked together. Rebuild the "
                + "index with one metric.");
      }
    }
    return metric;
  }

  private static MergeSpec merge(
      VectorQuery q,
      BoundPredicate filter,
      List<String> columns,
      boolean exact,
      DistanceMetric metric) {
    return new MergeSpec(
        q.k(),
        q.candidateK(),
        exact,
        metric,
        q.prefilter() ? null : filter,
        columns,
        q.withRowId(),
        q.lowerBound().orElse(null),
        q.upperBound().orElse(null));
  }

  static LanceField vectorField(Dataset dataset, String column) {
    Optional<LanceField> field = dataset.lanceSchema().field(column);
    if (field.isEmpty()) {
      throw new InvalidQueryException(
          "Cannot search column \""
              + column
              + "\" of "
              + dataset.location()
              + ": no such column. Columns: "
              + dataset.lanceSchema().names()
              + ".");
    }
    if (!(field.get().arrowType() instanceof ArrowType.FixedSizeList)) {
      throw new InvalidQueryException(
          "Cannot search column \""
              + column
              + "\": it is "
              + field.get().logicalType()
              + ", not a vector column (fixed_size_list of float32, float16 or uint8).");
    }
    Field item = field.get().toArrow().getChildren().get(0);
    if (!isSupportedElement(item.getType())) {
      throw new InvalidQueryException(
          "Cannot search column \""
              + column
              + "\": its vectors hold "
              + item.getType()
              + "; vector search supports float32, float16 and uint8 elements.");
    }
    return field.get();
  }

  private static boolean isSupportedElement(ArrowType t) {
    if (t instanceof ArrowType.FloatingPoint fp) {
      return fp.getPrecision() != FloatingPointPrecision.DOUBLE;
    }
    return t instanceof ArrowType.Int i && i.getBitWidth() == 8 && !i.getIsSigned();
  }

  private static void checkMetricForType(VectorQuery q, LanceField field, DistanceMetric metric) {
    ArrowType item = field.toArrow().getChildren().get(0).getType();
    boolean bytes = item instanceof ArrowType.Int;
    if (metric == DistanceMetric.HAMMING && !bytes) {
      throw new InvalidQueryException(
          "Cannot search column \""
              + q.column()
              + "\" with the hamming metric: hamming "
              + "compares bits of uint8 vectors, and this column holds "
              + item
              + ".");
    }
  }

  private static List<String> resultColumns(Dataset dataset, VectorQuery q) {
    if (q.columns().isEmpty()) {
      return dataset.lanceSchema().names();
    }
    for (String c : q.columns().get()) {
      if (dataset.lanceSchema().field(c).isEmpty()) {
        throw new InvalidQueryException(
            "Cannot return column \""
                + c
                + "\": no such column in "
                + dataset.location()
                + ". Columns: "
                + dataset.lanceSchema().names()
                + ".");
      }
    }
    return q.columns().get();
  }
}
