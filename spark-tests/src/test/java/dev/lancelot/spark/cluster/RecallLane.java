package dev.lancelot.spark.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.internal.scan.ScanSpec;
import dev.lancelot.engine.query.VectorQuery;
import dev.lancelot.engine.query.VectorSearch;
import dev.lancelot.engine.query.VectorSearchResult;
import dev.lancelot.engine.query.eval.RecallEvaluator;
import dev.lancelot.engine.testing.BruteForce;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.imageio.ImageIO;
import org.apache.arrow.vector.UInt8Vector;

/** Checks of the recall job's outputs in the standalone-cluster lane, against a brute force. */
final class RecallLane {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern TOOK =
      Pattern.compile("recall evaluation took ([0-9.]+) s \\(ground truth ([0-9.]+) s");

  private RecallLane() {}

  /** The run time the job logs for its evaluation, and the part of it spent on ground truth. */
  static double[] seconds(String log) {
    Matcher m = TOOK.matcher(log);
    assertThat(m.find()).as("the job logs its run time").isTrue();
    return new double[] {Double.parseDouble(m.group(1)), Double.parseDouble(m.group(2))};
  }

  /**
   * results.json, results.lance and report.html with valid plots under {@code out}; the recall of
   * every measured no-filter and prefilter row equals a brute force (l2, the index's metric) with
   * the engine's own answers to the same searches.
   */
  static void checkOutputs(Path out, Path dataset, float[][] queries, String filter, int tenant)
      throws Exception {
    List<Map<String, Object>> rows =
        JSON.readValue(
            out.resolve("results.json").toFile(),
            new TypeReference<List<Map<String, Object>>>() {});
    assertThat(rows).isNotEmpty();
    for (Map<String, Object> r : rows) {
      assertThat(r.keySet())
          .containsExactlyInAnyOrder(
              "recall",
              "recall_p5",
              "rows_per_query",
              "p50_ms",
              "p99_ms",
              "partitions_probed",
              "distances_computed",
              "metric",
              "k",
              "params",
              "scenario",
              "note");
    }
    try (Dataset results = Dataset.open(out.resolve("results.lance").toString())) {
      assertThat(results.countRows()).as("rows of results.lance").isEqualTo(rows.size());
    }
    String html = Files.readString(out.resolve("report.html"));
    Matcher img = Pattern.compile("<img src=\"([^\"]+)\"").matcher(html);
    int images = 0;
    while (img.find()) {
      Path png = out.resolve(img.group(1));
      byte[] bytes = Files.readAllBytes(png);
      assertThat(Arrays.copyOf(bytes, 4))
          .as("PNG magic of " + png)
          .isEqualTo(new byte[] {(byte) 0x89, 'P', 'N', 'G'});
      assertThat(ImageIO.read(png.toFile())).as(png.toString()).isNotNull();
      images++;
    }
    assertThat(images).as("plots in report.html").isEqualTo(2);

    BruteForce brute = BruteForce.byRowId(dataset.toString());
    int checked = 0;
    try (Dataset ds = Dataset.open(dataset.toString())) {
      for (Map<String, Object> r : rows) {
        String scenario = (String) r.get("scenario");
        if (r.get("note") != null
            || !(scenario.equals("no filter") || scenario.equals("prefilter"))) {
          continue;
        }
        assertThat(r.get("metric")).isEqualTo("l2");
        int k = (Integer) r.get("k");
        int nprobes = Integer.parseInt(((String) r.get("params")).replace("nprobes=", ""));
        boolean filtered = scenario.equals("prefilter");
        double sum = 0;
        for (float[] q : queries) {
          Set<Long> truth = brute.nearest(q, k, "l2", filtered ? t -> t == tenant : t -> true);
          VectorQuery.Builder ann =
              VectorQuery.builder("vector")
                  .vector(q)
                  .k(k)
                  .nprobes(nprobes)
                  .withRowId(true)
                  .columns(List.of());
          if (filtered) {
            ann.filter(filter).prefilter(true);
          }
          sum += RecallEvaluator.recallOf(rowIds(ds, ann.build()), truth, k);
        }
        assertThat(((Number) r.get("recall")).doubleValue())
            .as("recall of " + r)
            .isCloseTo(sum / queries.length, within(1e-9));
        checked++;
      }
    }
    assertThat(checked).as("rows checked against the brute force").isEqualTo(4);
  }

  private static Set<Long> rowIds(Dataset ds, VectorQuery q) {
    try (VectorSearchResult r = VectorSearch.search(ds, q)) {
      UInt8Vector ids = (UInt8Vector) r.rows().getVector(ScanSpec.ROW_ID);
      Set<Long> out = new HashSet<>();
      for (int i = 0; i < r.rowCount(); i++) {
        out.add(ids.get(i));
      }
      return out;
    }
  }
}
