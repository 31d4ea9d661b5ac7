package dev.lancelot.spark.recall;

import static org.apache.spark.sql.functions.col;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lancelot.engine.query.eval.RecallPlan;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.storage.StorageLevel;

/**
 * Exact top-k answers of a query set (SPEC E1: exact search, Q11, on the same version), stored so
 * that later runs reuse them. A ground truth is identified by its {@link Key}; it is stored under
 * {@code <truth directory>/<id>/} as
 *
 * <ul>
 *   <li>{@code truth.lance}: a Lance dataset {@code qid bigint, rowid bigint, distance float}, one
 *       row per exact result ({@code qid} the query's position in the query set, {@code rowid} the
 *       row address, {@code _rowid} of a search); a query without any exact result has no row;
 *   <li>{@code key.json}: the key's fields, written after the dataset is committed — a truth is
 *       reused only when this file exists and holds the same key.
 * </ul>
 *
 * {@code <id>} is the first 16 bytes of the SHA-256 of the key, in hex.
 */
final class GroundTruth {
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * Everything an exact answer depends on: the dataset location and version, the column, the metric
   * of the exact search, the filter and its placement, k, and the query vectors' identity.
   */
  record Key(
      String location,
      long version,
      String column,
      String metric,
      String filter,
      boolean prefilter,
      int k,
      String queries) {
    /** The key of the truth {@code truth} of the plan's version of {@code location}. */
    Key(String location, long version, RecallPlan.TruthKey truth, String queries) {
      this(
          location,
          version,
          truth.column(),
          truth.metric(),
          truth.filter(),
          truth.prefilter(),
          truth.k(),
          queries);
    }

    Map<String, Object> fields() {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("location", location);
      m.put("version", version);
      m.put("column", column);
      m.put("metric", metric);
      m.put("filter", filter);
      m.put("prefilter", prefilter);
      m.put("k", k);
      m.put("queries", queries);
      return m;
    }

    String id() {
      try {
        byte[] hash =
            MessageDigest.getInstance("SHA-256")
                .digest(JSON.writeValueAsString(fields()).getBytes(StandardCharsets.UTF_8));
        return HexFormat.of().formatHex(hash, 0, 16);
      } catch (NoSuchAlgorithmException | IOException e) {
        throw new IllegalStateException(e);
      }
    }

    String describe() {
      return "exact "
          + metric
          + " top-"
          + k
          + (filter == null
              ? ""
              : " with " + (prefilter ? "prefilter" : "filter") + " \"" + filter + "\"")
          + " of "
          + queries
          + " on "
          + location
          + " version "
          + version;
    }
  }

  /** The truth as a DataFrame {@code (qid, rowid, distance)} and whether it was reused. */
  record Obtained(Dataset<Row> rows, boolean reused, String where) {}

  private GroundTruth() {}

  /**
   * Reads the stored truth of {@code key} from {@code directory}, or computes it with {@code exact}
   * (columns {@code _qid, _rowid, _distance}) and stores it there; with no directory, computes it
   * and keeps it cached in memory.
   */
  static Obtained obtain(
      SparkSession spark,
      String directory,
      Key key,
      Supplier<Dataset<Row>> exact,
      OutputFiles files,
      java.util.function.Consumer<String> progress) {
    if (directory == null) {
      progress.accept("computing ground truth (" + key.describe() + "), kept in memory");
      Dataset<Row> rows = columns(exact.get()).persist(StorageLevel.MEMORY_AND_DISK());
      rows.count();
      return new Obtained(rows, false, key.id());
    }
    String dir = OutputFiles.child(directory, key.id());
    String data = OutputFiles.child(dir, "truth.lance");
    String keyFile = OutputFiles.child(dir, "key.json");
    if (files.exists(keyFile) && sameKey(files, keyFile, key)) {
      progress.accept("reusing ground truth " + dir + " (" + key.describe() + ")");
      return new Obtained(spark.read().format("lance").load(data), true, dir);
    }
    progress.accept("computing ground truth " + dir + " (" + key.describe() + ")");
    columns(exact.get()).write().format("lance").mode("overwrite").save(data);
    try {
      files.write(keyFile, JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(key.fields()));
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    return new Obtained(spark.read().format("lance").load(data), false, dir);
  }

  private static Dataset<Row> columns(Dataset<Row> exact) {
    return exact.select(
        col(QueryInput.QID).as("qid"), col("_rowid").as("rowid"), col("_distance").as("distance"));
  }

  /** Compared as JSON text: numbers read back may be of another Java type than the key's. */
  private static boolean sameKey(OutputFiles files, String keyFile, Key key) {
    try {
      Map<String, Object> stored =
          JSON.readValue(
              files.read(keyFile), new TypeReference<LinkedHashMap<String, Object>>() {});
      return JSON.writeValueAsString(stored).equals(JSON.writeValueAsString(key.fields()));
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(
          "Cannot read the key of the stored ground truth "
              + keyFile
              + ": "
              + e.getMessage()
              + ". Delete its directory to compute it again.",
          e);
    }
  }
}
