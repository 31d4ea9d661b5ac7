package dev.lancelot.spark;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.NamedArgumentExpression;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.unsafe.types.UTF8String;
import scala.collection.Seq;

/**
 * The arguments of lancelot's SQL table functions as Java values by name: positional arguments take
 * the names of {@code positional} in order, named ones ({@code k => 3}) their lower-cased name.
 * Every argument must be a constant.
 */
public final class SqlArguments {
  private SqlArguments() {}

  /** {@code error} turns a message into the exception thrown for bad arguments. */
  public static Map<String, Object> parse(
      Seq<Expression> arguments,
      String[] positional,
      String function,
      String usage,
      Function<String, RuntimeException> error) {
    Map<String, Object> params = new LinkedHashMap<>();
    int position = 0;
    for (Expression e : ScalaCollections.toJava(arguments)) {
      if (e instanceof NamedArgumentExpression named) {
        params.put(
            named.key().toLowerCase(Locale.ROOT),
            value(named.key(), named.value(), function, error));
      } else {
        if (position >= positional.length) {
          throw error.apply(
              "Cannot run "
                  + function
                  + ": too many positional arguments; name them, e.g. "
                  + positional[positional.length - 1]
                  + " => .... Usage: "
                  + usage);
        }
        params.put(positional[position], value(positional[position], e, function, error));
        position++;
      }
    }
    return params;
  }

  private static Object value(
      String name, Expression e, String function, Function<String, RuntimeException> error) {
    if (!e.foldable()) {
      throw error.apply("Cannot run " + function + ": argument " + name + " must be a constant.");
    }
    return toJava(e.eval(null), e.dataType());
  }

  private static Object toJava(Object v, DataType type) {
    if (v instanceof UTF8String s) {
      return s.toString();
    }
    if (v instanceof ArrayData array && type instanceof ArrayType at) {
      List<Object> out = new ArrayList<>();
      Object[] values = array.toObjectArray(at.elementType());
      for (Object o : values) {
        out.add(toJava(o, at.elementType()));
      }
      return out;
    }
    if (v instanceof org.apache.spark.sql.types.Decimal d) {
      return d.toDouble();
    }
    return v;
  }
}
