package dev.lancelot.engine.internal.index.text;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lancelot.engine.LancelotException;
import java.text.Normalizer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The text analysis of a Lance inverted index, from its stored tokenizer parameters, in Lance's
 * order (SPEC T7): the {@code simple} base tokenizer (a token is a maximal run of alphabetic or
 * numeric characters), then dropping tokens of {@code max_token_length} UTF-8 bytes or more,
 * lower-casing, English stemming ({@link EnglishStemmer}), dropping stop words (Lance's English
 * list or the index's custom list, compared with the stemmed token), and ASCII folding. Other base
 * tokenizers, and stemming or built-in stop words of another language, are refused by name.
 */
public final class TextAnalyzer {
  /** Folds of Latin letters that no Unicode decomposition gives. */
  private static final Map<Integer, String> FOLDS =
      Map.ofEntries(
          Map.entry((int) 'Æ', "AE"),
          Map.entry((int) 'æ', "ae"),
          Map.entry((int) 'Ø', "O"),
          Map.entry((int) 'ø', "o"),
          Map.entry((int) 'ß', "ss"),
          Map.entry((int) 'Œ', "OE"),
          Map.entry((int) 'œ', "oe"),
          Map.entry((int) 'Ł', "L"),
          Map.entry((int) 'ł', "l"),
          Map.entry((int) 'Đ', "D"),
          Map.entry((int) 'đ', "d"),
          Map.entry((int) 'Ð', "D"),
          Map.entry((int) 'ð', "d"),
          Map.entry((int) 'Þ', "TH"),
          Map.entry((int) 'þ', "th"),
          Map.entry((int) 'ı', "i"),
          Map.entry((int) 'Ħ', "H"),
          Map.entry((int) 'ħ', "h"),
          Map.entry((int) 'Ŧ', "T"),
          Map.entry((int) 'ŧ', "t"),
          Map.entry((int) 'ŋ', "n"),
          Map.entry((int) 'Ŋ', "N"),
          Map.entry((int) 'ſ', "s"));

  /** Lance's English stop words (removed after stemming, so compared with stemmed tokens). */
  static final Set<String> ENGLISH_STOP_WORDS =
      Set.of(
          "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is",
          "it", "no", "not", "of", "on", "or", "such", "that", "the", "their", "then", "there",
          "these", "they", "this", "to", "was", "will", "with");

  private final Integer maxTokenLength;
  private final boolean lowerCase;
  private final boolean stem;
  private final Set<String> stopWords;
  private final boolean asciiFolding;

  private TextAnalyzer(
      Integer maxTokenLength,
      boolean lowerCase,
      boolean stem,
      Set<String> stopWords,
      boolean asciiFolding) {
    this.maxTokenLength = maxTokenLength;
    this.lowerCase = lowerCase;
    this.stem = stem;
    this.stopWords = stopWords;
    this.asciiFolding = asciiFolding;
  }

  /**
   * The analyzer of an index whose parameters are {@code params} (the JSON Lance stores); refuses
   * settings this engine does not reproduce, naming {@code index}.
   */
  public static TextAnalyzer of(JsonNode params, String index) {
    String base = text(params, "base_tokenizer", "simple");
    String document = text(params, "lance_tokenizer", "text");
    if (!base.equals("simple")) {
      throw refuse(index, "its base tokenizer is \"" + base + "\" (only \"simple\" is read)");
    }
    if (!document.equals("text")) {
      throw refuse(index, "it tokenizes \"" + document + "\" documents (only \"text\" is read)");
    }
    boolean stem = params.path("stem").asBoolean(false);
    boolean removeStopWords = params.path("remove_stop_words").asBoolean(false);
    JsonNode custom = params.path("custom_stop_words");
    boolean customStops = custom.isArray();
    String language = text(params, "language", "English");
    if ((stem || (removeStopWords && !customStops)) && !language.equals("English")) {
      throw refuse(
          index,
          "it "
              + (stem ? "stems tokens" : "removes stop words")
              + " for language \""
              + language
              + "\" (only English is reproduced)");
    }
    Set<String> stopWords = null;
    if (removeStopWords) {
      if (customStops) {
        stopWords = new HashSet<>();
        for (JsonNode w : custom) {
          stopWords.add(w.asText());
        }
      } else {
        stopWords = ENGLISH_STOP_WORDS;
      }
    }
    JsonNode max = params.path("max_token_length");
    Integer maxLength =
        max.isMissingNode() ? Integer.valueOf(40) : max.isNull() ? null : max.asInt();
    return new TextAnalyzer(
        maxLength,
        params.path("lower_case").asBoolean(true),
        stem,
        stopWords,
        params.path("ascii_folding").asBoolean(true));
  }

  private static String text(JsonNode params, String key, String absent) {
    JsonNode n = params.path(key);
    return n.isMissingNode() || n.isNull() ? absent : n.asText();
  }

  private static LancelotException refuse(String index, String why) {
    return new LancelotException("Cannot search the inverted index " + index + ": " + why + ".");
  }

  /** The tokens of {@code text}, in order (repeats kept). */
  public List<String> tokens(String text) {
    List<String> out = new ArrayList<>();
    int i = 0;
    int n = text.length();
    while (i < n) {
      int cp = text.codePointAt(i);
      if (!wordChar(cp)) {
        i += Character.charCount(cp);
        continue;
      }
      int start = i;
      while (i < n && wordChar(text.codePointAt(i))) {
        i += Character.charCount(text.codePointAt(i));
      }
      String token = text.substring(start, i);
      if (maxTokenLength != null && utf8Length(token) >= maxTokenLength) {
        continue;
      }
      if (lowerCase) {
        token = token.toLowerCase(Locale.ROOT);
      }
      if (stem) {
        token = EnglishStemmer.stem(token);
      }
      if (stopWords != null && stopWords.contains(token)) {
        continue;
      }
      if (asciiFolding) {
        token = fold(token);
      }
      out.add(token);
    }
    return out;
  }

  /** Rust's {@code char::is_alphanumeric}: the Alphabetic property or a numeric category. */
  static boolean wordChar(int cp) {
    if (Character.isAlphabetic(cp)) {
      return true;
    }
    int type = Character.getType(cp);
    return type == Character.DECIMAL_DIGIT_NUMBER
        || type == Character.LETTER_NUMBER
        || type == Character.OTHER_NUMBER;
  }

  private static int utf8Length(String s) {
    int bytes = 0;
    for (int i = 0; i < s.length(); ) {
      int cp = s.codePointAt(i);
      bytes += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
      i += Character.charCount(cp);
    }
    return bytes;
  }

  /**
   * ASCII folding of Latin letters: a letter whose compatibility decomposition is ASCII plus
   * combining marks becomes that ASCII, a few letters without a decomposition by the table above;
   * other characters are kept.
   */
  static String fold(String token) {
    boolean ascii = true;
    for (int i = 0; i < token.length() && ascii; i++) {
      ascii = token.charAt(i) < 0x80;
    }
    if (ascii) {
      return token;
    }
    StringBuilder out = new StringBuilder(token.length());
    for (int i = 0; i < token.length(); ) {
      int cp = token.codePointAt(i);
      i += Character.charCount(cp);
      if (cp < 0x80) {
        out.appendCodePoint(cp);
        continue;
      }
      String fixed = FOLDS.get(cp);
      if (fixed != null) {
        out.append(fixed);
        continue;
      }
      String d = Normalizer.normalize(new String(Character.toChars(cp)), Normalizer.Form.NFKD);
      StringBuilder base = new StringBuilder();
      boolean ok = true;
      for (int j = 0; j < d.length() && ok; j++) {
        char c = d.charAt(j);
        if (c < 0x80) {
          base.append(c);
        } else if (Character.getType(c) != Character.NON_SPACING_MARK) {
          ok = false;
        }
      }
      if (ok && base.length() > 0) {
        out.append(base);
      } else {
        out.appendCodePoint(cp);
      }
    }
    return out.toString();
  }
}
