package dev.lancelot.engine.expr;

import java.util.Locale;

/** The target types of {@link Cast}, named as Lance's filter parser names them. */
public enum CastType {
  TINYINT("TINYINT"),
  SMALLINT("SMALLINT"),
  INT("INT"),
  BIGINT("BIGINT"),
  TINYINT_UNSIGNED("TINYINT UNSIGNED"),
  SMALLINT_UNSIGNED("SMALLINT UNSIGNED"),
  INT_UNSIGNED("INT UNSIGNED"),
  BIGINT_UNSIGNED("BIGINT UNSIGNED"),
  /** 32-bit float. */
  FLOAT("FLOAT"),
  DOUBLE("DOUBLE"),
  STRING("STRING"),
  BOOLEAN("BOOLEAN");

  private final String sql;

  CastType(String sql) {
    this.sql = sql;
  }

  public String sql() {
    return sql;
  }

  /**
   * The type for a SQL type name (already upper-cased words, e.g. {@code INTEGER}, {@code BIGINT}),
   * or null if casts to it are not supported.
   */
  @SuppressWarnings("EnumOrdinal") // each unsigned type is declared 4 places after its signed twin
  static CastType of(String name, boolean unsigned) {
    String n = name.toUpperCase(Locale.ROOT);
    CastType signed =
        switch (n) {
          case "TINYINT" -> TINYINT;
          case "SMALLINT" -> SMALLINT;
          case "INT", "INTEGER" -> INT;
          case "BIGINT" -> BIGINT;
          default -> null;
        };
    if (signed != null) {
      return unsigned ? values()[signed.ordinal() + 4] : signed;
    } else if (unsigned) {
      return null;
    }
    return switch (n) {
      case "FLOAT" -> FLOAT;
      case "DOUBLE" -> DOUBLE;
      case "STRING" -> STRING;
      case "BOOLEAN" -> BOOLEAN;
      default -> null;
    };
  }
}
