package dev.lancelot.engine.index.text;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.internal.index.text.TextSearcher;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Full-text search of a dataset through a Lance inverted index (decision D66): the rows of a {@link
 * FullTextQuery}, best first, with {@code _score} (float32, Lance's BM25) and {@code _rowid} when
 * asked.
 */
public final class FullTextSearch {
  private FullTextSearch() {}

  /**
   * The best rows for {@code query}; the caller closes the result. The filter is bound here, once,
   * against this version's schema.
   */
  public static VectorSchemaRoot search(Dataset dataset, FullTextQuery query) {
    List<TextSearcher.Hit> hits =
        TextSearcher.search(
            dataset,
            query.column(),
            query.text(),
            query.operator() == FullTextQuery.Operator.AND,
            query.k(),
            query.filter().map(dataset::bindFilter).orElse(null),
            query.prefilter(),
            query.fastSearch());
    long[] rowIds = hits.stream().mapToLong(TextSearcher.Hit::rowId).toArray();
    List<String> columns =
        query
            .columns()
            .orElseGet(() -> dataset.lanceSchema().fields().stream().map(f -> f.name()).toList());
    VectorSchemaRoot rows = dataset.takeRows(rowIds, columns);
    List<FieldVector> vectors = new ArrayList<>();
    for (FieldVector v : rows.getFieldVectors()) {
      vectors.add(v);
    }
    var allocator = rows.getFieldVectors().isEmpty() ? null : rows.getVector(0).getAllocator();
    if (allocator == null) {
      allocator = dev.lancelot.engine.internal.DatasetInternals.context(dataset).allocator();
    }
    Float4Vector score = new Float4Vector("_score", allocator);
    score.allocateNew(hits.size());
    for (int i = 0; i < hits.size(); i++) {
      score.set(i, hits.get(i).score());
    }
    score.setValueCount(hits.size());
    vectors.add(score);
    if (query.withRowId()) {
      UInt8Vector ids = new UInt8Vector("_rowid", allocator);
      ids.allocateNew(hits.size());
      for (int i = 0; i < hits.size(); i++) {
        ids.set(i, rowIds[i]);
      }
      ids.setValueCount(hits.size());
      vectors.add(ids);
    }
    VectorSchemaRoot out = new VectorSchemaRoot(vectors);
    out.setRowCount(hits.size());
    return out;
  }
}
