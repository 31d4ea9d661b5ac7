package dev.lancelot.bench;

import dev.lancelot.engine.query.eval.QuerySets;
import java.nio.file.Path;

/**
 * Writes the query vectors of the vector benchmark data (held out from the base rows) as an {@code
 * .fvecs} file, e.g. for the recall job ({@code RecallJob --queries <file>}).
 *
 * <p>Usage: {@code BenchQueries <workdir> <queries> <out.fvecs>}.
 */
public final class BenchQueries {
  private BenchQueries() {}

  public static void main(String[] args) throws Exception {
    Path work = Path.of(args[0]);
    int n = Integer.parseInt(args[1]);
    Path out = Path.of(args[2]);
    VectorBenchData data = VectorBenchData.load(work, QueryBenchmark.ROWS, n);
    QuerySets.writeFvecs(out, data.queries);
    System.out.println("wrote " + data.queries.length + " query vectors to " + out);
  }
}
