package dev.lancelot.spark.parser;

import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.spark.LanceCatalog;
import dev.lancelot.spark.ScalaCollections;
import dev.lancelot.spark.TableNames;
import dev.lancelot.spark.parser.LanceStatements.ResolvedTable;
import dev.lancelot.spark.shim.SparkLine;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.parser.ParseException;
import org.apache.spark.sql.catalyst.parser.ParserInterface;
import org.apache.spark.sql.connector.catalog.CatalogNotFoundException;
import org.apache.spark.sql.connector.catalog.CatalogPlugin;

/**
 * Resolves the table of one of lance-spark's statements as Spark resolves a table name (D76): a
 * name whose first part is a catalog is in that catalog, any other in the current catalog, a
 * one-part name in the current namespace. The catalog must be a lance catalog.
 */
public final class SessionTables {
  private SessionTables() {}

  /**
   * The plan of lance-spark statement {@code sql}, which {@code parser} (Spark's) refused with
   * {@code refused}: the procedure call it stands for, parsed by {@code parser}. Text that is not
   * such a statement gets Spark's own error back. Used by the lines whose Spark parses {@code CALL}
   * itself (4.0 and later).
   */
  public static org.apache.spark.sql.catalyst.plans.logical.LogicalPlan statementPlan(
      SparkSession spark, ParserInterface parser, String sql, ParseException refused)
      throws ParseException {
    SqlTokens tokens;
    try {
      tokens = SqlTokens.of(sql);
    } catch (InvalidInputException notSql) {
      throw refused;
    }
    if (!LanceStatements.isStatement(tokens)) {
      throw refused;
    }
    ProcedureCall call = LanceStatements.parseStatement(tokens, of(spark, parser, sql));
    return parser.parsePlan(SqlText.call(call));
  }

  /** The resolver of statement {@code sql}'s table in {@code spark}. */
  public static Function<List<String>, ResolvedTable> of(
      SparkSession spark, ParserInterface parser, String sql) {
    return parts -> resolve(spark, parser, parts, sql);
  }

  private static ResolvedTable resolve(
      SparkSession spark, ParserInterface parser, List<String> parts, String sql) {
    String catalog;
    List<String> table = new ArrayList<>();
    if (parts.size() > 1 && isCatalog(spark, parts.get(0))) {
      catalog = parts.get(0);
      table.addAll(parts.subList(1, parts.size()));
    } else {
      catalog = spark.catalog().currentCatalog();
      if (parts.size() == 1 && !TableNames.isPath(parts.get(0))) {
        table.addAll(currentNamespace(spark, parser));
      }
      table.addAll(parts);
    }
    CatalogPlugin plugin = SparkLine.catalog(spark, catalog);
    if (!(plugin instanceof LanceCatalog)) {
      throw new InvalidInputException(
          "Cannot run "
              + sql.strip()
              + ": table "
              + String.join(".", parts)
              + " is in catalog "
              + catalog
              + ", which is not a lance catalog; this statement works on the tables of a lance"
              + " catalog (dev.lancelot.spark.LanceCatalog), e.g. lance.db.items or"
              + " lance.`/data/items.lance`.");
    }
    List<String> quoted = new ArrayList<>();
    table.forEach(p -> quoted.add(SqlText.identifier(p)));
    return new ResolvedTable(catalog, String.join(".", quoted));
  }

  private static boolean isCatalog(SparkSession spark, String name) {
    try {
      SparkLine.catalog(spark, name);
      return true;
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      // Scala declares no checked exceptions: Spark throws its CatalogNotFoundException unchecked
      if (e instanceof CatalogNotFoundException) {
        return false;
      }
      throw new IllegalStateException(e);
    }
  }

  private static List<String> currentNamespace(SparkSession spark, ParserInterface parser) {
    String current = spark.catalog().currentDatabase();
    if (current == null || current.isBlank()) {
      return List.of();
    }
    try {
      return ScalaCollections.toJava(parser.parseMultipartIdentifier(current));
    } catch (ParseException e) {
      throw new InvalidInputException("Cannot read the current namespace " + current + ".", e);
    }
  }
}
