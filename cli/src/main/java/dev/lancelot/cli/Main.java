package dev.lancelot.cli;

import dev.lancelot.engine.LancelotException;
import java.io.PrintStream;
import java.util.Arrays;
import java.util.List;

/**
 * Entry point of {@code ./lancelot}. Exit codes: 0 success, 2 bad input (one line on stderr
 * saying what to change), 1 unexpected failure.
 */
public final class Main {
  private Main() {}

  public static void main(String[] argv) {
    System.exit(run(Arrays.asList(argv), System.out, System.err));
  }

  static int run(List<String> argv, PrintStream out, PrintStream err) {
    if (argv.isEmpty() || argv.get(0).equals("help") || argv.get(0).equals("--help")) {
      out.print(usage());
      return argv.isEmpty() ? 2 : 0;
    }
    String command = argv.get(0);
    List<String> rest = argv.subList(1, argv.size());
    try {
      return switch (command) {
        case "info" -> InfoCommand.run(rest, out);
        case "search" -> SearchCommand.run(SearchCommand.Mode.SEARCH, rest, out);
        case "explain" -> SearchCommand.run(SearchCommand.Mode.EXPLAIN, rest, out);
        case "analyze" -> SearchCommand.run(SearchCommand.Mode.ANALYZE, rest, out);
        case "recall" -> RecallCommand.run(rest, out);
        case "create-index" -> CreateIndexCommand.run(rest, out);
        case "create-scalar-index" -> CreateScalarIndexCommand.run(rest, out);
        case "optimize-indices" -> OptimizeIndicesCommand.run(rest, out);
        case "compact" -> CompactCommand.run(rest, out);
        case "cleanup" -> CleanupCommand.run(rest, out);
        default -> throw new Args.UsageException("unknown command \"" + command + "\"; run ./lancelot help");
      };
    } catch (Args.UsageException | LancelotException | IllegalArgumentException e) {
      err.println("lancelot " + command + ": " + oneLine(e.getMessage()));
      return 2;
    } catch (RuntimeException e) {
      err.println("lancelot " + command + ": unexpected failure: " + oneLine(String.valueOf(e)));
      e.printStackTrace(err);
      return 1;
    }
  }

  private static String oneLine(String s) {
    return s == null ? "(no message)" : s.replace('\n', ' ');
  }

  static String usage() {
    return """
        lancelot: Lance datasets and vector search from the command line.
        <dataset> is a local directory or any Hadoop path (file:, hdfs:, s3a:, ...).

        commands:
          %s
          search  %s
          explain %s
          analyze %s
          %s
          %s
          %s
          %s
          %s
          %s

        Human-readable output by default, JSON with --json. Index builds log progress on stderr.
        Exit codes: 0 success, 2 bad input (one line on stderr saying what to change), 1 failure.
        Full reference: docs/cli.md.
        """.formatted(InfoCommand.USAGE, SearchCommand.OPTIONS, SearchCommand.OPTIONS, SearchCommand.OPTIONS,
        RecallCommand.USAGE, CreateIndexCommand.USAGE, CreateScalarIndexCommand.USAGE, OptimizeIndicesCommand.USAGE,
        CompactCommand.USAGE, CleanupCommand.USAGE);
  }
}
