package dev.lancelot.engine;

import java.util.Collection;
import java.util.Locale;

/**
 * The valid name nearest to a misspelt one, for error messages that say "did you mean …": the
 * candidate with the smallest edit distance (insertions, deletions, substitutions), ignoring case;
 * the first such candidate in iteration order on a tie.
 */
public final class ClosestName {
  private ClosestName() {}

  /** The candidate nearest to {@code name}; {@code candidates} must not be empty. */
  public static String closest(String name, Collection<String> candidates) {
    if (candidates.isEmpty()) {
      throw new IllegalArgumentException("no candidate names");
    }
    String key = name.toLowerCase(Locale.ROOT);
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (String candidate : candidates) {
      int d = editDistance(key, candidate.toLowerCase(Locale.ROOT));
      if (d < bestDistance) {
        best = candidate;
        bestDistance = d;
      }
    }
    return best;
  }

  static int editDistance(String a, String b) {
    int[] previous = new int[b.length() + 1];
    int[] current = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      previous[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      current[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int substitute = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
        current[j] = Math.min(substitute, Math.min(previous[j] + 1, current[j - 1] + 1));
      }
      int[] t = previous;
      previous = current;
      current = t;
    }
    return previous[b.length()];
  }
}
