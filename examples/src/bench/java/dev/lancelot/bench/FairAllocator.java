package dev.lancelot.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Start-up check of every benchmark that runs lance-core: its native code allocates with glibc
 * malloc, and with glibc's default thresholds each large per-query buffer is an mmap/munmap pair,
 * which makes Lance measure about twice as slow as it is. The {@code bench} Maven profile sets both
 * variables below for the benchmark JVM ({@code examples/pom.xml}); a JVM started any other way
 * must set them itself. Without them a benchmark refuses to start, unless it is given {@value
 * #UNFAIR_FLAG}; then every line it prints says so ({@link BenchArgs}).
 */
final class FairAllocator {
  static final String UNFAIR_FLAG = "--unfair-allocator";
  static final Map<String, String> REQUIRED =
      Map.of(
          "MALLOC_MMAP_THRESHOLD_", "67108864",
          "MALLOC_TRIM_THRESHOLD_", "268435456");

  /**
   * Checks this JVM's environment. Returns the problems found when the run goes on anyway because
   * {@code unfair} (the caller marks its output with them); returns an empty list on a fair run.
   * Exits the JVM with status 2 and a message on standard error when a variable is missing or has
   * another value and {@code unfair} is false.
   */
  static List<String> check(String benchmark, boolean unfair) {
    List<String> problems = problems(System.getenv());
    if (!problems.isEmpty() && !unfair) {
      System.err.println(refusal(benchmark, problems));
      System.exit(2);
    }
    return problems;
  }

  /** What is wrong with {@code env}, one entry per variable; empty when both are as required. */
  static List<String> problems(Map<String, String> env) {
    List<String> out = new ArrayList<>();
    for (String name : List.of("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_")) {
      String want = REQUIRED.get(name);
      String got = env.get(name);
      if (got == null) {
        out.add(name + " is not set (needs " + want + ")");
      } else if (!got.trim().equals(want)) {
        out.add(name + "=" + got + " (needs " + want + ")");
      }
    }
    return out;
  }

  static String refusal(String benchmark, List<String> problems) {
    return "Cannot start "
        + benchmark
        + ": lance-core's native allocator is not configured: "
        + String.join("; ", problems)
        + ". Without these glibc settings each large per-query buffer of Lance is an"
        + " mmap/munmap pair and Lance measures about 2x slower than it is, so the comparison would be unfair."
        + " Run it through the Maven bench profile (mvn -B -o -DskipTests -Pbench verify -pl examples -am"
        + " -Dbench.main=dev.lancelot.bench."
        + benchmark
        + " -Dbench.args=\"...\"), which sets both, or export"
        + " MALLOC_MMAP_THRESHOLD_=67108864 MALLOC_TRIM_THRESHOLD_=268435456 before starting the JVM. To run"
        + " anyway, pass "
        + UNFAIR_FLAG
        + " (every output line is then marked).";
  }
}
