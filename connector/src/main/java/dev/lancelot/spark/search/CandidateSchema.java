package dev.lancelot.spark.search;

import dev.lancelot.engine.schema.LanceSchema;
import dev.lancelot.spark.SparkTypes;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Rows a unit partition emits: its local candidates for every query, with what the driver-side
 * merge needs, followed by the result columns taken for those candidates.
 *
 * <pre>
 * query_index int      which query vector
 * _kind       int      0 = ANN candidate, 1 = flat (exact) candidate
 * _rowaddr    long     row address
 * _approx     float    distance the index scored (exact for flat)
 * _exact      float    exact distance (NaN when not computed)
 * _passes     boolean  the postfilter holds (true without a postfilter)
 * ...         result columns
 * </pre>
 */
final class CandidateSchema {
  static final String QUERY_INDEX = "query_index";
  static final String KIND = "_kind";
  static final String ROWADDR = "_rowaddr";
  static final String APPROX = "_approx";
  static final String EXACT = "_exact";
  static final String PASSES = "_passes";
  static final int FIXED = 6;

  private CandidateSchema() {}

  static StructType of(LanceSchema dataset, List<String> columns) {
    List<StructField> fields = new ArrayList<>();
    fields.add(new StructField(QUERY_INDEX, DataTypes.IntegerType, false, Metadata.empty()));
    fields.add(new StructField(KIND, DataTypes.IntegerType, false, Metadata.empty()));
    fields.add(new StructField(ROWADDR, DataTypes.LongType, false, Metadata.empty()));
    fields.add(new StructField(APPROX, DataTypes.FloatType, false, Metadata.empty()));
    fields.add(new StructField(EXACT, DataTypes.FloatType, false, Metadata.empty()));
    fields.add(new StructField(PASSES, DataTypes.BooleanType, false, Metadata.empty()));
    for (String c : columns) {
      fields.add(SparkTypes.toSpark(dataset.field(c).orElseThrow().toArrow()));
    }
    return new StructType(fields.toArray(new StructField[0]));
  }
}
