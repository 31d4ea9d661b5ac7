package dev.lancelot.bench;

import java.io.BufferedOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The start of every vector benchmark: takes the options shared by all of them out of the command
 * line, checks the allocator when the benchmark runs lance-core ({@link FairAllocator}), and makes
 * every line printed to standard output and standard error start with the data set's name (and, on
 * a run with {@value FairAllocator#UNFAIR_FLAG}, with that mark), so no figure can be quoted
 * without them.
 *
 * <p>Options: {@code --data <name>} (or {@code --data=<name>}; default {@code synthetic-200k}, see
 * {@link DataSets}) and {@value FairAllocator#UNFAIR_FLAG}. What remains are the benchmark's own
 * positional arguments, in their documented order.
 */
final class BenchArgs {
  final String data;
  final String[] rest;

  private BenchArgs(String data, String[] rest) {
    this.data = data;
    this.rest = rest;
  }

  /**
   * For the benchmarks that take no {@code --data} ({@code FormatBenchmark}, {@code
   * ScanTypesBenchmark}): the allocator check and {@value FairAllocator#UNFAIR_FLAG} only; returns
   * the other arguments.
   */
  static String[] startWithoutData(String benchmark, String[] args) {
    return start(benchmark, args, true, false).rest;
  }

  /**
   * {@code runsLance}: whether the benchmark runs lance-core's native code (then the allocator is
   * checked).
   */
  static BenchArgs start(String benchmark, String[] args, boolean runsLance) {
    return start(benchmark, args, runsLance, true);
  }

  private static BenchArgs start(
      String benchmark, String[] args, boolean runsLance, boolean takesData) {
    List<String> rest = new ArrayList<>(Arrays.asList(args));
    boolean unfair = rest.remove(FairAllocator.UNFAIR_FLAG);
    String data = VectorBenchData.SYNTHETIC;
    for (int i = 0; takesData && i < rest.size(); i++) {
      String a = rest.get(i);
      if (a.equals("--data")) {
        if (i + 1 == rest.size()) {
          throw new IllegalArgumentException(
              "Cannot start "
                  + benchmark
                  + ": --data needs a data set name ("
                  + DataSets.NAMES
                  + ")");
        }
        data = rest.remove(i + 1);
        rest.remove(i);
        break;
      }
      if (a.startsWith("--data=")) {
        data = a.substring("--data=".length());
        rest.remove(i);
        break;
      }
    }
    for (String a : rest) {
      if (a.startsWith("--")) {
        throw new IllegalArgumentException(
            "Cannot start "
                + benchmark
                + ": unknown option "
                + a
                + " (options: "
                + (takesData ? "--data <" + DataSets.NAMES + ">, " : "")
                + FairAllocator.UNFAIR_FLAG
                + ")");
      }
    }
    data = DataSets.canonical(data);
    String mark = "";
    if (runsLance) {
      List<String> problems = FairAllocator.check(benchmark, unfair);
      if (!problems.isEmpty()) {
        mark = "[UNFAIR ALLOCATOR: " + String.join("; ", problems) + "] ";
      }
    }
    BenchArgs.mark = mark;
    label = takesData ? data : "";
    System.out.flush();
    System.err.flush();
    System.setOut(
        new PrintStream(
            new LineStart(
                new BufferedOutputStream(new FileOutputStream(FileDescriptor.out), 1 << 16)),
            true,
            StandardCharsets.UTF_8));
    // Standard error too: the engines' and Spark's log lines go there.
    System.setErr(
        new PrintStream(
            new LineStart(
                new BufferedOutputStream(new FileOutputStream(FileDescriptor.err), 1 << 16)),
            true,
            StandardCharsets.UTF_8));
    return new BenchArgs(data, rest.toArray(new String[0]));
  }

  private static volatile String mark = "";
  private static volatile String label = "";

  /**
   * Names the data set in the line prefix once its full name is known (e.g. {@code minilm-61234}).
   */
  static void relabel(String name) {
    label = name;
  }

  /** Puts the prefix at the start of every line. */
  private static final class LineStart extends OutputStream {
    private final OutputStream out;
    private boolean atStart = true;

    LineStart(OutputStream out) {
      this.out = out;
    }

    @Override
    public synchronized void write(int b) throws java.io.IOException {
      if (atStart) {
        out.write(
            (mark + (label.isEmpty() ? "" : "[data " + label + "] "))
                .getBytes(StandardCharsets.UTF_8));
        atStart = false;
      }
      out.write(b);
      if (b == '\n') {
        atStart = true;
      }
    }

    @Override
    public synchronized void write(byte[] b, int off, int len) throws java.io.IOException {
      for (int i = off; i < off + len; i++) {
        write(b[i]);
      }
    }

    @Override
    public void flush() throws java.io.IOException {
      out.flush();
    }
  }
}
