package dev.lancelot.engine.internal.index.text;

import java.util.Map;
import java.util.Set;

/**
 * The Snowball English ("Porter2") stemming algorithm as published at snowballstem.org, the stemmer
 * Lance applies for {@code language = English}. A word is processed as a sequence of code points;
 * only ASCII letters take part in the rules (any other character is a non-vowel).
 *
 * <p>Steps, in order: exceptional words; words under three letters unchanged; prelude (drop an
 * initial apostrophe, mark {@code y} at the start or after a vowel as a consonant {@code Y});
 * regions R1 and R2; steps 0, 1a; a second list of exceptional words; steps 1b, 1c, 2, 3, 4, 5;
 * {@code Y} back to {@code y}. Each step finds the longest suffix of its list and applies that
 * suffix's rule only (a failed condition does not fall back to a shorter suffix).
 */
final class EnglishStemmer {
  private static final Map<String, String> EXCEPTIONS_1 =
      Map.ofEntries(
          Map.entry("skis", "ski"),
          Map.entry("skies", "sky"),
          Map.entry("dying", "die"),
          Map.entry("lying", "lie"),
          Map.entry("tying", "tie"),
          Map.entry("idly", "idl"),
          Map.entry("gently", "gentl"),
          Map.entry("ugly", "ugli"),
          Map.entry("early", "earli"),
          Map.entry("only", "onli"),
          Map.entry("singly", "singl"),
          Map.entry("sky", "sky"),
          Map.entry("news", "news"),
          Map.entry("howe", "howe"),
          Map.entry("atlas", "atlas"),
          Map.entry("cosmos", "cosmos"),
          Map.entry("bias", "bias"),
          Map.entry("andes", "andes"));

  private static final Set<String> EXCEPTIONS_2 =
      Set.of("inning", "outing", "canning", "herring", "earring", "proceed", "exceed", "succeed");

  /** Prefixes after which R1 starts, whatever the general rule says. */
  private static final String[] R1_PREFIXES = {"gener", "commun", "arsen"};

  private static final String[] STEP_1A = {"sses", "ied", "ies", "us", "ss", "s"};
  private static final String[] STEP_1B = {"eedly", "ingly", "edly", "eed", "ing", "ed"};
  private static final String[] STEP_2 = {
    "ization", "ational", "fulness", "ousness", "iveness", "tional", "biliti", "lessli", "entli",
    "ation", "alism", "aliti", "ousli", "iviti", "fulli", "enci", "anci", "abli", "izer", "ator",
    "alli", "bli", "ogi", "li"
  };
  private static final String[] STEP_3 = {
    "ational", "tional", "alize", "icate", "iciti", "ative", "ical", "ness", "ful"
  };
  private static final String[] STEP_4 = {
    "ement", "ance", "ence", "able", "ible", "ment", "ant", "ent", "ism", "ate", "iti", "ous",
    "ive", "ize", "ion", "al", "er", "ic"
  };

  private int[] w;
  private int len;
  private int p1;
  private int p2;

  private EnglishStemmer() {}

  /** The stem of {@code word}. */
  static String stem(String word) {
    String exception = EXCEPTIONS_1.get(word);
    if (exception != null) {
      return exception;
    }
    if (word.codePointCount(0, word.length()) < 3) {
      return word;
    }
    EnglishStemmer s = new EnglishStemmer();
    s.w = word.codePoints().toArray();
    s.len = s.w.length;
    return s.run();
  }

  private String run() {
    prelude();
    markRegions();
    step0();
    step1a();
    if (!EXCEPTIONS_2.contains(current())) {
      step1b();
      step1c();
      step2();
      step3();
      step4();
      step5();
    }
    for (int i = 0; i < len; i++) {
      if (w[i] == 'Y') {
        w[i] = 'y';
      }
    }
    return current();
  }

  private String current() {
    return new String(w, 0, len);
  }

  private static boolean vowel(int c) {
    return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u' || c == 'y';
  }

  private boolean vowelAt(int i) {
    return vowel(w[i]);
  }

  private void prelude() {
    if (len > 0 && w[0] == '\'') {
      System.arraycopy(w, 1, w, 0, len - 1);
      len--;
    }
    if (len > 0 && w[0] == 'y') {
      w[0] = 'Y';
    }
    for (int i = 1; i < len; i++) {
      if (w[i] == 'y' && vowelAt(i - 1)) {
        w[i] = 'Y';
      }
    }
  }

  /** The position just past the first non-vowel that follows a vowel, from {@code from}. */
  private int regionAfter(int from) {
    int i = from;
    while (i < len && !vowelAt(i)) {
      i++;
    }
    while (i < len && vowelAt(i)) {
      i++;
    }
    return i < len ? i + 1 : len;
  }

  private void markRegions() {
    p1 = -1;
    for (String prefix : R1_PREFIXES) {
      if (startsWith(prefix)) {
        p1 = prefix.length();
        break;
      }
    }
    if (p1 < 0) {
      p1 = regionAfter(0);
    }
    p2 = regionAfter(p1);
  }

  private boolean startsWith(String prefix) {
    if (prefix.length() > len) {
      return false;
    }
    for (int i = 0; i < prefix.length(); i++) {
      if (w[i] != prefix.charAt(i)) {
        return false;
      }
    }
    return true;
  }

  private boolean endsWith(String suffix) {
    int n = suffix.length();
    if (n > len) {
      return false;
    }
    for (int i = 0; i < n; i++) {
      if (w[len - n + i] != suffix.charAt(i)) {
        return false;
      }
    }
    return true;
  }

