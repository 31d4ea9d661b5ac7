package dev.lancelot.spark.shim;

import dev.lancelot.spark.parser.SessionTables;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.FunctionIdentifier;
import org.apache.spark.sql.catalyst.TableIdentifier;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.parser.ParameterContext;
import org.apache.spark.sql.catalyst.parser.ParseException;
import org.apache.spark.sql.catalyst.parser.ParserInterface;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructType;

/**
 * Spark's parser, in front of which lancelot's parser extension reads the statements Spark's
 * refuses (D76): lance-spark's statements ({@link dev.lancelot.spark.parser.LanceStatements}), each
 * translated into the {@code CALL} of a lance catalog's procedure that Spark 4 parses and runs
 * itself. A statement the parser behind this one parses (Spark's, or another extension's) keeps its
 * meaning.
 *
 * <p>The Spark 4.1 and later lines' version: a statement with parameter markers goes through {@code
 * parsePlanWithParameters} (4.1), which this one passes on. The 4.0 and 3.5 lines have their own.
 */
public final class LanceParser implements ParserInterface {
  private final SparkSession session;
  private final ParserInterface delegate;

  /** Reads lancelot's statements in {@code session} in front of {@code delegate}. */
  public LanceParser(SparkSession session, ParserInterface delegate) {
    this.session = session;
    this.delegate = delegate;
  }

  @Override
  public LogicalPlan parsePlan(String sqlText) throws ParseException {
    try {
      return delegate.parsePlan(sqlText);
    } catch (ParseException e) {
      return SessionTables.statementPlan(session, delegate, sqlText, e);
    }
  }

  @Override
  public LogicalPlan parsePlanWithParameters(String sqlText, ParameterContext context)
      throws ParseException {
    try {
      return delegate.parsePlanWithParameters(sqlText, context);
    } catch (ParseException e) {
      return SessionTables.statementPlan(session, delegate, sqlText, e);
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
  public scala.collection.immutable.Seq<String> parseMultipartIdentifier(String sqlText)
      throws ParseException {
    return delegate.parseMultipartIdentifier(sqlText);
  }

  @Override
  public LogicalPlan parseQuery(String sqlText) throws ParseException {
    return delegate.parseQuery(sqlText);
  }

  @Override
  public StructType parseRoutineParam(String sqlText) throws ParseException {
    return delegate.parseRoutineParam(sqlText);
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
