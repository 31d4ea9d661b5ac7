package dev.lancelot.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Command-line arguments: positionals, {@code --name value} options and {@code --flag} switches.
 * Unknown options are refused with the list of known ones.
 */
final class Args {
  private final List<String> positionals = new ArrayList<>();
  private final Map<String, String> options = new LinkedHashMap<>();

  static Args parse(List<String> raw, Set<String> valued, Set<String> flags) {
    Args a = new Args();
    for (int i = 0; i < raw.size(); i++) {
      String s = raw.get(i);
      if (s.startsWith("--")) {
        String name = s.substring(2);
        String value = null;
        int eq = name.indexOf('=');
        if (eq > 0) {
          value = name.substring(eq + 1);
          name = name.substring(0, eq);
        }
        if (flags.contains(name) && value == null) {
          a.options.put(name, "true");
        } else if (valued.contains(name)) {
          if (value == null) {
            if (i + 1 >= raw.size()) {
              throw new UsageException("option --" + name + " needs a value");
            }
            value = raw.get(++i);
          }
          a.options.put(name, value);
        } else {
          List<String> known = new ArrayList<>();
          valued.forEach(v -> known.add("--" + v));
          flags.forEach(f -> known.add("--" + f));
          known.sort(String::compareTo);
          throw new UsageException(
              "unknown option --" + name + " (known: " + String.join(", ", known) + ")");
        }
      } else {
        a.positionals.add(s);
      }
    }
    return a;
  }

  /**
   * Which version to open, from {@code --version V}, {@code --tag T} (the version a tag names, on
   * its branch) and {@code --branch B} (a branch's latest version, or {@code --version}'s).
   */
  dev.lancelot.engine.OpenOptions openOptions() {
    dev.lancelot.engine.OpenOptions open = dev.lancelot.engine.OpenOptions.defaults();
    if (has("branch")) {
      open = open.withBranch(get("branch"));
    }
    if (has("version")) {
      open = open.withVersion(intOption("version"));
    }
    if (has("tag")) {
      open = open.withTag(get("tag"));
    }
    return open;
  }

  String positional(int i, String what) {
    if (i >= positionals.size()) {
      throw new UsageException("missing " + what);
    }
    return positionals.get(i);
  }

  int positionalCount() {
    return positionals.size();
  }

  String get(String name) {
    return options.get(name);
  }

  String get(String name, String fallback) {
    return options.getOrDefault(name, fallback);
  }

  boolean has(String name) {
    return options.containsKey(name);
  }

  boolean flag(String name) {
    return "true".equals(options.get(name));
  }

  Integer intOption(String name) {
    String v = options.get(name);
    if (v == null) {
      return null;
    }
    try {
      return Integer.parseInt(v.trim());
    } catch (NumberFormatException e) {
      throw new UsageException("option --" + name + " must be a whole number, got \"" + v + "\"");
    }
  }

  /** Comma-separated floats, e.g. {@code 0.1,0.2,-0.3}. */
  float[] floats(String name) {
    String v = options.get(name);
    String[] parts = v.split(",", -1);
    float[] out = new float[parts.length];
    for (int i = 0; i < parts.length; i++) {
      try {
        out[i] = Float.parseFloat(parts[i].trim());
      } catch (NumberFormatException e) {
        throw new UsageException(
            "option --"
                + name
                + " must be comma-separated numbers; \""
                + parts[i]
                + "\" is not a number");
      }
    }
    return out;
  }

  /** Thrown for command-line mistakes; printed as one line with exit code 2. */
  static final class UsageException extends RuntimeException {
    UsageException(String message) {
      super(message);
    }
  }
}
