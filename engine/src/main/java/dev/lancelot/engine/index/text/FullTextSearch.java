package dev.lancelot.engine.index.text;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.internal.index.text.TextQueries;
import dev.lancelot.engine.internal.index.text.TextRows;
import dev.lancelot.engine.internal.index.text.TextSearcher;
import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Full-text search of a dataset through a Lance inverted index (decision D66): the rows of a {@link
 * FullTextQuery}, best first, with {@code _score} (float32, Lance's BM25) and {@code _rowid} when
 * asked. {@link dev.lancelot.engine.distributed.FullTextSearchPlan} splits the same search into
 * tasks and returns the same answer (D71).
 */
public final class FullTextSearch {
  private FullTextSearch() {}

  /**
   * The best rows for {@code query}; the caller closes the result. The filter is bound here, once,
   * against this version's schema.
   */
  public static VectorSchemaRoot search(Dataset dataset, FullTextQuery query) {
    List<TextSearcher.Hit> hits =
        query.isSimpleMatch() ? simple(dataset, query) : tree(dataset, query);
    return TextRows.materialize(
        dataset, hits, TextRows.columns(dataset, query.columns().orElse(null)), query.withRowId());
  }

  private static List<TextSearcher.Hit> tree(Dataset dataset, FullTextQuery query) {
    TextRows.columns(dataset, query.columns().orElse(null)).forEach(dataset::field);
    return TextQueries.search(
        dataset,
        query.query(),
        query.k(),
        query.filter().map(dataset::bindFilter).orElse(null),
        query.prefilter(),
        query.fastSearch());
  }

  private static List<TextSearcher.Hit> simple(Dataset dataset, FullTextQuery query) {
    return TextSearcher.search(
        dataset,
        query.column(),
        query.text(),
        query.operator() == FullTextQuery.Operator.AND,
        query.k(),
        query.filter().map(dataset::bindFilter).orElse(null),
        query.prefilter(),
        query.fastSearch());
  }
}
