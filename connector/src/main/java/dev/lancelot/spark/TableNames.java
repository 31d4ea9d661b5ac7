package dev.lancelot.spark;

import dev.lancelot.engine.InvalidInputException;
import java.util.List;
import java.util.regex.Pattern;
import org.apache.spark.sql.SparkSession;

/** How a table argument is read: a path or URI, or a multi-part table name. */
public final class TableNames {
  private static final Pattern SCHEME = Pattern.compile("^[A-Za-z][A-Za-z0-9+.-]*:.*");

  private TableNames() {}

  /**
   * True when {@code name} is a location rather than a table name: it has a {@code /} or a scheme.
   */
  public static boolean isPath(String name) {
    return name.contains("/") || SCHEME.matcher(name).matches();
  }

  /**
   * A name with a backquoted part ({@code lance.`s3a://b/t`}), which is parsed as a multipart name
   * even though its path part has slashes.
   */
  static boolean isQuoted(String table) {
    return table.indexOf('`') >= 0;
  }

  static List<String> parse(String table) {
    try {
      return ScalaCollections.toJava(
          SparkSession.active().sessionState().sqlParser().parseMultipartIdentifier(table));
    } catch (org.apache.spark.sql.catalyst.parser.ParseException | RuntimeException e) {
      throw new InvalidInputException(
          "Cannot resolve table \""
              + table
              + "\": it is neither a table name (db.items) nor "
              + "a path or URI (/data/items, s3a://bucket/items). "
              + e.getMessage(),
          e);
    }
  }
}
