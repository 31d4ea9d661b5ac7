package dev.lancelot.cli;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.Tag;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * {@code tags (list | create | update | delete) <dataset> [<tag>] [--version V] [--branch B]
 * [--json]}: the dataset's tags ({@link Dataset#tags()}, Lance 7's {@code _refs/tags/}). {@code
 * create} and {@code update} tag {@code --version} (default: the latest) of {@code --branch}
 * (default: main).
 */
final class TagsCommand {
  static final String USAGE =
      "tags (list | create | update | delete) <dataset> [<tag>] [--version V] [--branch B] [--json]";

  private TagsCommand() {}

  static int run(List<String> raw, PrintStream out) {
    Args a = Args.parse(raw, Set.of("version", "branch"), Set.of("json"));
    String action = a.positional(0, "list, create, update or delete");
    String location = a.positional(1, "<dataset>");
    try (Dataset ds = Dataset.open(location)) {
      List<Tag> shown = new ArrayList<>();
      switch (action) {
        case "list" -> {
          noMore(a, 2);
          shown.addAll(ds.tags().list());
        }
        case "create", "update" -> {
          String name = a.positional(2, "<tag>");
          noMore(a, 3);
          Optional<String> branch = Optional.ofNullable(a.get("branch"));
          long version = version(a, location, branch);
          shown.add(
              action.equals("create")
                  ? ds.tags().create(name, version, branch)
                  : ds.tags().update(name, version, branch));
        }
        case "delete" -> {
          String name = a.positional(2, "<tag>");
          noMore(a, 3);
          Tag t = ds.tags().get(name);
          ds.tags().delete(name);
          shown.add(t);
        }
        default ->
            throw new Args.UsageException(
                "unknown tags action \"" + action + "\"; use list, create, update or delete");
      }
      if (a.flag("json")) {
        List<Map<String, Object>> rows = new ArrayList<>();
        for (Tag t : shown) {
          Map<String, Object> m = new LinkedHashMap<>();
          m.put("name", t.name());
          m.put("branch", t.branch().orElse("main"));
          m.put("version", t.version());
          m.put("created_at", t.createdAt().map(Object::toString).orElse(null));
          m.put("updated_at", t.updatedAt().map(Object::toString).orElse(null));
          rows.add(m);
        }
        out.println(JsonRows.json(Map.of("action", action, "tags", rows)));
      } else {
        String verb =
            switch (action) {
              case "create" -> "created ";
              case "update" -> "moved ";
              case "delete" -> "deleted ";
              default -> "";
            };
        if (shown.isEmpty()) {
          out.println("(no tags)");
        }
        for (Tag t : shown) {
          out.printf(
              "%s%-20s %s version %d%n", verb, t.name(), t.branch().orElse("main"), t.version());
        }
      }
    }
    return 0;
  }

  private static void noMore(Args a, int expected) {
    if (a.positionalCount() > expected) {
      throw new Args.UsageException(
          "unexpected argument \"" + a.positional(expected, "") + "\"; options start with --");
    }
  }

  /** {@code --version}, or the latest version of the branch. */
  private static long version(Args a, String location, Optional<String> branch) {
    if (a.has("version")) {
      return a.intOption("version");
    }
    dev.lancelot.engine.OpenOptions open = dev.lancelot.engine.OpenOptions.defaults();
    if (branch.isPresent()) {
      open = open.withBranch(branch.get());
    }
    try (Dataset ds = Dataset.open(location, open)) {
      return ds.version();
    }
  }
}
