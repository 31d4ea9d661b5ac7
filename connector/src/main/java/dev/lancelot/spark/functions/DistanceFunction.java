package dev.lancelot.spark.functions;

import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.vector.DistanceMetric;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.connector.catalog.functions.BoundFunction;
import org.apache.spark.sql.connector.catalog.functions.ScalarFunction;
import org.apache.spark.sql.connector.catalog.functions.UnboundFunction;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * {@code lance.system.l2_distance(a, b)}, {@code cosine_distance}, {@code dot_distance}: the
 * distance between two vectors ({@code ARRAY<FLOAT>} or {@code ARRAY<DOUBLE>}, the same length)
 * exactly as Lance and {@code lance_vector_search} report it as {@code _distance} — squared
 * Euclidean for l2, {@code 1 - cos} for cosine, {@code 1 - a·b} for dot — computed in float32 by
 * the engine's kernels. NULL when either vector is NULL or holds a NULL element; vectors of
 * different lengths fail the query, naming both lengths.
 */
public final class DistanceFunction implements UnboundFunction {
  /** The functions, by name. */
  public static final List<String> NAMES =
      List.of("cosine_distance", "dot_distance", "l2_distance");

  private final DistanceMetric metric;

  private DistanceFunction(DistanceMetric metric) {
    this.metric = metric;
  }

  /** The function of that name (case-insensitive), if it is one of {@link #NAMES}. */
  public static Optional<DistanceFunction> named(String name) {
    return switch (name.toLowerCase(Locale.ROOT)) {
      case "l2_distance" -> Optional.of(new DistanceFunction(DistanceMetric.L2));
      case "cosine_distance" -> Optional.of(new DistanceFunction(DistanceMetric.COSINE));
      case "dot_distance" -> Optional.of(new DistanceFunction(DistanceMetric.DOT));
      default -> Optional.empty();
    };
  }

  /**
   * The metric of {@code function} when it is one of these functions bound to its inputs (what
   * Spark's plan holds where a query calls {@code lance.system.l2_distance} and the others).
   */
  public static Optional<DistanceMetric> metricOf(BoundFunction function) {
    return function instanceof Bound b ? Optional.of(b.metric) : Optional.empty();
  }

  @Override
  public String name() {
    return metric.lanceName() + "_distance";
  }

  @Override
  public String description() {
    return name()
        + "(a ARRAY<FLOAT>, b ARRAY<FLOAT>) -> FLOAT: Lance's "
        + metric.lanceName()
        + " distance, as lance_vector_search reports it in _distance";
  }

  @Override
  public BoundFunction bind(StructType inputType) {
    StructField[] fields = inputType.fields();
    if (fields.length != 2) {
      throw new InvalidInputException(
          "Cannot call lance.system."
              + name()
              + " with "
              + fields.length
              + " argument(s): it takes two vectors, e.g. "
              + name()
              + "(vector, array(0.1, 0.2, ...)).");
    }
    for (StructField f : fields) {
      if (!isVector(f.dataType()) && f.dataType() != DataTypes.NullType) {
        throw new InvalidInputException(
            "Cannot call lance.system."
                + name()
                + " on "
                + f.dataType().sql()
                + ": it takes ARRAY<FLOAT> or ARRAY<DOUBLE> vectors.");
      }
    }
    return new Bound(metric, name(), fields[0].dataType(), fields[1].dataType());
  }

  private static boolean isVector(DataType t) {
    return t instanceof ArrayType a
        && (a.elementType() == DataTypes.FloatType || a.elementType() == DataTypes.DoubleType);
  }

  /** The function bound to its two input types. */
  static final class Bound implements ScalarFunction<Float> {
    private final DistanceMetric metric;
    private final String name;
    private final DataType left;
    private final DataType right;

    Bound(DistanceMetric metric, String name, DataType left, DataType right) {
      this.metric = metric;
      this.name = name;
      this.left = left;
      this.right = right;
    }

    @Override
    public DataType[] inputTypes() {
      return new DataType[] {left, right};
    }

    @Override
    public DataType resultType() {
      return DataTypes.FloatType;
    }

    @Override
    public String name() {
      return name;
    }

    @Override
    public String canonicalName() {
      return "lance.system." + name;
    }

    @Override
    public Float produceResult(InternalRow input) {
      if (input.isNullAt(0) || input.isNullAt(1)) {
        return null;
      }
      float[] a = floats(input.getArray(0), left);
      float[] b = floats(input.getArray(1), right);
      if (a == null || b == null) {
        return null;
      }
      if (a.length != b.length) {
        throw new InvalidInputException(
            "Cannot compute lance.system."
                + name
                + ": the vectors have "
                + a.length
                + " and "
                + b.length
                + " elements; they must have the same length.");
      }
      return metric.distance(a, b);
    }

    /** The elements as float32; null when one is NULL. */
    private static float[] floats(ArrayData data, DataType type) {
      int n = data.numElements();
      float[] out = new float[n];
      boolean isFloat = ((ArrayType) type).elementType() == DataTypes.FloatType;
      for (int i = 0; i < n; i++) {
        if (data.isNullAt(i)) {
          return null;
        }
        out[i] = isFloat ? data.getFloat(i) : (float) data.getDouble(i);
      }
      return out;
    }
  }
}
