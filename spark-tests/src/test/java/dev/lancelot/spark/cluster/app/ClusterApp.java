package dev.lancelot.spark.cluster.app;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * The application submitted to the standalone cluster: {@code ClusterApp <scenario> <root>
 * <answers>} runs a scenario on datasets under {@code root} and writes its answers as JSON lines to
 * {@code answers}, ending with {@code {"step":"done"}}. Scenarios: {@code flow} ({@link
 * ClusterFlow}), {@code kill-write} ({@link KillableWrite}) and {@code speculative-write} ({@link
 * SpeculatedWrite}). Its jar holds only this package; lancelot comes from the runtime jar given to
 * spark-submit.
 */
public final class ClusterApp {
  public static final long FAULT_ROWS_PER_PARTITION = 5000;
  public static final int FAULT_PARTITIONS = 4;

  private ClusterApp() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 3) {
      throw new IllegalArgumentException(
          "Usage: ClusterApp <flow|kill-write|speculative-write> <root> <answers>");
    }
    String scenario = args[0];
    Path root = Paths.get(args[1]);
    SparkSession spark = SparkSession.builder().appName("lancelot-" + scenario).getOrCreate();
    List<Map<String, Object>> answers;
    try {
      answers =
          switch (scenario) {
            case "flow" -> ClusterFlow.run(spark, root.resolve("items").toString());
            case "kill-write" ->
                faultyWrite(
                    spark, root, new KillableWrite(root.resolve("markers").toString(), 4500));
            case "speculative-write" ->
                faultyWrite(spark, root, new SpeculatedWrite(root.resolve("markers").toString()));
            default -> throw new IllegalArgumentException("Unknown scenario " + scenario);
          };
    } finally {
      spark.stop();
    }
    ObjectMapper json = new ObjectMapper();
    List<String> lines = new ArrayList<>();
    for (Map<String, Object> a : answers) {
      lines.add(json.writeValueAsString(a));
    }
    lines.add("{\"step\":\"done\"}");
    Files.write(Paths.get(args[2]), lines);
  }

  /**
   * Creates {@code root/items} from ids that pass through {@code ids}, counting the attempts Spark
   * ran.
   */
  private static List<Map<String, Object>> faultyWrite(
      SparkSession spark,
      Path root,
      org.apache.spark.api.java.function.MapPartitionsFunction<Long, Long> ids)
      throws TimeoutException {
    TaskCounts counts = new TaskCounts();
    spark.sparkContext().addSparkListener(counts);
    Dataset<Row> rows =
        ClusterFlow.withColumns(
            spark
                .range(0, FAULT_PARTITIONS * FAULT_ROWS_PER_PARTITION, 1, FAULT_PARTITIONS)
                .as(Encoders.LONG())
                .mapPartitions(ids, Encoders.LONG())
                .toDF("id"));
    rows.write().format("lance").save(root.resolve("items").toString());
    spark.sparkContext().listenerBus().waitUntilEmpty(30_000);
    return List.of(
        ClusterFlow.answer(
            "attempts",
            "speculative",
            counts.speculativeAttempts.get(),
            "failed",
            counts.failedAttempts.get(),
            "executorsRemoved",
            counts.executorsRemoved.get()));
  }
}
