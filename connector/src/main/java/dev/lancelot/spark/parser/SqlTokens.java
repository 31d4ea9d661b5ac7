package dev.lancelot.spark.parser;

import dev.lancelot.engine.InvalidInputException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The tokens of one SQL statement, as far as lancelot's own statements need them (D76): words
 * (identifiers and keywords), back-quoted identifiers, string literals, numbers, {@code =>} and
 * single-character symbols; blanks and comments ({@code --} to the end of the line, and bracketed
 * comments, nested as Spark allows) are skipped. Each token keeps its offsets, so that a
 * statement's argument can be handed to Spark's own parser as the user wrote it, and an error can
 * name its line and column.
 */
public final class SqlTokens {
  /** What a token is. */
  public enum Kind {
    WORD,
    QUOTED_IDENTIFIER,
    STRING,
    NUMBER,
    SYMBOL,
    END
  }

  /**
   * One token: {@code text} is the identifier or string without its quotes (escapes resolved), the
   * number or the symbol as written; {@code start} and {@code end} its offsets in the statement.
   */
  public record Token(Kind kind, String text, int start, int end) {
    /** Whether it is the keyword {@code keyword} (case-insensitive), not a quoted identifier. */
    public boolean is(String keyword) {
      return kind == Kind.WORD && text.equalsIgnoreCase(keyword);
    }

    /** Whether it is the symbol {@code symbol}. */
    public boolean isSymbol(String symbol) {
      return kind == Kind.SYMBOL && text.equals(symbol);
    }

    /** Whether it can name something: a word or a back-quoted identifier. */
    public boolean isIdentifier() {
      return kind == Kind.WORD || kind == Kind.QUOTED_IDENTIFIER;
    }
  }

  private final String sql;
  private final List<Token> tokens;

  private SqlTokens(String sql, List<Token> tokens) {
    this.sql = sql;
    this.tokens = tokens;
  }

  /**
   * The tokens of {@code sql}, ending with an {@link Kind#END} token; an unterminated string,
   * identifier or comment is refused with its position.
   */
  public static SqlTokens of(String sql) {
    List<Token> out = new ArrayList<>();
    int i = 0;
    int n = sql.length();
    while (true) {
      i = skipBlanks(sql, i);
      if (i >= n) {
        out.add(new Token(Kind.END, "", n, n));
        return new SqlTokens(sql, out);
      }
      char c = sql.charAt(i);
      int start = i;
      if (c == '\'' || c == '"') {
        StringBuilder text = new StringBuilder();
        i++;
        while (i < n && sql.charAt(i) != c) {
          if (sql.charAt(i) == '\\' && i + 1 < n) {
            i++;
            text.append(unescape(sql.charAt(i)));
          } else {
            text.append(sql.charAt(i));
          }
          i++;
        }
        if (i >= n) {
          throw error(sql, start, "unterminated string literal");
        }
        out.add(new Token(Kind.STRING, text.toString(), start, ++i));
      } else if (c == '`') {
        StringBuilder text = new StringBuilder();
        i++;
        while (true) {
          if (i >= n) {
            throw error(sql, start, "unterminated back-quoted identifier");
          }
          if (sql.charAt(i) == '`') {
            if (i + 1 < n && sql.charAt(i + 1) == '`') {
              text.append('`');
              i += 2;
              continue;
            }
            break;
          }
          text.append(sql.charAt(i++));
        }
        out.add(new Token(Kind.QUOTED_IDENTIFIER, text.toString(), start, ++i));
      } else if (Character.isDigit(c) || (c == '.' && i + 1 < n && isDigit(sql, i + 1))) {
        while (i < n && (Character.isLetterOrDigit(sql.charAt(i)) || sql.charAt(i) == '.')) {
          i++;
        }
        boolean word = false;
        for (int j = start; j < i; j++) {
          word |= Character.isLetter(sql.charAt(j)) || sql.charAt(j) == '_';
        }
        // Spark's identifiers may start with a digit (e.g. 1a); a number has at most a suffix
        Kind kind = word && !isNumber(sql.substring(start, i)) ? Kind.WORD : Kind.NUMBER;
        out.add(new Token(kind, sql.substring(start, i), start, i));
      } else if (Character.isLetterOrDigit(c) || c == '_') {
        while (i < n && (Character.isLetterOrDigit(sql.charAt(i)) || sql.charAt(i) == '_')) {
          i++;
        }
        out.add(new Token(Kind.WORD, sql.substring(start, i), start, i));
      } else if (c == '=' && i + 1 < n && sql.charAt(i + 1) == '>') {
        out.add(new Token(Kind.SYMBOL, "=>", start, i += 2));
      } else {
        out.add(new Token(Kind.SYMBOL, String.valueOf(c), start, ++i));
      }
    }
  }

  /** The statement's text. */
  public String sql() {
    return sql;
  }

  /** Token {@code index}; past the end, the {@link Kind#END} token. */
  public Token get(int index) {
    return tokens.get(Math.min(index, tokens.size() - 1));
  }

  /** The statement's text from token {@code from} to token {@code to}, both included. */
  public String text(int from, int to) {
    return sql.substring(get(from).start(), get(to).end());
  }

  /** {@code line L, column C} of an offset, both counted from 1. */
  public static String position(String sql, int offset) {
    int line = 1;
    int column = 1;
    for (int i = 0; i < offset && i < sql.length(); i++) {
      if (sql.charAt(i) == '\n') {
        line++;
        column = 1;
      } else {
        column++;
      }
    }
    return "line " + line + ", column " + column;
  }

  private static InvalidInputException error(String sql, int offset, String what) {
    return new InvalidInputException(
        "Syntax error at " + position(sql, offset) + ": " + what + ". Statement: " + sql);
  }

  private static int skipBlanks(String sql, int i) {
    int n = sql.length();
    while (i < n) {
      char c = sql.charAt(i);
      if (Character.isWhitespace(c)) {
        i++;
      } else if (sql.startsWith("--", i)) {
        while (i < n && sql.charAt(i) != '\n') {
          i++;
        }
      } else if (sql.startsWith("/*", i)) {
        int start = i;
        int depth = 0;
        do {
          if (i >= n) {
            throw error(sql, start, "unterminated comment");
          }
          if (sql.startsWith("/*", i)) {
            depth++;
            i += 2;
          } else if (sql.startsWith("*/", i)) {
            depth--;
            i += 2;
          } else {
            i++;
          }
        } while (depth > 0);
      } else {
        return i;
      }
    }
    return i;
  }

  private static boolean isDigit(String sql, int i) {
    return Character.isDigit(sql.charAt(i));
  }

  /** A number as Spark writes them: digits, a fraction, an exponent, a type suffix. */
  private static boolean isNumber(String text) {
    return text.toUpperCase(Locale.ROOT)
        .matches("(\\d+\\.?\\d*|\\.\\d+)(E[+-]?\\d+)?(L|S|Y|D|F|BD)?");
  }

  private static char unescape(char c) {
    return switch (c) {
      case 'n' -> '\n';
      case 't' -> '\t';
      case 'r' -> '\r';
      case '0' -> '\0';
      default -> c;
    };
  }
}
