package dev.lancelot.spark.recall;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.awt.Color;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.category.DefaultCategoryDataset;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * The files of a recall run under its output directory:
 *
 * <ul>
 *   <li>{@code results.lance}: the rows as a Lance dataset (written by the connector's writer);
 *   <li>{@value #LATENCY_PNG}, {@value #SCENARIO_PNG}: plots drawn by JFreeChart (headless);
 *   <li>{@code report.html}: the plots and the table of the rows;
 *   <li>{@code results.json}: an array of objects, one per row, with the fields of {@link
 *       RecallResult#fields()} — written last.
 * </ul>
 */
final class RecallOutputs {
  static final String LATENCY_PNG = "recall_vs_p50_latency.png";
  static final String SCENARIO_PNG = "recall_by_scenario.png";
  private static final ObjectMapper JSON = new ObjectMapper();
  static final StructType SCHEMA =
      new StructType()
          .add("scenario", DataTypes.StringType)
          .add("params", DataTypes.StringType)
          .add("metric", DataTypes.StringType)
          .add("k", DataTypes.IntegerType)
          .add("recall", DataTypes.DoubleType)
          .add("recall_p5", DataTypes.DoubleType)
          .add("rows_per_query", DataTypes.DoubleType)
          .add("p50_ms", DataTypes.DoubleType)
          .add("p99_ms", DataTypes.DoubleType)
          .add("partitions_probed", DataTypes.DoubleType)
          .add("distances_computed", DataTypes.DoubleType)
          .add("note", DataTypes.StringType);

  private RecallOutputs() {}

  static void write(SparkSession spark, String out, RecallRun run, OutputFiles files) {
    List<Row> rows = new ArrayList<>();
    for (RecallResult r : run.rows()) {
      rows.add(RowFactory.create(r.fields().values().toArray()));
    }
    spark
        .createDataFrame(rows, SCHEMA)
        .coalesce(1)
        .write()
        .format("lance")
        .mode("overwrite")
        .save(OutputFiles.child(out, "results.lance"));
    if (System.getProperty("java.awt.headless") == null) {
      // drivers have no display; must be set before AWT starts, and is left as the user set it
      System.setProperty("java.awt.headless", "true");
    }
    files.write(
        OutputFiles.child(out, LATENCY_PNG),
        o -> ChartUtils.writeChartAsPNG(o, latencyChart(run), 900, 560));
    files.write(
        OutputFiles.child(out, SCENARIO_PNG),
        o -> ChartUtils.writeChartAsPNG(o, scenarioChart(run), 900, 560));
    files.write(OutputFiles.child(out, "report.html"), html(run).getBytes(StandardCharsets.UTF_8));
    List<Map<String, Object>> json = new ArrayList<>();
    for (RecallResult r : run.rows()) {
      json.add(r.fields());
    }
    try {
      files.write(
          OutputFiles.child(out, "results.json"),
          JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(json));
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Recall against p50 latency, one point per setting, one series per scenario (and k). */
  static JFreeChart latencyChart(RecallRun run) {
    boolean severalK = severalK(run);
    Map<String, XYSeries> series = new LinkedHashMap<>();
    for (RecallResult r : run.rows()) {
      if (r.measured()) {
        String name = r.scenario() + (severalK ? " (k=" + r.k() + ")" : "");
        series.computeIfAbsent(name, n -> new XYSeries(n, false, true)).add(r.p50Ms(), r.recall());
      }
    }
    XYSeriesCollection data = new XYSeriesCollection();
    series.values().forEach(data::addSeries);
    JFreeChart chart =
        ChartFactory.createXYLineChart(
            "Recall@k against p50 latency per query",
            "p50 latency per query (ms)",
            "recall@k",
            data,
            PlotOrientation.VERTICAL,
            true,
            false,
            false);
    XYPlot plot = chart.getXYPlot();
    XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(false, true);
    plot.setRenderer(renderer);
    plot.setBackgroundPaint(Color.WHITE);
    plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
    plot.setDomainGridlinePaint(Color.LIGHT_GRAY);
    return chart;
  }

  /** Recall per scenario, one bar per setting (and k). */
  static JFreeChart scenarioChart(RecallRun run) {
    boolean severalK = severalK(run);
    DefaultCategoryDataset data = new DefaultCategoryDataset();
    for (RecallResult r : run.rows()) {
      if (r.measured()) {
        data.addValue(
            r.recall(), r.params() + (severalK ? " (k=" + r.k() + ")" : ""), r.scenario());
      }
    }
    JFreeChart chart =
        ChartFactory.createBarChart(
            "Recall@k per scenario",
            "scenario",
            "recall@k",
            data,
            PlotOrientation.VERTICAL,
            true,
            false,
            false);
    chart.getCategoryPlot().setBackgroundPaint(Color.WHITE);
    chart.getCategoryPlot().setRangeGridlinePaint(Color.LIGHT_GRAY);
    return chart;
  }

  private static boolean severalK(RecallRun run) {
    return run.rows().stream().mapToInt(RecallResult::k).distinct().count() > 1;
  }

  static String html(RecallRun run) {
    StringBuilder h = new StringBuilder();
    h.append("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Recall report</title>\n")
        .append("<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}")
        .append(
            "td,th{border:1px solid #ccc;padding:4px 8px;text-align:right}td.t,th{text-align:left}</style>")
        .append("</head><body>\n<h1>Recall report</h1>\n<p>Dataset ")
        .append(esc(run.location()))
        .append(", version ")
        .append(run.version())
        .append(", ")
        .append(run.queries())
        .append(
            " query vectors. Recall@k = |ANN ∩ exact| / min(k, |exact|) per query, against exact search ")
        .append(
            "with the same filter on the same version; latency is each query's search time inside the ")
        .append("executors, summed over its search units.</p>\n")
        .append("<img src=\"")
        .append(LATENCY_PNG)
        .append("\" alt=\"recall against p50 latency\">\n")
        .append("<img src=\"")
        .append(SCENARIO_PNG)
        .append("\" alt=\"recall per scenario\">\n<table>\n<tr>");
    for (String f : SCHEMA.fieldNames()) {
      h.append("<th>").append(f).append("</th>");
    }
    h.append("</tr>\n");
    for (RecallResult r : run.rows()) {
      h.append("<tr>");
      for (Object v : r.fields().values()) {
        boolean text = !(v instanceof Number);
        h.append(text ? "<td class=\"t\">" : "<td>")
            .append(
                v == null
                    ? ""
                    : v instanceof Double d ? String.format("%.4f", d) : esc(String.valueOf(v)))
            .append("</td>");
      }
      h.append("</tr>\n");
    }
    return h.append("</table>\n</body></html>\n").toString();
  }

  private static String esc(String s) {
    return s.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace("\"", "&quot;");
  }
}