  /** The longest of {@code suffixes} (ordered longest first) the word ends with, or null. */
  private String longest(String[] suffixes) {
    for (String s : suffixes) {
      if (endsWith(s)) {
        return s;
      }
    }
    return null;
  }

  private void replace(String suffix, String by) {
    len -= suffix.length();
    int n = by.length();
    if (len + n > w.length) {
      w = java.util.Arrays.copyOf(w, len + n);
    }
    for (int i = 0; i < n; i++) {
      w[len + i] = by.charAt(i);
    }
    len += n;
  }

  private boolean inR1(String suffix) {
    return len - suffix.length() >= p1;
  }

  private boolean inR2(String suffix) {
    return len - suffix.length() >= p2;
  }

  private boolean hasVowelBefore(int end) {
    for (int i = 0; i < end; i++) {
      if (vowelAt(i)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether the word ends in a short syllable: a non-vowel other than w, x or Y after a vowel after
   * a non-vowel, or, for a word of two letters, a non-vowel after a vowel.
   */
  private boolean endsShort() {
    if (len >= 3
        && !vowelAt(len - 1)
        && w[len - 1] != 'w'
        && w[len - 1] != 'x'
        && w[len - 1] != 'Y'
        && vowelAt(len - 2)
        && !vowelAt(len - 3)) {
      return true;
    }
    return len == 2 && vowelAt(0) && !vowelAt(1);
  }

  private void step0() {
    for (String s : new String[] {"'s'", "'s", "'"}) {
      if (endsWith(s)) {
        len -= s.length();
        return;
      }
    }
  }

  private void step1a() {
    String s = longest(STEP_1A);
    if (s == null) {
      return;
    }
    switch (s) {
      case "sses" -> replace(s, "ss");
      case "ied", "ies" -> replace(s, len - s.length() >= 2 ? "i" : "ie");
      case "s" -> {
        if (hasVowelBefore(len - 2)) {
          len--;
        }
      }
      default -> {
        // "us" and "ss" stay.
      }
    }
  }

  private void step1b() {
    String s = longest(STEP_1B);
    if (s == null) {
      return;
    }
    if (s.startsWith("eed")) {
      if (inR1(s)) {
        replace(s, "ee");
      }
      return;
    }
    if (!hasVowelBefore(len - s.length())) {
      return;
    }
    len -= s.length();
    if (endsWith("at") || endsWith("bl") || endsWith("iz")) {
      replace("", "e");
    } else if (endsDouble()) {
      len--;
    } else if (p1 >= len && endsShort()) {
      replace("", "e");
    }
  }

  private boolean endsDouble() {
    if (len < 2 || w[len - 1] != w[len - 2]) {
      return false;
    }
    int c = w[len - 1];
    return c == 'b' || c == 'd' || c == 'f' || c == 'g' || c == 'm' || c == 'n' || c == 'p'
        || c == 'r' || c == 't';
  }

  private void step1c() {
    if (len >= 3 && (w[len - 1] == 'y' || w[len - 1] == 'Y') && !vowelAt(len - 2)) {
      w[len - 1] = 'i';
    }
  }

  private static boolean validLi(int c) {
    return c == 'c' || c == 'd' || c == 'e' || c == 'g' || c == 'h' || c == 'k' || c == 'm'
        || c == 'n' || c == 'r' || c == 't';
  }

  private void step2() {
    String s = longest(STEP_2);
    if (s == null || !inR1(s)) {
      return;
    }
    switch (s) {
      case "tional" -> replace(s, "tion");
      case "enci" -> replace(s, "ence");
      case "anci" -> replace(s, "ance");
      case "abli" -> replace(s, "able");
      case "entli" -> replace(s, "ent");
      case "izer", "ization" -> replace(s, "ize");
      case "ational", "ation", "ator" -> replace(s, "ate");
      case "alism", "aliti", "alli" -> replace(s, "al");
      case "fulness" -> replace(s, "ful");
      case "ousli", "ousness" -> replace(s, "ous");
      case "iveness", "iviti" -> replace(s, "ive");
      case "biliti", "bli" -> replace(s, "ble");
      case "ogi" -> {
        if (len > 3 && w[len - 4] == 'l') {
          replace(s, "og");
        }
      }
      case "fulli" -> replace(s, "ful");
      case "lessli" -> replace(s, "less");
      default -> {
        if (len > 2 && validLi(w[len - 3])) {
          len -= 2;
        }
      }
    }
  }

  private void step3() {
    String s = longest(STEP_3);
    if (s == null || !inR1(s)) {
      return;
    }
    switch (s) {
      case "tional" -> replace(s, "tion");
      case "ational" -> replace(s, "ate");
      case "alize" -> replace(s, "al");
      case "icate", "iciti", "ical" -> replace(s, "ic");
      case "ful", "ness" -> len -= s.length();
      default -> {
        if (inR2(s)) {
          len -= s.length();
        }
      }
    }
  }

  private void step4() {
    String s = longest(STEP_4);
    if (s == null || !inR2(s)) {
      return;
    }
    if (s.equals("ion")) {
      if (len > 3 && (w[len - 4] == 's' || w[len - 4] == 't')) {
        len -= 3;
      }
      return;
    }
    len -= s.length();
  }

  private void step5() {
    if (endsWith("e")) {
      if (inR2("e")) {
        len--;
      } else if (inR1("e")) {
        len--;
        boolean shortBefore = endsShort();
        if (shortBefore) {
          len++;
        }
      }
    } else if (endsWith("l") && inR2("l") && len > 1 && w[len - 2] == 'l') {
      len--;
    }
  }
}
