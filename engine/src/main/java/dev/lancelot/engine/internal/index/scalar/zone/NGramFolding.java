package dev.lancelot.engine.internal.index.scalar.zone;

import java.util.HashMap;
import java.util.Map;

/**
 * ASCII foldings of letters with no compatibility decomposition to ASCII (the rest fold by
 * decomposition, {@link NGramText#fold}): the characters where decomposition alone differed from
 * lance-core 7's folding (checked on every character of Unicode planes 0 and 1 by the n-gram build
 * oracle test).
 */
final class NGramFolding {
  private static final Map<Integer, String> TABLE = new HashMap<>();

  static {
    put("ß", "ss");
    put("æ", "ae");
    put("œ", "oe");
    put("ø", "o");
    put("đ", "d");
    put("ð", "d");
    put("ł", "l");
    put("þ", "th");
    put("ı", "i");
    put("ħ", "h");
    put("ŧ", "t");
    put("ŋ", "n");
    put("ĸ", "k");
    // reached only through a decomposition (lower-casing comes first), so still upper-case
    put("Æ", "AE");
    put("Ħ", "H");
  }

  private NGramFolding() {}

  private static void put(String from, String to) {
    TABLE.put(from.codePointAt(0), to);
  }

  static String fold(int cp) {
    return TABLE.get(cp);
  }
}
