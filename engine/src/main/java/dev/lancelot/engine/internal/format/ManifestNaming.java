package dev.lancelot.engine.internal.format;

import dev.lancelot.engine.LancelotException;
import java.util.Optional;

/**
 * Names of manifest files in {@code _versions/}.
 *
 * <ul>
 *   <li>V1: {@code {version}.manifest}, e.g. {@code 3.manifest}.
 *   <li>V2: {@code {u64::MAX - version}.manifest} zero-padded to 20 digits, so a lexicographic
 *       listing shows the newest version first; version 1 is {@code 18446744073709551614.manifest}.
 * </ul>
 *
 * A directory mixing both schemes is refused. Detached versions ({@code d} prefix) are ignored.
 */
public enum ManifestNaming {
  V1,
  V2;

  public static final String SUFFIX = ".manifest";
  private static final int V2_DIGITS = 20;

  public String fileName(long version) {
    if (version < 1) {
      throw new IllegalArgumentException("Versions start at 1, got " + version);
    }
    return switch (this) {
      case V1 -> version + SUFFIX;
      case V2 -> pad20(Long.toUnsignedString(-1L - version)) + SUFFIX;
    };
  }

  private static String pad20(String digits) {
    return "0".repeat(V2_DIGITS - digits.length()) + digits;
  }

  /** A parsed manifest file name. */
  public record Parsed(long version, ManifestNaming naming) {}

  /**
   * Parses a file name from {@code _versions/}. Returns empty for anything that is not a manifest
   * (temporary files, the version hint, detached versions).
   */
  public static Optional<Parsed> parse(String fileName) {
    if (!fileName.endsWith(SUFFIX) || fileName.startsWith(".") || fileName.startsWith("d")) {
      return Optional.empty();
    }
    String stem = fileName.substring(0, fileName.length() - SUFFIX.length());
    if (stem.isEmpty() || !stem.chars().allMatch(Character::isDigit)) {
      return Optional.empty();
    }
    try {
      if (stem.length() == V2_DIGITS) {
        long inverted = Long.parseUnsignedLong(stem);
        return Optional.of(new Parsed(-1L - inverted, V2));
      }
      return Optional.of(new Parsed(Long.parseLong(stem), V1));
    } catch (NumberFormatException e) {
      throw new LancelotException(
          "Cannot parse manifest file name " + fileName + ": version out of range");
    }
  }
}
