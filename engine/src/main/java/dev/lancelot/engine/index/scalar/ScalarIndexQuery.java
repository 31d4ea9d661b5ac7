package dev.lancelot.engine.index.scalar;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.expr.BoundPredicate;
import dev.lancelot.engine.expr.Predicate;
import dev.lancelot.engine.index.IndexCatalog;
import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.internal.DatasetInternals;
import dev.lancelot.engine.internal.expr.ExprInternals;
import dev.lancelot.engine.internal.expr.eval.Binder;
import dev.lancelot.engine.internal.expr.eval.BoundColumn;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFragment;
import dev.lancelot.engine.internal.index.scalar.btree.FragmentRows;
import dev.lancelot.engine.internal.index.scalar.query.IndexEvaluator;
import dev.lancelot.engine.internal.index.scalar.query.IndexExpr;
import dev.lancelot.engine.internal.index.scalar.query.KernelTranslator;
import dev.lancelot.engine.internal.table.RowIds;
import dev.lancelot.engine.schema.LanceField;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.roaringbitmap.RoaringBitmap;

/**
 * Answers a filter from BTree indexes when they can do so exactly (SPEC Q7): the filter, after
 * binding, must be ANDs, ORs and NOTs of comparisons, {@code BETWEEN}, {@code IN} and {@code IS
 * [NOT] NULL} on columns that each have a BTree index. The answer then equals what a scan with the
 * same filter selects (same NULL logic, coercions and orderings, see docs/filters.md) on every
 * {@linkplain #coveredFragments() covered fragment}: those that every index used covers.
 *
 * <pre>{@code
 * ScalarIndexQuery q = ScalarIndexQuery.plan(dataset, "tenant_id IN (3, 5) AND name >= 'user-1'");
 * if (q.isExact() && q.covers(fragmentsTheSearchNeeds)) {
 *   Roaring64NavigableMap mask = q.evaluate().withoutDeletedRows(dataset).rowAddresses();
 * } else {
 *   log(q.explain());   // says why not, e.g. "column name has no BTree index"
 * }
 * }</pre>
 *
 * <p>Planning reads only the manifest; {@link #evaluate()} reads page_lookup.lance of each segment
 * and the page_data.lance pages that can match. Immutable and thread-safe.
 */
public final class ScalarIndexQuery {
  /**
   * Lance's index of deferred row-address remaps after compaction; index addresses may be stale.
   */
  static final String FRAG_REUSE_INDEX = "__lance_frag_reuse";

  private final Dataset dataset;
  private final Predicate filter;
  private final IndexExpr expr;
  private final String reason;
  private final List<BoundColumn> columns;
  private final Map<Integer, IndexEvaluator.Binding> bindings;
  private final RoaringBitmap covered;
  private final boolean exact;

  private ScalarIndexQuery(
      Dataset dataset,
      Predicate filter,
      IndexExpr expr,
      String reason,
      List<BoundColumn> columns,
      Map<Integer, IndexEvaluator.Binding> bindings,
      RoaringBitmap covered) {
    this.dataset = dataset;
    this.filter = filter;
    this.expr = expr;
    this.reason = reason;
    this.columns = columns;
    this.bindings = bindings;
    this.covered = covered;
    this.exact = expr != null && reason == null;
  }

  /** Parses and binds {@code filterSql} to {@code dataset}'s version, then plans it. */
  public static ScalarIndexQuery plan(Dataset dataset, String filterSql) {
    return plan(dataset, dataset.bindFilter(filterSql));
  }

  /**
   * Decides whether the indexes of {@code dataset}'s version answer {@code filter} exactly.
   *
   * @throws dev.lancelot.engine.expr.FilterBindException if the filter does not fit the schema (as
   *     a scan with it would)
   */
  public static ScalarIndexQuery plan(Dataset dataset, Predicate filter) {
    return plan(dataset, BoundPredicate.bind(filter, dataset.schema()));
  }

