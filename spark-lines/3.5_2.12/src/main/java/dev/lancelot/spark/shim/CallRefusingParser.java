package dev.lancelot.spark.shim;

import dev.lancelot.spark.ScalaCollections;
import java.util.regex.Pattern;
import org.apache.spark.sql.catalyst.FunctionIdentifier;
import org.apache.spark.sql.catalyst.TableIdentifier;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.parser.ParseException;
import org.apache.spark.sql.catalyst.parser.ParserInterface;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructType;

/**
 * Spark 3.5's parser, except that a statement starting with {@code CALL} that it cannot parse fails
 * with an error naming Spark 3.5 and the DataFrame entry points instead of a syntax error (D53).
 * Spark 3.5 has no stored procedures, on which lancelot's {@code CALL lance.system.…} rests. A
 * parser injected before this one that parses {@code CALL} itself (another connector's extension)
 * keeps working: this one only changes the error of a statement the others refused.
 */
public final class CallRefusingParser implements ParserInterface {
  /** A statement whose first keyword, after blanks and comments, is {@code CALL}. */
  private static final Pattern CALL =
      Pattern.compile(
          "(\\s|--[^\\n]*(\\n|$)|/\\*.*?\\*/)*CALL\\s.*",
          Pattern.CASE_INSENSITIVE | Pattern.DOTALL);

  /** What the error says; public for the tests that check it. */
  public static final String MESSAGE =
      "CALL is not available on Spark 3.5: Spark 3.5 has no stored procedures (they came with"
          + " Spark 4.0), on which lancelot's procedures (CALL lance.system.create_index and the"
          + " others) rest. On Spark 3.5 use their DataFrame and engine entry points:"
          + " dev.lancelot.spark.index.LanceIndexBuilder.createIndex and .optimize (create_index,"
          + " optimize_index), dev.lancelot.spark.search.LanceVectorSearch.recall (recall),"
          + " LanceIndexBuilder.createScalarIndex (create_scalar_index), and"
          + " dev.lancelot.engine.Dataset's compact, cleanup, addColumns, tags and restore"
          + " (compact, cleanup, add_columns, the tag procedures, restore); or run Spark 4.0 or"
          + " later"
          + " (docs/deploying.md).";

  private final ParserInterface delegate;

  CallRefusingParser(ParserInterface delegate) {
    this.delegate = delegate;
  }

  @Override
  public LogicalPlan parsePlan(String sqlText) throws ParseException {
    try {
      return delegate.parsePlan(sqlText);
    } catch (ParseException e) {
      if (CALL.matcher(sqlText).matches()) {
        throw new UnsupportedOperationException(MESSAGE, e);
      }
      throw e;
    }
  }

  @Override
  public Expression parseExpression(String sqlText) throws ParseException {
    return delegate.parseExpression(sqlText);
  }

  @Override
  public TableIdentifier parseTableIdentifier(String sqlText) throws ParseException {
    return delegate.parseTableIdentifier(sqlText);
  }

  @Override
  public FunctionIdentifier parseFunctionIdentifier(String sqlText) throws ParseException {
    return delegate.parseFunctionIdentifier(sqlText);
  }

  @Override
  public scala.collection.immutable.List<String> parseMultipartIdentifier(String sqlText)
      throws ParseException {
    // a List is Scala's Seq on Scala 2.12 and 2.13 alike (D53)
    return ScalaCollections.list(
        ScalaCollections.toJava(delegate.parseMultipartIdentifier(sqlText)));
  }

  @Override
  public LogicalPlan parseQuery(String sqlText) throws ParseException {
    return delegate.parseQuery(sqlText);
  }

  @Override
  public StructType parseTableSchema(String sqlText) throws ParseException {
    return delegate.parseTableSchema(sqlText);
  }

  @Override
  public DataType parseDataType(String sqlText) throws ParseException {
    return delegate.parseDataType(sqlText);
  }
}
