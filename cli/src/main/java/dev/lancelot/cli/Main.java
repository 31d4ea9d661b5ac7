package dev.lancelot.cli;

import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.LancelotException;
import java.io.PrintStream;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntSupplier;

/**
 * Entry point of {@code ./lancelot}. Exit codes: 0 success; 2 bad input (a usage error or an {@link
 * InvalidInputException}: one line on stderr saying what to change); 3 a failure the input did not
 * cause (another {@link LancelotException}: storage, damaged or unsupported data, a concurrent
 * writer; one line); 1 an internal error, i.e. a bug (any other exception: a message asking to
 * report it, and the stack trace).
 */
public final class Main {
  static final int BAD_INPUT = 2;
  static final int FAILURE = 3;
  static final int INTERNAL_ERROR = 1;

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
    return reportingErrors(
        command,
        err,
        () ->
            switch (command) {
              case "info" -> InfoCommand.run(rest, out);
              case "search" -> SearchCommand.run(SearchCommand.Mode.SEARCH, rest, out);
              case "explain" -> SearchCommand.run(SearchCommand.Mode.EXPLAIN, rest, out);
              case "analyze" -> SearchCommand.run(SearchCommand.Mode.ANALYZE, rest, out);
              case "recall" -> RecallCommand.run(rest, out);
              case "create-index" -> CreateIndexCommand.run(rest, out);
              case "create-scalar-index" -> CreateScalarIndexCommand.run(rest, out);
              case "optimize-indices" -> OptimizeIndicesCommand.run(rest, out);
              case "drop-index" -> DropIndexCommand.run(rest, out);
              case "compact" -> CompactCommand.run(rest, out);
              case "cleanup" -> CleanupCommand.run(rest, out);
              case "restore" -> RestoreCommand.run(rest, out);
              case "tags" -> TagsCommand.run(rest, out);
              case "branches" -> BranchesCommand.run(rest, out);
              default ->
                  throw new Args.UsageException(
                      "unknown command \"" + command + "\"; run ./lancelot help");
            });
  }

  /** Runs {@code body} and turns what it throws into a message on {@code err} and an exit code. */
  static int reportingErrors(String command, PrintStream err, IntSupplier body) {
    try {
      return body.getAsInt();
    } catch (Args.UsageException | InvalidInputException e) {
      err.println("lancelot " + command + ": " + oneLine(e.getMessage()));
      return BAD_INPUT;
    } catch (LancelotException e) {
      err.println("lancelot " + command + ": " + oneLine(e.getMessage()));
      return FAILURE;
    } catch (RuntimeException e) {
      err.println(
          "lancelot "
              + command
              + ": internal error (a bug in lancelot; please report it with the stack trace "
              + "below): "
              + oneLine(String.valueOf(e)));
      e.printStackTrace(err);
      return INTERNAL_ERROR;
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
          %s
          %s
          %s
          %s

        Human-readable output by default, JSON with --json. Index builds log progress on stderr.
        Exit codes: 0 success, 2 bad input (one line on stderr saying what to change), 3 failure
        not caused by the input (storage, damaged data, a concurrent writer), 1 internal error (a bug).
        Full reference: docs/cli.md.
        """
        .formatted(
            InfoCommand.USAGE,
            SearchCommand.OPTIONS,
            SearchCommand.OPTIONS,
            SearchCommand.OPTIONS,
            RecallCommand.USAGE,
            CreateIndexCommand.USAGE,
            CreateScalarIndexCommand.USAGE,
            OptimizeIndicesCommand.USAGE,
            DropIndexCommand.USAGE,
            CompactCommand.USAGE,
            CleanupCommand.USAGE,
            RestoreCommand.USAGE,
            TagsCommand.USAGE,
            BranchesCommand.USAGE);
  }
}
