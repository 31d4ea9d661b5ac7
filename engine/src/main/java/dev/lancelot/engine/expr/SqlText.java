package dev.lancelot.engine.expr;

import java.util.Locale;
import java.util.Set;

/** Rendering of identifiers and string literals in the filter SQL dialect (Lance's). */
final class SqlText {
  private SqlText() {}

  /**
   * Words rendered in backquotes when used as column names. Generous on purpose: besides the words
   * of this grammar it holds the SQL keywords Lance's parser (sqlparser-rs) treats specially in
   * expressions; quoting a name needlessly is harmless, not quoting one is not.
   */
  private static final Set<String> RESERVED =
      Set.of(
          "ALL",
          "AND",
          "ANY",
          "ARRAY",
          "AS",
          "ASC",
          "AT",
          "BETWEEN",
          "BIGINT",
          "BINARY",
          "BOOL",
          "BOOLEAN",
          "BY",
          "CASE",
          "CAST",
          "CHAR",
          "COLLATE",
          "CROSS",
          "CUBE",
          "CURRENT_DATE",
          "CURRENT_TIME",
          "CURRENT_TIMESTAMP",
          "CURRENT_USER",
          "DATE",
          "DATETIME",
          "DECIMAL",
          "DESC",
          "DISTINCT",
          "DIV",
          "DOUBLE",
          "ELSE",
          "END",
          "ESCAPE",
          "EXCEPT",
          "EXISTS",
          "EXTRACT",
          "FALSE",
          "FLOAT",
          "FROM",
          "FULL",
          "GROUP",
          "GROUPING",
          "HAVING",
          "ILIKE",
          "IN",
          "INNER",
          "INT",
          "INTEGER",
          "INTERSECT",
          "INTERVAL",
          "IS",
          "ISNULL",
          "JOIN",
          "LEFT",
          "LIKE",
          "LIMIT",
          "LOCALTIME",
          "LOCALTIMESTAMP",
          "MAP",
          "MATCH",
          "NATURAL",
          "NOT",
          "NOTNULL",
          "NULL",
          "NUMERIC",
          "OFFSET",
          "ON",
          "OR",
          "ORDER",
          "OVERLAPS",
          "OVERLAY",
          "POSITION",
          "REAL",
          "REGEXP",
          "RIGHT",
          "RLIKE",
          "ROLLUP",
          "SELECT",
          "SESSION_USER",
          "SETS",
          "SIMILAR",
          "SMALLINT",
          "SOME",
          "STRING",
          "STRUCT",
          "SUBSTRING",
          "TEXT",
          "THEN",
          "TIME",
          "TIMESTAMP",
          "TINYINT",
          "TRIM",
          "TRUE",
          "TRY_CAST",
          "UNION",
          "UNIQUE",
          "UNKNOWN",
          "USER",
          "USING",
          "VARCHAR",
          "WHEN",
          "WHERE",
          "WITH",
          "XOR");

  static boolean isReserved(String word) {
    return RESERVED.contains(word.toUpperCase(Locale.ROOT));
  }

  /** {@code name} bare if it is a plain ASCII identifier and no keyword, else in backquotes. */
  static String identifier(String name) {
    if (isPlain(name) && !isReserved(name)) {
      return name;
    }
    return '`' + name.replace("`", "``") + '`';
  }

  /** A single-quoted string literal; quotes are doubled, nothing else is escaped. */
  static String string(String value) {
    return '\'' + value.replace("'", "''") + '\'';
  }

  private static boolean isPlain(String name) {
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      boolean letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
      boolean digit = c >= '0' && c <= '9';
      if (!(letter || (digit && i > 0))) {
        return false;
      }
    }
    return !name.isEmpty();
  }
}
