package dev.lancelot.spark;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the SQL of the PySpark notebook {@code examples/notebooks/vector-search.ipynb} against a
 * real session, in cell order, as the notebook's Python would: PySpark cannot run here, but
 * everything the notebook does with the connector goes through {@code spark.sql}, so this is the
 * part that can break.
 *
 * <p>What is read from the code cells (anything else is Python the JVM does not need, e.g. the
 * session builder and displaying images):
 *
 * <ul>
 *   <li>{@code NAME = "text"}: a string variable; {@code ROOT} is replaced by a temporary
 *       directory;
 *   <li>{@code spark.sql(<string>[, args={"p": NAME, ...}])}: a statement, the string plain or an
 *       f-string whose {@code {NAME}}s are substituted, the named parameter markers bound from
 *       variables (a list becomes an array of doubles, as PySpark binds a Python list of floats);
 *   <li>{@code NAME = spark.sql(...).first()["col"]}: binds {@code NAME} to that value of the first
 *       row; the statement must return a row;
 *   <li>a statement whose result is shown or used ({@code .show(}, {@code .toPandas(}, {@code
 *       .first(}, {@code .collect(}, {@code .count(}, {@code display(}) must return at least one
 *       row;
 *   <li>{@code Image(filename=f"...")}: the file must exist once the statements before it ran.
 * </ul>
 */
class NotebookSqlTest extends SharedSpark {
  private static final Path NOTEBOOK =
      Path.of("..", "examples", "notebooks", "vector-search.ipynb");
  private static final Pattern ASSIGN_STRING =
      Pattern.compile(
          "^([A-Za-z_][A-Za-z0-9_]*)\\s*=\\s*(?:\"([^\"]*)\"|'([^']*)')\\s*$", Pattern.MULTILINE);
  private static final Pattern SQL =
      Pattern.compile(
          "(?:([A-Za-z_][A-Za-z0-9_]*)\\s*=\\s*)?(display\\(\\s*)?spark\\.sql\\(\\s*(f?)(\"\"\"|'''|\"|')(.*?)\\4"
              + "\\s*(?:,\\s*args\\s*=\\s*\\{([^}]*)\\})?\\s*\\)([.\\w\\[\\]\"'()]*)",
          Pattern.DOTALL);
  private static final Pattern IMAGE =
      Pattern.compile("Image\\(\\s*filename\\s*=\\s*(f?)\"([^\"]*)\"\\s*\\)");
  private static final Pattern FIRST_COLUMN =
      Pattern.compile("^\\.first\\(\\)\\[\\s*[\"']([^\"']+)[\"']\\s*\\]");

  @TempDir Path root;

  @Test
  void everyStatementOfTheNotebookRuns() throws Exception {
    // The notebook's session roots catalog lance at ROOT; this session's catalog is not used
    // before.
    spark.conf().set("spark.sql.catalog.lance.root", root.toString());
    JsonNode notebook = new ObjectMapper().readTree(NOTEBOOK.toFile());
    Map<String, Object> variables = new LinkedHashMap<>();
    int statements = 0;
    int cellNumber = 0;
    for (JsonNode cell : notebook.get("cells")) {
      cellNumber++;
      if (!"code".equals(cell.get("cell_type").asText())) {
        continue;
      }
      StringBuilder source = new StringBuilder();
      cell.get("source").forEach(line -> source.append(line.asText()));
      String code = source.toString();
      for (Step step : steps(code)) {
        String where = "cell " + cellNumber + ": ";
        if (step instanceof Assign a) {
          variables.put(a.name(), a.name().equals("ROOT") ? root.toString() : a.value());
        } else if (step instanceof Statement s) {
          String sql = s.fString() ? substitute(s.sql(), variables, where) : s.sql();
          Map<String, Object> args = bind(s.args(), variables, where);
          List<Row> rows;
          try {
            rows = (args.isEmpty() ? spark.sql(sql) : spark.sql(sql, args)).collectAsList();
          } catch (
              Exception e) { // AnalysisException is checked in Java's eyes but thrown undeclared
            throw new AssertionError(where + "statement failed: " + sql + "\n" + e.getMessage(), e);
          }
          statements++;
          if (s.expectsRows()) {
            assertThat(rows).as(where + "rows of " + sql).isNotEmpty();
          }
          if (s.target() != null) {
            Row first = rows.get(0);
            variables.put(s.target(), python(first.get(first.fieldIndex(s.firstColumn()))));
          }
        } else if (step instanceof Picture p) {
          String file = p.fString() ? substitute(p.file(), variables, where) : p.file();
          assertThat(Path.of(file)).as(where + "image " + file).isRegularFile();
          assertThat(Files.size(Path.of(file))).as(where + "size of " + file).isPositive();
        }
      }
    }
    assertThat(statements).as("statements run").isGreaterThanOrEqualTo(10);
  }

  sealed interface Step permits Assign, Statement, Picture {}

  record Assign(String name, String value) implements Step {}

  record Statement(
      String sql,
      boolean fString,
      String args,
      String target,
      String firstColumn,
      boolean expectsRows)
      implements Step {}

  record Picture(String file, boolean fString) implements Step {}

  /** The steps of one cell, in source order. */
  static List<Step> steps(String code) {
    record At(int position, Step step) {}
    List<At> found = new ArrayList<>();
    Matcher m = ASSIGN_STRING.matcher(code);
    while (m.find()) {
      found.add(
          new At(m.start(), new Assign(m.group(1), m.group(2) != null ? m.group(2) : m.group(3))));
    }
    m = SQL.matcher(code);
    while (m.find()) {
      String tail = m.group(7);
      Matcher first = FIRST_COLUMN.matcher(tail);
      String target = null;
      String column = null;
      if (m.group(1) != null && first.find()) {
        target = m.group(1);
        column = first.group(1);
      }
      boolean used =
          m.group(2) != null
              || target != null
              || tail.contains(".show(")
              || tail.contains(".toPandas(")
              || tail.contains(".first(")
              || tail.contains(".collect(")
              || tail.contains(".count(");
      found.add(
          new At(
              m.start(),
              new Statement(m.group(5), !m.group(3).isEmpty(), m.group(6), target, column, used)));
    }
    m = IMAGE.matcher(code);
    while (m.find()) {
      found.add(new At(m.start(), new Picture(m.group(2), !m.group(1).isEmpty())));
    }
    found.sort((a, b) -> Integer.compare(a.position(), b.position()));
    return found.stream().map(At::step).toList();
  }

  private static String substitute(String text, Map<String, Object> variables, String where) {
    Matcher m = Pattern.compile("\\{\\{|\\}\\}|\\{([A-Za-z_][A-Za-z0-9_]*)\\}").matcher(text);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      String replacement;
      if (m.group(1) == null) {
        replacement = m.group().substring(1);
      } else {
        Object v = variables.get(m.group(1));
        if (v == null) {
          throw new AssertionError(
              where + "the f-string uses {" + m.group(1) + "}, which no earlier cell defines");
        }
        replacement = v.toString();
      }
      m.appendReplacement(out, Matcher.quoteReplacement(replacement));
    }
    m.appendTail(out);
    return out.toString();
  }

  private static Map<String, Object> bind(
      String args, Map<String, Object> variables, String where) {
    Map<String, Object> out = new LinkedHashMap<>();
    if (args == null || args.isBlank()) {
      return out;
    }
    for (String entry : args.split(",")) {
      String[] kv = entry.split(":", 2);
      String name = kv[0].trim().replaceAll("^[\"']|[\"']$", "");
      String value = kv[1].trim();
      if (value.matches("-?\\d+")) {
        out.put(name, Integer.parseInt(value));
      } else if (value.matches("[\"'].*[\"']")) {
        out.put(name, value.substring(1, value.length() - 1));
      } else if (variables.containsKey(value)) {
        out.put(name, variables.get(value));
      } else {
        throw new AssertionError(
            where
                + "parameter "
                + name
                + " is bound to "
                + value
                + ", which no earlier cell "
                + "defines");
      }
    }
    return out;
  }

  /**
   * A value as PySpark hands it to Python and binds it back: a list of numbers becomes an array of
   * doubles.
   */
  private static Object python(Object value) {
    if (value instanceof scala.collection.Seq<?> seq) {
      List<?> list = scala.jdk.javaapi.CollectionConverters.asJava(seq);
      double[] out = new double[list.size()];
      for (int i = 0; i < out.length; i++) {
        out[i] = ((Number) list.get(i)).doubleValue();
      }
      return out;
    }
    return value;
  }
}
