package dev.lancelot.engine.internal.expr.eval;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A compiled LIKE pattern over UTF-8 bytes, with Lance's semantics (checked against Lance 7):
 * {@code %} matches any run of characters (also empty, also newlines), {@code _} exactly one
 * character (one code point, not one byte), and a backslash makes the next character literal
 * whatever it is ({@code \%}, {@code \_}, {@code \\}, {@code \a} = {@code a}); a backslash at the
 * very end is a literal backslash. Matching is case-sensitive and covers the whole value.
 *
 * <p>Common shapes get direct byte tests: exact, {@code prefix%}, {@code %suffix}, {@code %infix%};
 * anything else runs a wildcard matcher with single-star backtracking, linear in practice and never
 * exponential.
 */
public final class LikePattern {
  private static final int ANY_RUN = -1; // %
  private static final int ANY_ONE = -2; // _

  private enum Shape {
    EXACT,
    PREFIX,
    SUFFIX,
    CONTAINS,
    GENERAL
  }

  private final Shape shape;
  private final byte[] text; // the literal bytes for the simple shapes
  private final int[] program; // GENERAL: byte values 0..255, ANY_RUN or ANY_ONE

  private LikePattern(Shape shape, byte[] text, int[] program) {
    this.shape = shape;
    this.text = text;
    this.program = program;
  }

  public static LikePattern compile(String pattern) {
    int[] program = tokens(pattern);
    int runs = 0;
    int ones = 0;
    for (int op : program) {
      runs += op == ANY_RUN ? 1 : 0;
      ones += op == ANY_ONE ? 1 : 0;
    }
    int n = program.length;
    if (ones == 0) {
      if (runs == 0) {
        return simple(Shape.EXACT, program, 0, n);
      } else if (runs == 1 && program[n - 1] == ANY_RUN) {
        return simple(Shape.PREFIX, program, 0, n - 1);
      } else if (runs == 1 && program[0] == ANY_RUN) {
        return simple(Shape.SUFFIX, program, 1, n);
      } else if (runs == 2 && n >= 2 && program[0] == ANY_RUN && program[n - 1] == ANY_RUN) {
        return simple(Shape.CONTAINS, program, 1, n - 1);
      }
    }
    return new LikePattern(Shape.GENERAL, null, program);
  }

  private static LikePattern simple(Shape shape, int[] program, int from, int to) {
    byte[] bytes = new byte[to - from];
    for (int i = from; i < to; i++) {
      bytes[i - from] = (byte) program[i];
    }
    return new LikePattern(shape, bytes, null);
  }

  /** The pattern as byte values and wildcards, escapes resolved, runs of % collapsed. */
  private static int[] tokens(String pattern) {
    int[] out = new int[pattern.getBytes(StandardCharsets.UTF_8).length];
    int n = 0;
    int i = 0;
    while (i < pattern.length()) {
      int cp = pattern.codePointAt(i);
      i += Character.charCount(cp);
      if (cp == '\\' && i < pattern.length()) {
        cp = pattern.codePointAt(i);
        i += Character.charCount(cp);
      } else if (cp == '%') {
        if (n == 0 || out[n - 1] != ANY_RUN) {
          out[n++] = ANY_RUN;
        }
        continue;
      } else if (cp == '_') {
        out[n++] = ANY_ONE;
        continue;
      }
      byte[] utf8 = new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8);
      for (byte b : utf8) {
        out[n++] = b & 0xFF;
      }
    }
    return Arrays.copyOf(out, n);
  }

  /**
   * The pattern's runs of literal bytes between wildcards, escapes resolved (for {@code 'ab%cd_e'}:
   * {@code ab}, {@code cd}, {@code e}): every matching value contains each of them, so each is a
   * substring condition that narrows the candidates (n-gram indexes) but never answers the pattern
   * exactly.
   */
  public java.util.List<byte[]> literalRuns() {
    if (shape != Shape.GENERAL) {
      return text.length == 0 ? java.util.List.of() : java.util.List.of(text.clone());
    }
    java.util.List<byte[]> out = new java.util.ArrayList<>();
    int from = 0;
    for (int i = 0; i <= program.length; i++) {
      if (i == program.length || program[i] < 0) {
        if (i > from) {
          byte[] run = new byte[i - from];
          for (int j = from; j < i; j++) {
            run[j - from] = (byte) program[j];
          }
          out.add(run);
        }
        from = i + 1;
      }
    }
    return out;
  }

  /** Whether {@code s[0, length)} matches. */
  public boolean matches(byte[] s, int length) {
    return switch (shape) {
      case EXACT -> length == text.length && Arrays.equals(s, 0, length, text, 0, length);
      case PREFIX ->
          length >= text.length && Arrays.equals(s, 0, text.length, text, 0, text.length);
      case SUFFIX ->
          length >= text.length
              && Arrays.equals(s, length - text.length, length, text, 0, text.length);
      case CONTAINS -> indexOf(s, length) >= 0;
      case GENERAL -> wildcard(s, length);
    };
  }

  private int indexOf(byte[] s, int length) {
    int m = text.length;
    outer:
    for (int at = 0; at + m <= length; at++) {
      for (int j = 0; j < m; j++) {
        if (s[at + j] != text[j]) {
          continue outer;
        }
      }
      return at;
    }
    return -1;
  }

  /**
   * Greedy matching that remembers the last {@code %}: on a mismatch it lets that {@code %} swallow
   * one more character and retries. Correct for {@code %}/{@code _} patterns because a later {@code
   * %} can absorb anything an earlier one could.
   */
  private boolean wildcard(byte[] s, int length) {
    int[] p = program;
    int pi = 0;
    int si = 0;
    int starP = -1;
    int starS = 0;
    while (si < length) {
      if (pi < p.length && p[pi] == ANY_RUN) {
        starP = pi++;
        starS = si;
      } else if (pi < p.length && (p[pi] == ANY_ONE || p[pi] == (s[si] & 0xFF))) {
        si = p[pi] == ANY_ONE ? nextCodePoint(s, si, length) : si + 1;
        pi++;
      } else if (starP >= 0) {
        pi = starP + 1;
        starS = nextCodePoint(s, starS, length);
        si = starS;
      } else {
        return false;
      }
    }
    while (pi < p.length && p[pi] == ANY_RUN) {
      pi++;
    }
    return pi == p.length;
  }

  private static int nextCodePoint(byte[] s, int i, int length) {
    int b = s[i] & 0xFF;
    int width = b < 0x80 ? 1 : b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1;
    return Math.min(i + width, length);
  }
}
