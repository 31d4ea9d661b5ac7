package dev.lancelot.engine.internal.expr.parse;

/** Lexical categories of filter SQL. */
public enum TokenType {
  /** An unquoted word: a column name or a keyword (keywords are recognised by the parser). */
  WORD,
  /** A name in backquotes. */
  QUOTED_NAME,
  /** A string in single or double quotes (Lance reads both as strings). */
  STRING,
  /** {@code X'0AFF'}; the text is the hex digits. */
  HEX,
  NUMBER,
  EQ,
  NE,
  LT,
  LE,
  GT,
  GE,
  LPAREN,
  RPAREN,
  LBRACKET,
  RBRACKET,
  COMMA,
  DOT,
  MINUS,
  PLUS,
  STAR,
  SLASH,
  PERCENT,
  END
}