  /**
   * Decides whether the indexes of {@code dataset}'s version answer an already bound filter
   * exactly.
   *
   * @throws IllegalArgumentException if {@code filter} was bound to other fields than this version
   *     has
   */
  public static ScalarIndexQuery plan(Dataset dataset, BoundPredicate boundFilter) {
    if (!boundFilter.fits(dataset.schema())) {
      throw new IllegalArgumentException(
          "Cannot plan filter \""
              + boundFilter.sql()
              + "\" on "
              + dataset.location()
              + " version "
              + dataset.version()
              + ": it was bound to the fields "
              + boundFilter.referencedSchema()
              + ", which this version does not have");
    }
    Predicate filter = boundFilter.predicate();
    Binder.Result bound = ExprInternals.binding(boundFilter);
    List<BoundColumn> columns = bound.columns();
    KernelTranslator.Result t = KernelTranslator.translate(bound.kernel(), columns);
    if (!t.translated()) {
      return notExact(dataset, filter, columns, t.reason());
    }
    IndexCatalog catalog = dataset.indexes();
    if (catalog.names().contains(FRAG_REUSE_INDEX)) {
      return notExact(
          dataset,
          filter,
          columns,
          "the dataset has a "
              + FRAG_REUSE_INDEX
              + " index (a compaction "
              + "deferred remapping index row addresses), so BTree answers may be stale");
    }
    if (columns.isEmpty()) {
      return notExact(dataset, filter, columns, "the filter reads no column");
    }
    Map<Integer, IndexEvaluator.Binding> bindings = new LinkedHashMap<>();
    RoaringBitmap covered = null;
    for (BoundColumn c : columns) {
      LanceField field = dataset.field(c.topLevelName());
      Optional<String> index = btreeOn(catalog, field.id());
      if (index.isEmpty()) {
        return notExact(
            dataset, filter, columns, "column " + c.displayName() + " has no BTree index");
      }
      bindings.put(
          c.slot(), new IndexEvaluator.Binding(index.get(), catalog.segments(index.get()), field));
      RoaringBitmap fragments = catalog.indexedFragments(index.get());
      covered = covered == null ? fragments : RoaringBitmap.and(covered, fragments);
    }
    return new ScalarIndexQuery(dataset, filter, t.expr(), null, columns, bindings, covered);
  }

  /**
   * Plans the parts of an already bound filter that indexes answer, for a scan that applies the
   * whole filter again to the rows the answer selects. Each part no index answers (an unindexed
   * column, {@code LIKE}, arithmetic...) is taken as TRUE, so the answer is a superset of the
   * filter's rows on the covered fragments; {@link #isExact()} when no part was left out, {@link
   * #reason()} names the parts left out. When the indexes answer no part, nothing can be {@link
   * #evaluate() evaluated}.
   *
   * @throws IllegalArgumentException if {@code filter} was bound to other fields than this version
   *     has
   */
  public static ScalarIndexQuery planSuperset(Dataset dataset, BoundPredicate boundFilter) {
    ScalarIndexQuery exactPlan = plan(dataset, boundFilter);
    if (exactPlan.isExact() || exactPlan.columns.isEmpty()) {
      return exactPlan;
    }
    IndexCatalog catalog = dataset.indexes();
    if (catalog.names().contains(FRAG_REUSE_INDEX)) {
      return exactPlan;
    }
    List<BoundColumn> columns = exactPlan.columns;
    // Zone indexes hold row addresses; with stable row ids they are not used (D59).
    boolean zonesUsable = !DatasetInternals.rowIds(dataset).stable();
    Map<Integer, Optional<String>> indexOf = new LinkedHashMap<>();
    Map<Integer, List<String>> zoneIndexes = new LinkedHashMap<>();
    for (BoundColumn c : columns) {
      LanceField field = dataset.field(c.topLevelName());
      Optional<String> exactIndex = btreeOn(catalog, field.id());
      indexOf.put(c.slot(), exactIndex);
      zoneIndexes.put(
          c.slot(),
          exactIndex.isEmpty() && zonesUsable ? ZoneIndexes.on(catalog, field) : List.of());
    }
    KernelTranslator.Result t =
        KernelTranslator.translateSuperset(
            ExprInternals.binding(boundFilter).kernel(),
            columns,
            slot -> indexOf.get(slot).isPresent() || !zoneIndexes.get(slot).isEmpty());
    ZoneIndexes.Choice zones =
        ZoneIndexes.choose(t.expr(), zoneIndexes, catalog, slot -> columns.get(slot).displayName());
    zones.chosen().forEach((slot, name) -> indexOf.put(slot, Optional.of(name)));
    IndexExpr expr = zones.expr();
    List<String> reasons = new ArrayList<>();
    if (t.reason() != null) {
      reasons.add(t.reason());
    }
    reasons.addAll(zones.reasons());
    String reason = reasons.isEmpty() ? null : String.join("; ", reasons);
    if (expr.leaves().isEmpty()) {
      return notExact(
          dataset,
          exactPlan.filter,
          columns,
          "no part of the filter is answered by an index (" + reason + ")");
    }
    Map<Integer, IndexEvaluator.Binding> bindings = new LinkedHashMap<>();
    RoaringBitmap covered = null;
    for (IndexExpr.Leaf leaf : expr.leaves()) {
      if (bindings.containsKey(leaf.slot())) {
        continue;
      }
      String index = indexOf.get(leaf.slot()).orElseThrow();
      LanceField field = dataset.field(columns.get(leaf.slot()).topLevelName());
      bindings.put(leaf.slot(), new IndexEvaluator.Binding(index, catalog.segments(index), field));
      RoaringBitmap fragments = catalog.indexedFragments(index);
      covered = covered == null ? fragments : RoaringBitmap.and(covered, fragments);
    }
    return new ScalarIndexQuery(
        dataset, exactPlan.filter, expr, reason, columns, bindings, covered);
  }

