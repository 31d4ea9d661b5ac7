package dev.lancelot.engine.internal.expr.eval;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Random;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class LikePatternTest {
  private static boolean like(String value, String pattern) {
    byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
    return LikePattern.compile(pattern).matches(bytes, bytes.length);
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '"',
      value = {
        "abc|abc|true",
        "abc|ab|false",
        "abc|a%|true",
        "abc|%c|true",
        "abc|%b%|true",
        "abc|%%|true",
        "''|%|true",
        "''|''|true",
        "''|_|false",
        "abc|a_c|true",
        "abc|_b_|true",
        "abc|___|true",
        "abc|____|false",
        "aXbXc|a%b%c|true",
        "abcbc|a%bc|true",
        "abcbd|a%bc|false",
        "é|_|true",
        "éa|_a|true",
        "😀x|_x|true",
        "a%b|a\\%b|true",
        "aXb|a\\%b|false",
        "a_b|a\\_b|true",
        "aXb|a\\_b|false",
        "a\\b|a\\\\b|true",
        "ab|a\\b|true",
        "zz\\|zz\\|true",
        "zz\\|%\\\\|true",
        "mississippi|%iss%ipp%|true",
        "mississippi|m%s%s%s%i|true",
        "mississippi|m%s%s%s%s%s|false",
        "aaa|%a%a%a%|true",
        "aa|%a%a%a%|false",
      })
  void semantics(String value, String pattern, boolean expected) {
    assertThat(like(value, pattern)).as("'%s' LIKE '%s'", value, pattern).isEqualTo(expected);
  }

  @Test
  void wildcardsMatchNewlines() {
    assertThat(like("x\ny", "x_y")).isTrue();
    assertThat(like("x\ny", "x%")).isTrue();
    assertThat(like("x\ny", "%\n%")).isTrue();
  }

  /** Against a regex translation of the same rules, on random small strings and patterns. */
  @Test
  void agreesWithARegexReference() {
    long seed = 99;
    Random random = new Random(seed);
    String alphabet = "ab%_\\é";
    for (int i = 0; i < 20_000; i++) {
      String value = randomString(random, "abé%_\\", 6);
      String pattern = randomString(random, alphabet, 5);
      assertThat(like(value, pattern))
          .as("seed %d: '%s' LIKE '%s'", seed, value, pattern)
          .isEqualTo(reference(pattern).matcher(value).matches());
    }
  }

  private static String randomString(Random random, String alphabet, int maxLength) {
    StringBuilder sb = new StringBuilder();
    int n = random.nextInt(maxLength + 1);
    for (int i = 0; i < n; i++) {
      sb.append(alphabet.charAt(random.nextInt(alphabet.length())));
    }
    return sb.toString();
  }

  private static Pattern reference(String like) {
    StringBuilder regex = new StringBuilder();
    for (int i = 0; i < like.length(); i++) {
      char c = like.charAt(i);
      if (c == '\\' && i + 1 < like.length()) {
        regex.append(Pattern.quote(String.valueOf(like.charAt(++i))));
      } else if (c == '%') {
        regex.append(".*");
      } else if (c == '_') {
        regex.append('.');
      } else {
        regex.append(Pattern.quote(String.valueOf(c)));
      }
    }
    return Pattern.compile(regex.toString(), Pattern.DOTALL);
  }

  private static java.util.List<String> runs(String pattern) {
    return LikePattern.compile(pattern).literalRuns().stream()
        .map(b -> new String(b, StandardCharsets.UTF_8))
        .toList();
  }

  @Test
  void literalRunsAreThePartsBetweenWildcards() {
    assertThat(runs("abc")).containsExactly("abc");
    assertThat(runs("abc%")).containsExactly("abc");
    assertThat(runs("%abc")).containsExactly("abc");
    assertThat(runs("%abc%")).containsExactly("abc");
    assertThat(runs("ab%cd_e")).containsExactly("ab", "cd", "e");
    assertThat(runs("%a\\%b\\_c%")).containsExactly("a%b_c");
    assertThat(runs("_ü_%")).containsExactly("ü");
    assertThat(runs("%")).isEmpty();
    assertThat(runs("%_%")).isEmpty();
    assertThat(runs("")).isEmpty();
    // every value the pattern matches contains each run
    Random random = new Random(3);
    for (String pattern : new String[] {"a%b_c", "_x%yz%", "%q_r"}) {
      LikePattern p = LikePattern.compile(pattern);
      for (int i = 0; i < 20000; i++) {
        StringBuilder sb = new StringBuilder();
        for (int j = random.nextInt(8); j > 0; j--) {
          sb.append("abcxyzqr".charAt(random.nextInt(8)));
        }
        byte[] v = sb.toString().getBytes(StandardCharsets.UTF_8);
        if (p.matches(v, v.length)) {
          for (byte[] run : p.literalRuns()) {
            assertThat(sb.toString()).contains(new String(run, StandardCharsets.UTF_8));
          }
        }
      }
    }
  }
}
