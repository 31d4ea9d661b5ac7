package dev.lancelot.cli;

import dev.lancelot.engine.Branch;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.OpenOptions;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * {@code branches (list | create | delete) <dataset> [<branch>] [--version V] [--from B] [--tag T]
 * [--json]}: the dataset's branches (Lance 7's {@code _refs/branches/} and {@code tree/<name>/},
 * decision D58). {@code create} branches from {@code --version} (default: the latest) of {@code
 * --from} (default: main), or from the version {@code --tag} names.
 */
final class BranchesCommand {
  static final String USAGE =
      "branches (list | create | delete) <dataset> [<branch>] [--version V] [--from B] [--tag T]"
          + " [--json]";

  private BranchesCommand() {}

  static int run(List<String> raw, PrintStream out) {
    Args a = Args.parse(raw, Set.of("version", "from", "tag"), Set.of("json"));
    String action = a.positional(0, "list, create or delete");
    String location = a.positional(1, "<dataset>");
    try (Dataset ds = Dataset.open(location)) {
      List<Branch> shown = new ArrayList<>();
      switch (action) {
        case "list" -> {
          noMore(a, 2);
          shown.addAll(ds.branches());
        }
        case "create" -> {
          String name = a.positional(2, "<branch>");
          noMore(a, 3);
          if (a.has("tag")) {
            if (a.has("version") || a.has("from")) {
              throw new Args.UsageException(
                  "give --tag, or --version and --from, not both: the tag names the version and "
                      + "its branch");
            }
            shown.add(ds.createBranchFromTag(name, a.get("tag")));
          } else {
            Optional<String> from = Optional.ofNullable(a.get("from"));
            shown.add(ds.createBranch(name, from, version(a, location, from)));
          }
        }
        case "delete" -> {
          String name = a.positional(2, "<branch>");
          noMore(a, 3);
          Optional<Branch> b = ds.branches().stream().filter(x -> x.name().equals(name)).findAny();
          ds.deleteBranch(name); // a missing branch is an error naming the branches
          b.ifPresent(shown::add);
        }
        default ->
            throw new Args.UsageException(
                "unknown branches action \"" + action + "\"; use list, create or delete");
      }
      if (a.flag("json")) {
        List<Map<String, Object>> rows = new ArrayList<>();
        for (Branch b : shown) {
          Map<String, Object> m = new LinkedHashMap<>();
          m.put("name", b.name());
          m.put("parent_branch", b.parentBranch().orElse("main"));
          m.put("parent_version", b.parentVersion());
          m.put("created_at", b.createdAt().toString());
          rows.add(m);
        }
        out.println(JsonRows.json(Map.of("action", action, "branches", rows)));
      } else {
        String verb =
            switch (action) {
              case "create" -> "created ";
              case "delete" -> "deleted ";
              default -> "";
            };
        if (shown.isEmpty()) {
          out.println("(no branches)");
        }
        for (Branch b : shown) {
          out.printf(
              "%s%-20s from %s version %d%n",
              verb, b.name(), b.parentBranch().orElse("main"), b.parentVersion());
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

  /** {@code --version}, or the latest version of the branch created from. */
  private static long version(Args a, String location, Optional<String> from) {
    if (a.has("version")) {
      return a.intOption("version");
    }
    OpenOptions open = OpenOptions.defaults();
    if (from.isPresent()) {
      open = open.withBranch(from.get());
    }
    try (Dataset ds = Dataset.open(location, open)) {
      return ds.version();
    }
  }
}
