package dev.lancelot.engine.internal.index.text;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.internal.DatasetInternals;
import dev.lancelot.engine.internal.scan.FragmentScan;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The rows of a full-text search's answer (SPEC T1): the result columns of the hits, best first,
 * then {@code _score} (float32) and {@code _rowid} (uint64) when asked. Shared by the local search
 * and the distributed one's merge, so both return the same batch.
 */
public final class TextRows {
  /** The score column. */
  public static final Field SCORE =
      new Field(
          "_score",
          FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)),
          null);

  private TextRows() {}

  /** The answer's schema: {@code columns} of {@code dataset}, {@code _score}, {@code _rowid}. */
  public static Schema schema(Dataset dataset, List<String> columns, boolean withRowId) {
    List<Field> fields = new ArrayList<>();
    for (String c : columns) {
      fields.add(dataset.field(c).toArrow());
    }
    fields.add(SCORE);
    if (withRowId) {
      fields.add(FragmentScan.ROW_ID_FIELD);
    }
    return new Schema(fields);
  }

  /** {@code columns} (every column when null) of every column of the dataset, in schema order. */
  public static List<String> columns(Dataset dataset, List<String> columns) {
    return columns != null
        ? columns
        : dataset.lanceSchema().fields().stream().map(f -> f.name()).toList();
  }

  /** The answer's rows for {@code hits}; the caller closes the result. */
  public static VectorSchemaRoot materialize(
      Dataset dataset, List<TextSearcher.Hit> hits, List<String> columns, boolean withRowId) {
    long[] rowIds = hits.stream().mapToLong(TextSearcher.Hit::rowId).toArray();
    VectorSchemaRoot rows = dataset.takeRows(rowIds, columns);
    List<FieldVector> vectors = new ArrayList<>(rows.getFieldVectors());
    BufferAllocator allocator =
        vectors.isEmpty()
            ? DatasetInternals.context(dataset).allocator()
            : vectors.get(0).getAllocator();
    Float4Vector score = new Float4Vector(SCORE, allocator);
    score.allocateNew(hits.size());
    for (int i = 0; i < hits.size(); i++) {
      score.set(i, hits.get(i).score());
    }
    score.setValueCount(hits.size());
    vectors.add(score);
    if (withRowId) {
      UInt8Vector ids = new UInt8Vector(FragmentScan.ROW_ID_FIELD, allocator);
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
