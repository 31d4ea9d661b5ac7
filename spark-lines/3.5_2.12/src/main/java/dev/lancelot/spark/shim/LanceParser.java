package dev.lancelot.spark.shim;

import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.spark.ScalaCollections;
import dev.lancelot.spark.parser.LanceStatements;
import dev.lancelot.spark.parser.SessionTables;
import dev.lancelot.spark.parser.SqlTokens;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.FunctionIdentifier;
import org.apache.spark.sql.catalyst.TableIdentifier;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.parser.ParseException;
import org.apache.spark.sql.catalyst.parser.ParserInterface;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructType;

/**
 * Spark 3.5's parser, in front of which lancelot's parser extension reads the statements Spark's
 * refuses (D76): on this line, which has no stored procedures, {@code CALL
 * catalog.system.name(...)} of a lance catalog's procedure, and lance-spark's statements ({@link
 * LanceStatements}), each run as such a call by a {@link CallCommand}. A statement the parser
 * behind this one parses (Spark's, or another extension's) keeps its meaning.
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
      SqlTokens tokens;
      try {
        tokens = SqlTokens.of(sqlText);
      } catch (InvalidInputException notSql) {
        throw e;
      }
      if (LanceStatements.isCall(tokens)) {
        return CallCommand.of(session, delegate, LanceStatements.parseCall(tokens));
      }
      if (LanceStatements.isStatement(tokens)) {
        return CallCommand.of(
            session,
            delegate,
            LanceStatements.parseStatement(tokens, SessionTables.of(session, delegate, sqlText)));
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
