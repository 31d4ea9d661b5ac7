package dev.lancelot.engine.internal.expr.parse;

import dev.lancelot.engine.expr.FilterParseException;
import java.util.ArrayList;
import java.util.List;

/**
 * Splits filter SQL into tokens. Strings use {@code ''} (or {@code ""}) to escape their quote and
 * nothing else, so a backslash is an ordinary character, as in Lance's dialect.
 */
public final class Lexer {
  private final String filter;
  private int pos;

  private Lexer(String filter) {
    this.filter = filter;
  }

  /** The tokens of {@code filter}, ending with an {@link TokenType#END} token. */
  public static List<Token> tokenize(String filter) {
    return new Lexer(filter).run();
  }

  private List<Token> run() {
    List<Token> tokens = new ArrayList<>();
    while (true) {
      skipWhitespace();
      if (pos >= filter.length()) {
        tokens.add(new Token(TokenType.END, "", pos));
        return tokens;
      }
      tokens.add(next());
    }
  }

  private void skipWhitespace() {
    while (pos < filter.length() && Character.isWhitespace(filter.charAt(pos))) {
      pos++;
    }
  }

  private Token next() {
    int start = pos;
    char c = filter.charAt(pos);
    char n = pos + 1 < filter.length() ? filter.charAt(pos + 1) : '\0';
    if ((c == 'x' || c == 'X') && n == '\'') {
      pos++;
      String hex = quoted('\'', start);
      return new Token(TokenType.HEX, hex, start);
    } else if (isNameStart(c)) {
      while (pos < filter.length() && isNamePart(filter.charAt(pos))) {
        pos++;
      }
      return new Token(TokenType.WORD, filter.substring(start, pos), start);
    } else if (isDigit(c) || (c == '.' && isDigit(n))) {
      return number();
    }
    switch (c) {
      case '\'':
      case '"':
        return new Token(TokenType.STRING, quoted(c, start), start);
      case '`':
        return new Token(TokenType.QUOTED_NAME, quoted('`', start), start);
      case '(':
        return symbol(TokenType.LPAREN, 1);
      case ')':
        return symbol(TokenType.RPAREN, 1);
      case '[':
        return symbol(TokenType.LBRACKET, 1);
      case ']':
        return symbol(TokenType.RBRACKET, 1);
      case ',':
        return symbol(TokenType.COMMA, 1);
      case '.':
        return symbol(TokenType.DOT, 1);
      case '=':
        return symbol(TokenType.EQ, n == '=' ? 2 : 1);
      case '<':
        if (n == '=') {
          return symbol(TokenType.LE, 2);
        }
        return n == '>' ? symbol(TokenType.NE, 2) : symbol(TokenType.LT, 1);
      case '>':
        return n == '=' ? symbol(TokenType.GE, 2) : symbol(TokenType.GT, 1);
      case '!':
        if (n == '=') {
          return symbol(TokenType.NE, 2);
        }
        break;
      case '+':
        return symbol(TokenType.PLUS, 1);
      case '*':
        return symbol(TokenType.STAR, 1);
      case '/':
        if (n != '*') { // "/*" starts a comment in SQL; refuse rather than guess
          return symbol(TokenType.SLASH, 1);
        }
        break;
      case '%':
        return symbol(TokenType.PERCENT, 1);
      case '-':
        if (n != '-') { // "--" starts a comment in SQL; refuse rather than guess
          return symbol(TokenType.MINUS, 1);
        }
        break;
      default:
        break;
    }
    throw new FilterParseException(
        filter,
        start,
        "unexpected character '" + new String(Character.toChars(filter.codePointAt(start))) + "'");
  }

  private Token symbol(TokenType type, int length) {
    Token t = new Token(type, filter.substring(pos, pos + length), pos);
    pos += length;
    return t;
  }

  private Token number() {
    int start = pos;
    digits();
    if (pos < filter.length() && filter.charAt(pos) == '.') {
      pos++;
      digits();
    }
    if (pos < filter.length() && (filter.charAt(pos) == 'e' || filter.charAt(pos) == 'E')) {
      int mark = pos;
      pos++;
      if (pos < filter.length() && (filter.charAt(pos) == '+' || filter.charAt(pos) == '-')) {
        pos++;
      }
      if (pos < filter.length() && isDigit(filter.charAt(pos))) {
        digits();
      } else {
        pos = mark; // not an exponent: "1e" is the number 1 followed by a word
      }
    }
    return new Token(TokenType.NUMBER, filter.substring(start, pos), start);
  }

  private void digits() {
    while (pos < filter.length() && isDigit(filter.charAt(pos))) {
      pos++;
    }
  }

  /** Reads a quoted run starting at the quote at {@code pos}; a doubled quote is one quote. */
  private String quoted(char quote, int tokenStart) {
    StringBuilder sb = new StringBuilder();
    pos++;
    while (pos < filter.length()) {
      char c = filter.charAt(pos++);
      if (c == quote) {
        if (pos < filter.length() && filter.charAt(pos) == quote) {
          sb.append(quote);
          pos++;
        } else {
          return sb.toString();
        }
      } else {
        sb.append(c);
      }
    }
    String what = quote == '`' ? "quoted name" : "string literal";
    throw new FilterParseException(
        filter, tokenStart, "unterminated " + what + " (missing closing " + quote + ")");
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }

  private static boolean isNameStart(char c) {
    return Character.isLetter(c) || c == '_';
  }

  private static boolean isNamePart(char c) {
    return Character.isLetterOrDigit(c) || c == '_' || c == '$';
  }
}