  /**
   * The BTree, bitmap or label-list index on a field covering the most fragments (then by name), if
   * any: each answers exactly the conditions the translation gives a column of its kind (label
   * lists, on list columns, only list containment tests).
   */
  static Optional<String> btreeOn(IndexCatalog catalog, int fieldId) {
    return catalog.indexesOn(fieldId).stream()
        .filter(
            name -> {
              List<dev.lancelot.engine.index.IndexSegment> segments = catalog.segments(name);
              IndexType type = segments.isEmpty() ? null : segments.get(0).type();
              return (type == IndexType.BTREE
                      || type == IndexType.BITMAP
                      || type == IndexType.LABEL_LIST)
                  && segments.stream()
                      .allMatch(s -> s.type() == type && s.fieldIds().equals(List.of(fieldId)));
            })
        .min(
            Comparator.comparingInt(
                    (String name) -> -catalog.indexedFragments(name).getCardinality())
                .thenComparing(Comparator.naturalOrder()));
  }

  private static ScalarIndexQuery notExact(
      Dataset dataset, Predicate filter, List<BoundColumn> columns, String reason) {
    return new ScalarIndexQuery(
        dataset, filter, null, reason, columns, Map.of(), new RoaringBitmap());
  }

  /** Whether the indexes answer the filter exactly (on the covered fragments). */
  public boolean isExact() {
    return exact;
  }

  /**
   * Whether {@link #evaluate()} gives an answer: exactly, or (from {@link #planSuperset}) a
   * superset of the filter's rows.
   */
  public boolean isAnswered() {
    return expr != null;
  }

  /** Why the indexes cannot answer the filter exactly; empty when they can. */
  public Optional<String> reason() {
    return Optional.ofNullable(reason);
  }

  public Predicate filter() {
    return filter;
  }

  /** Names of the indexes the answer uses, in the order of the filter's columns. */
  public List<String> indexes() {
    LinkedHashSet<String> names = new LinkedHashSet<>();
    bindings.values().forEach(b -> names.add(b.indexName()));
    return List.copyOf(names);
  }

  /** Fragments of the version every index used covers (empty when not exact). */
  public RoaringBitmap coveredFragments() {
    return covered.clone();
  }

  /** Fragments of the version the answer does not cover (all of them when not exact), by id. */
  public List<Long> uncoveredFragments() {
    List<Long> out = new ArrayList<>();
    for (DataFragment f : DatasetInternals.snapshot(dataset).fragments()) {
      if (!covered.contains((int) f.getId())) {
        out.add(f.getId());
      }
    }
    return out;
  }

  /** Whether the answer is exact and covers all of {@code fragments}. */
  public boolean covers(RoaringBitmap fragments) {
    return isExact() && RoaringBitmap.andNot(fragments, covered).isEmpty();
  }

  /**
   * One line for explain output, e.g. {@code ScalarIndexQuery: filter=x = 1, indexes=[x_idx], ...}.
   */
  public String explain() {
    StringBuilder sb = new StringBuilder("ScalarIndexQuery: filter=").append(filter.toSql());
    if (!isAnswered()) {
      return sb.append(", exact=false, reason=").append(reason).toString();
    }
    sb.append(
        isExact() ? ", exact=true" : ", exact=false (superset, rechecked), unanswered=" + reason);
    sb.append(", indexes=").append(indexes());
    sb.append(", lookup=").append(expr.describe(slot -> columns.get(slot).displayName()));
    sb.append(", fragments=").append(covered);
    List<Long> uncovered = uncoveredFragments();
    if (!uncovered.isEmpty()) {
      sb.append(", uncovered=").append(uncovered);
    }
    return sb.toString();
  }

  /**
   * Reads the indexes and returns the selected rows of the covered fragments. Rows deleted after an
   * index was built may be included; see {@link ScalarIndexResult#withoutDeletedRows}.
   *
   * @throws IllegalStateException when the query has no answer ({@link #isAnswered()})
   * @throws ScalarIndexException naming the file, when an index file is corrupt
   */
  public ScalarIndexResult evaluate() {
    if (!isAnswered()) {
      throw new IllegalStateException(
          "Cannot evaluate " + filter.toSql() + " with scalar indexes: " + reason);
    }
    IndexEvaluator.Outcome o =
        IndexEvaluator.evaluate(
            expr,
            bindings,
            DatasetInternals.context(dataset),
            DatasetInternals.snapshot(dataset).bases());
    FragmentRows rows = o.rows();
    RowIds rowIds = DatasetInternals.rowIds(dataset);
    if (rowIds.stable()) {
      // The index stores stable row ids: each selects its live row, wherever that row is now.
      // The sets combined above are of ids; translating afterwards gives the same rows.
      rows = new FragmentRows();
      for (var e : o.rows().byFragment().entrySet()) {
        long high = Integer.toUnsignedLong(e.getKey()) << 32;
        for (int offset : e.getValue()) {
          long address = rowIds.addressOf(high | Integer.toUnsignedLong(offset));
          if (address != -1) {
            rows.add(address);
          }
        }
      }
    }
    rows.retainFragments(covered);
    return new ScalarIndexResult(rows, covered, o.pagesRead(), o.pagesTotal(), o.segmentsRead());
  }

  @Override
  public String toString() {
    return explain();
  }
}
