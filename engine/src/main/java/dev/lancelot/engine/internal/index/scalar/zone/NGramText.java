package dev.lancelot.engine.internal.index.scalar.zone;

import java.nio.charset.StandardCharsets;
import java.text.Normalizer;
import java.util.Locale;
import java.util.function.IntConsumer;

/**
 * The trigram tokens lance-core 7 indexes for a text: the text lower-cased (each character as
 * Unicode lower-cases it alone), folded to ASCII where a character has an ASCII form (accented and
 * compatibility letters and digits, ligatures, a few letters without a decomposition such as {@code
 * ß} or {@code ø}), then every run of three consecutive characters that are all ASCII letters or
 * digits, as a token (each character {@code 0-9} as 1-10 and {@code a-z} as 11-36, in base 37, the
 * first most significant). Any other character breaks the runs, so only the alphanumeric runs of
 * the folded text matter.
 */
public final class NGramText {
  /** Marks a character that breaks trigram runs. */
  private static final int BREAK = -1;

  private NGramText() {}

  /** Calls {@code out} with each trigram token of the UTF-8 {@code text} (repeats included). */
  public static void tokens(byte[] text, IntConsumer out) {
    int[] run = new int[3];
    int[] length = {0};
    IntConsumer ch =
        c -> {
          if (c == BREAK) {
            length[0] = 0;
            return;
          }
          run[0] = run[1];
          run[1] = run[2];
          run[2] = c;
          if (++length[0] >= 3) {
            out.accept(token(run[0], run[1], run[2]));
          }
        };
    boolean ascii = true;
    for (byte b : text) {
      if (b < 0) {
        ascii = false;
        break;
      }
    }
    if (ascii) {
      for (byte b : text) {
        ch.accept(asciiChar(Character.toLowerCase(b)));
      }
      return;
    }
    String s = new String(text, StandardCharsets.UTF_8);
    s.codePoints()
        .forEach(
            cp -> {
              if (cp < 0x80) {
                ch.accept(asciiChar(Character.toLowerCase(cp)));
                return;
              }
              String lower = new String(Character.toChars(cp)).toLowerCase(Locale.ROOT);
              lower
                  .codePoints()
                  .forEach(
                      l -> {
                        if (l < 0x80) {
                          ch.accept(asciiChar(l));
                        } else {
                          String folded = fold(l);
                          if (folded == null) {
                            ch.accept(BREAK);
                          } else {
                            for (int i = 0; i < folded.length(); i++) {
                              ch.accept(asciiChar(folded.charAt(i)));
                            }
                          }
                        }
                      });
            });
  }

  /** The character as it enters a trigram (itself if an ASCII letter or digit), else a break. */
  private static int asciiChar(int c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ? c : BREAK;
  }

  /**
   * The token of three ASCII letters or digits, computed as Lance computes it on the byte: an
   * upper-case letter (which folding alone can produce) wraps around as Lance's byte arithmetic
   * does.
   */
  static int token(int a, int b, int c) {
    return position(a) * 37 * 37 + position(b) * 37 + position(c);
  }

  private static int position(int c) {
    int p = c <= '9' ? c - '0' : ((c - 'a' + 10) & 0xFF);
    return (p + 1) & 0xFF;
  }

  /**
   * The ASCII folding of a non-ASCII (lower-cased) character, or null when it has none: {@link
   * NGramFolding}'s, else the ASCII characters of its compatibility decomposition and the foldings
   * of its other characters (those without one left out); null when that leaves nothing.
   */
  static String fold(int cp) {
    String table = NGramFolding.fold(cp);
    if (table != null) {
      return table;
    }
    String d = Normalizer.normalize(new String(Character.toChars(cp)), Normalizer.Form.NFKD);
    if (d.codePointCount(0, d.length()) == 1 && d.codePointAt(0) == cp) {
      return null;
    }
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < d.length(); ) {
      int c = d.codePointAt(i);
      i += Character.charCount(c);
      if (c < 0x80) {
        out.append((char) c);
      } else {
        String inner = fold(c);
        if (inner != null) {
          out.append(inner);
        }
      }
    }
    return out.length() == 0 ? null : out.toString();
  }
}
