package dev.lancelot.engine.distributed;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.expr.BoundPredicate;
import dev.lancelot.engine.index.text.FullTextQuery;
import dev.lancelot.engine.index.text.TextQuery;
import dev.lancelot.engine.internal.index.text.TextQueries;
import dev.lancelot.engine.internal.index.text.TextRows;
import dev.lancelot.engine.internal.index.text.TextSearcher;
import dev.lancelot.engine.internal.index.text.TextTasks;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A planned full-text search of one dataset version (decision D71, SPEC T5): one {@link
 * FullTextSearchTask} per partition of every segment of the column's inverted index, and the merge
 * that turns their results into the answer. Planning opens the index (cached in the session),
 * tokenizes the query as the index was built, and gathers the corpus-wide BM25 statistics —
 * documents, their total length, and the documents holding each query token, over every partition
 * of every segment — once; every task carries them, so a row scores the same wherever it is
 * searched, and {@link #finish} returns exactly what {@link
 * dev.lancelot.engine.index.text.FullTextSearch#search} returns locally: the same rows, scores and
 * order.
 *
 * <p>A prefilter travels bound in every task (each applies it to its own rows before its top-k); a
 * postfilter is applied by {@link #finish} to the global top-k. The plan is immutable and
 * {@linkplain #toBytes() travels as bytes}.
 */
public final class FullTextSearchPlan implements Serializable {
  private static final long serialVersionUID = 1L;
  private final String location;
  private final long version;
  private final FullTextQuery query;
  private final String index;
  private final List<String> tokens;
  private final TextSearcher.Corpus corpus;
  private final BoundPredicate filter;
  private final List<String> columns;
  private final List<TextTasks.Unit> units;

  /** The match leaves of a query tree (null for a simple match); tasks go leaf by leaf. */
  private final List<TextTasks.Leaf> leaves;

  private FullTextSearchPlan(
      Dataset dataset,
      FullTextQuery query,
      TextSearcher.Prepared prepared,
      List<TextTasks.Leaf> leaves,
      BoundPredicate filter) {
    this.location = dataset.location();
    this.version = dataset.version();
    this.query = query;
    this.index = prepared.index();
    this.corpus = prepared.corpus();
    this.filter = filter;
    this.columns = List.copyOf(TextRows.columns(dataset, query.columns().orElse(null)));
    this.leaves = leaves == null ? null : List.copyOf(leaves);
    if (leaves == null) {
      this.tokens = prepared.tokens();
      this.units = TextTasks.units(prepared);
    } else {
      Set<String> all = new LinkedHashSet<>();
      List<TextTasks.Unit> allUnits = new ArrayList<>();
      for (TextTasks.Leaf leaf : leaves) {
        all.addAll(leaf.tokens());
        allUnits.addAll(leaf.units());
      }
      this.tokens = List.copyOf(all);
      this.units = List.copyOf(allUnits);
    }
  }

  /**
   * Plans {@code query} on {@code dataset}'s version; every check of the local search (SPEC T4, T3)
   * is made here, on the coordinator, and the filter is bound here, once.
   *
   * @throws InvalidInputException for a query the dataset cannot answer
   */
  public static FullTextSearchPlan plan(Dataset dataset, FullTextQuery query) {
    BoundPredicate filter = query.filter().map(dataset::bindFilter).orElse(null);
    TextRows.columns(dataset, query.columns().orElse(null)).forEach(dataset::field);
    if (query.isSimpleMatch()) {
      TextSearcher.Prepared prepared =
          TextSearcher.prepare(dataset, query.column(), query.text(), query.fastSearch());
      return new FullTextSearchPlan(dataset, query, prepared, null, filter);
    }
    List<TextTasks.Leaf> leaves = new ArrayList<>();
    TextSearcher.Prepared first = null;
    for (TextQuery.Match m : TextQueries.leaves(query.query())) {
      TextSearcher.Prepared p =
          TextSearcher.prepare(dataset, m.column(), m.text(), query.fastSearch());
      first = first == null ? p : first;
      leaves.add(
          new TextTasks.Leaf(
              p.index(),
              p.tokens(),
              p.corpus(),
              m.operator() == FullTextQuery.Operator.AND,
              m.boost(),
              TextTasks.units(p)));
    }
    return new FullTextSearchPlan(dataset, query, first, leaves, filter);
  }

  /** The dataset location the plan searches. */
  public String location() {
    return location;
  }

  /** The dataset version the plan searches; tasks must run on the same version. */
  public long version() {
    return version;
  }

  /** The query the plan was made for. */
  public FullTextQuery query() {
    return query;
  }

  /** The name of the inverted index searched. */
  public String indexName() {
    return index;
  }

  /** The query's distinct tokens, as the index's tokenizer makes them. */
  public List<String> tokens() {
    return tokens;
  }

  /**
   * Documents of the index (every partition of every segment), as BM25 counts them; for a query
   * tree, of the index of its first match leaf.
   */
  public long documents() {
    return corpus.docs();
  }

  /**
   * The documents holding {@code token}, over every partition of every segment (0 if none); for a
   * query tree, in the index of its first match leaf.
   */
  public long documentFrequency(String token) {
    return corpus.df().getOrDefault(token, 0L);
  }

  /** The tasks, in plan order; each carries the plan's statistics and its own partition only. */
  public List<FullTextSearchTask> tasks() {
    if (leaves != null) {
      List<FullTextSearchTask> out = new ArrayList<>(units.size());
      for (TextTasks.Leaf leaf : leaves) {
        for (TextTasks.Unit unit : leaf.units()) {
          out.add(
              new FullTextSearchTask(
                  location,
                  version,
                  leaf.index(),
                  unit,
                  leaf.tokens(),
                  leaf.corpus(),
                  leaf.and(),
                  Integer.MAX_VALUE,
                  query.prefilter() ? filter : null,
                  out.size()));
        }
      }
      return out;
    }
    List<FullTextSearchTask> out = new ArrayList<>(units.size());
    for (int i = 0; i < units.size(); i++) {
      out.add(
          new FullTextSearchTask(
              location,
              version,
              index,
              units.get(i),
              tokens,
              corpus,
              query.operator() == FullTextQuery.Operator.AND,
              query.k(),
              query.prefilter() ? filter : null,
              i));
    }
    return out;
  }

  /** Number of tasks ({@code tasks().size()}). */
  public int taskCount() {
    return units.size();
  }

  /** The schema of the answer: the result columns, {@code _score}, {@code _rowid} when asked. */
  public Schema resultSchema(Dataset dataset) {
    return TextRows.schema(dataset, columns, query.withRowId());
  }

  /**
   * Merges the results of every task into the answer (the coordinator's side): the global top
   * {@code k} by score then row id, the postfilter, then the result columns of those rows read from
   * {@code dataset} (the plan's version). The root belongs to the caller.
   *
   * @param results one per task, in any order
   * @throws InvalidInputException if a task's result is missing, repeated or not of this plan
   */
  public VectorSchemaRoot finish(Dataset dataset, List<FullTextTaskResult> results) {
    if (dataset.version() != version || !strip(dataset.location()).equals(strip(location))) {
      throw new IllegalStateException(
          "Full-text search planned on "
              + location
              + "@v"
              + version
              + " finished on "
              + dataset.location()
              + "@v"
              + dataset.version());
    }
    BitSet seen = new BitSet(units.size());
    List<TextSearcher.Hit> hits = new ArrayList<>();
    int[] leafOf = leafOfTask();
    List<List<TextSearcher.Hit>> leafHits = new ArrayList<>();
    for (int i = 0; leaves != null && i < leaves.size(); i++) {
      leafHits.add(new ArrayList<>());
    }
    for (FullTextTaskResult r : results) {
      if (r.task() < 0 || r.task() >= units.size() || seen.get(r.task())) {
        throw new InvalidInputException(
            "Cannot merge the result of task "
                + r.task()
                + ": the plan has "
                + units.size()
                + " tasks and each result is merged once");
      }
      seen.set(r.task());
      (leaves == null ? hits : leafHits.get(leafOf[r.task()])).addAll(r.hits());
    }
    if (seen.cardinality() != units.size()) {
      List<Integer> missing = new ArrayList<>();
      for (int i = seen.nextClearBit(0); i < units.size(); i = seen.nextClearBit(i + 1)) {
        missing.add(i);
      }
      throw new InvalidInputException(
          "Cannot finish the full-text search: the results of tasks " + missing + " are missing");
    }
    if (leaves != null) {
      List<Map<Long, Float>> scores = new ArrayList<>();
      for (int i = 0; i < leaves.size(); i++) {
        scores.add(TextQueries.boosted(leafHits.get(i), leaves.get(i).boost()));
      }
      TextQueries.combine(query.query(), scores, query.k())
          .forEach((row, score) -> hits.add(new TextSearcher.Hit(row, score)));
    }
    List<TextSearcher.Hit> top =
        TextSearcher.finish(dataset, hits, query.k(), query.prefilter() ? null : filter);
    return TextRows.materialize(dataset, top, columns, query.withRowId());
  }

  /** The leaf of each task (empty for a simple match). */
  private int[] leafOfTask() {
    int[] out = new int[leaves == null ? 0 : units.size()];
    int t = 0;
    for (int i = 0; leaves != null && i < leaves.size(); i++) {
      for (int u = 0; u < leaves.get(i).units().size(); u++) {
        out[t++] = i;
      }
    }
    return out;
  }

  /** The plan as text: the query, its tokens and statistics, and each task's partition. */
  public String explain() {
    StringBuilder sb =
        new StringBuilder("FullTextSearch[")
            .append(query)
            .append(", index=")
            .append(index)
            .append(", tokens=")
            .append(tokens)
            .append(", documents=")
            .append(corpus.docs())
            .append(", merge=top ")
            .append(query.k())
            .append(filter == null ? "" : query.prefilter() ? ", prefilter" : ", postfilter")
            .append("]\n");
    for (int i = 0; i < units.size(); i++) {
      TextTasks.Unit u = units.get(i);
      sb.append("  fts-")
          .append(i)
          .append(leaves == null ? ": segment " : ": leaf " + leafOfTask()[i] + ", segment ")
          .append(u.segment())
          .append(" partition ")
          .append(u.partition())
          .append(" (")
          .append(u.documents())
          .append(" documents, fragments ")
          .append(u.fragments())
          .append(")\n");
    }
    return sb.toString();
  }

  private static String strip(String location) {
    return location.replaceAll("/+$", "");
  }

  /** The plan as bytes ({@link #fromBytes} reads them back). */
  public byte[] toBytes() {
    return Wire.serialize(Wire.FULL_TEXT_PLAN, this);
  }

  /**
   * Reads a plan written by {@link #toBytes}.
   *
   * @throws InvalidInputException if the bytes are not a full-text search plan
   */
  public static FullTextSearchPlan fromBytes(byte[] bytes) {
    return Wire.deserialize(
        Wire.FULL_TEXT_PLAN, bytes, FullTextSearchPlan.class, "a full-text search plan");
  }

  @Override
  public String toString() {
    return "FullTextSearchPlan[" + location + "@v" + version + ", tasks=" + units.size() + "]";
  }
}
