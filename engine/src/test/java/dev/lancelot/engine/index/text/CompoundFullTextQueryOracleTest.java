package dev.lancelot.engine.index.text;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.LancelotException;
import dev.lancelot.engine.distributed.FullTextSearchPlan;
import dev.lancelot.engine.distributed.FullTextSearchTask;
import dev.lancelot.engine.distributed.FullTextTaskResult;
import dev.lancelot.engine.index.text.FullTextSearchOracleTest.Hit;
import dev.lancelot.engine.internal.index.text.TextQueries;
import dev.lancelot.engine.testing.ArrowStreams;
import dev.lancelot.engine.testing.LanceOracle;
import dev.lancelot.engine.testing.LicenseCorpus;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.lance.WriteParams;
import org.lance.index.IndexType;
import org.lance.ipc.FullTextQuery.BooleanClause;
import org.lance.ipc.FullTextQuery.Occur;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;

/**
 * Boolean, boost, boosted-match and multi-match queries (decision D80, SPEC T8–T10) over two text
 * columns of a real corpus, each with an inverted index lance-core 7.0.0 built, rows deleted after
 * the build: lancelot's top-k row ids and scores equal Lance's.
 */
@Tag("oracle")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CompoundFullTextQueryOracleTest {
  private static final int ROWS = 900;
  private BufferAllocator allocator;
  @TempDir static Path tmp;
  private Path dir;

  @BeforeAll
  void setUp() {
    allocator = new RootAllocator();
    List<String> docs = LicenseCorpus.paragraphs();
    assertThat(docs.size()).isGreaterThan(ROWS);
    dir = tmp.resolve("two-columns");
    Schema schema =
        new Schema(
            List.of(
                new Field("id", FieldType.nullable(new ArrowType.Int(64, true)), null),
                new Field("text", FieldType.nullable(new ArrowType.Utf8()), null),
                new Field("title", FieldType.nullable(new ArrowType.Utf8()), null)));
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
      root.allocateNew();
      for (int i = 0; i < ROWS; i++) {
        ((BigIntVector) root.getVector(0)).setSafe(i, i);
        ((VarCharVector) root.getVector(1))
            .setSafe(i, docs.get(i).getBytes(StandardCharsets.UTF_8));
        // A second text column: another paragraph of the corpus.
        ((VarCharVector) root.getVector(2))
            .setSafe(i, docs.get((i * 7 + 3) % docs.size()).getBytes(StandardCharsets.UTF_8));
      }
      root.setRowCount(ROWS);
      org.lance.Dataset.write()
          .allocator(allocator)
          .reader(ArrowStreams.readerOf(allocator, List.of(root)))
          .uri(dir.toString())
          .mode(WriteParams.WriteMode.CREATE)
          .maxRowsPerFile(300)
          .execute()
          .close();
    }
    try (org.lance.Dataset ds = LanceOracle.open(allocator, dir)) {
      for (String column : List.of("text", "title")) {
        ds.createIndex(
            List.of(column),
            IndexType.INVERTED,
            Optional.of(column + "_idx"),
            LicenseCorpus.simpleParams(),
            true);
      }
      ds.delete("id % 19 = 4");
    }
  }

  @AfterAll
  void tearDown() {
    allocator.close();
  }

  private List<Hit> lance(org.lance.ipc.FullTextQuery query, int k, String filter) {
    List<Hit> out = new ArrayList<>();
    try (org.lance.Dataset ds = LanceOracle.open(allocator, dir)) {
      ScanOptions.Builder opts =
          new ScanOptions.Builder()
              .fullTextQuery(query)
              .columns(List.of("id"))
              .withRowId(true)
              .limit(k);
      if (filter != null) {
        opts.filter(filter).prefilter(true);
      }
      try (LanceScanner scanner = ds.newScan(opts.build());
          ArrowReader reader = scanner.scanBatches()) {
        while (reader.loadNextBatch()) {
          VectorSchemaRoot b = reader.getVectorSchemaRoot();
          Float4Vector score = (Float4Vector) b.getVector("_score");
          UInt8Vector rowId = (UInt8Vector) b.getVector("_rowid");
          for (int i = 0; i < b.getRowCount(); i++) {
            out.add(new Hit(rowId.get(i), score.get(i)));
          }
        }
      }
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    return out;
  }

  static List<Hit> ours(Dataset ds, FullTextQuery query) {
    List<Hit> out = new ArrayList<>();
    try (VectorSchemaRoot rows = FullTextSearch.search(ds, query)) {
      Float4Vector score = (Float4Vector) rows.getVector("_score");
      UInt8Vector rowId = (UInt8Vector) rows.getVector("_rowid");
      for (int i = 0; i < rows.getRowCount(); i++) {
        out.add(new Hit(rowId.get(i), score.get(i)));
      }
    }
    return out;
  }

  /** A query in both engines' forms. */
  record Pair(String name, TextQuery ours, org.lance.ipc.FullTextQuery lance) {}

  static Pair match(String column, String text) {
    return new Pair(
        column + ":" + text,
        TextQuery.match(column, text),
        org.lance.ipc.FullTextQuery.match(text, column));
  }

  static Pair match(String column, String text, float boost, boolean and) {
    return new Pair(
        column + ":" + text + "^" + boost + (and ? " AND" : ""),
        new TextQuery.Match(
            column, text, and ? FullTextQuery.Operator.AND : FullTextQuery.Operator.OR, boost),
        org.lance.ipc.FullTextQuery.match(
            text,
            column,
            boost,
            Optional.empty(),
            50,
            and
                ? org.lance.ipc.FullTextQuery.Operator.AND
                : org.lance.ipc.FullTextQuery.Operator.OR,
            0));
  }

  static Pair bool(Object... occurAndQuery) {
    List<TextQuery.Clause> mine = new ArrayList<>();
    List<BooleanClause> theirs = new ArrayList<>();
    StringBuilder name = new StringBuilder("bool(");
    for (int i = 0; i < occurAndQuery.length; i += 2) {
      TextQuery.Occur occur = (TextQuery.Occur) occurAndQuery[i];
      Pair q = (Pair) occurAndQuery[i + 1];
      mine.add(new TextQuery.Clause(occur, q.ours()));
      theirs.add(new BooleanClause(Occur.valueOf(occur.name()), q.lance()));
      name.append(occur).append(' ').append(q.name()).append("; ");
    }
    return new Pair(
        name.append(')').toString(),
        new TextQuery.Bool(mine),
        org.lance.ipc.FullTextQuery.booleanQuery(theirs));
  }

  static Pair boost(Pair positive, Pair negative, float negativeBoost) {
    return new Pair(
        "boost(" + positive.name() + ", " + negative.name() + ", " + negativeBoost + ")",
        new TextQuery.Boost(positive.ours(), negative.ours(), negativeBoost),
        org.lance.ipc.FullTextQuery.boost(positive.lance(), negative.lance(), negativeBoost));
  }

  static Pair multi(String text, List<Float> boosts, boolean and) {
    List<String> columns = List.of("text", "title");
    return new Pair(
        "multi(" + text + ", " + boosts + (and ? ", AND" : "") + ")",
        new TextQuery.MultiMatch(
            text, columns, boosts, and ? FullTextQuery.Operator.AND : FullTextQuery.Operator.OR),
        org.lance.ipc.FullTextQuery.multiMatch(
            text,
            columns,
            boosts,
            and
                ? org.lance.ipc.FullTextQuery.Operator.AND
                : org.lance.ipc.FullTextQuery.Operator.OR));
  }

  static final TextQuery.Occur MUST = TextQuery.Occur.MUST;
  static final TextQuery.Occur SHOULD = TextQuery.Occur.SHOULD;
  static final TextQuery.Occur MUST_NOT = TextQuery.Occur.MUST_NOT;

  static List<Pair> queries() {
    return List.of(
        match("text", "license", 3.0f, false),
        match("title", "software warranty", 0.5f, true),
        bool(MUST, match("text", "license"), SHOULD, match("text", "software")),
        bool(MUST, match("text", "software"), MUST, match("text", "license")),
        bool(MUST, match("text", "license"), MUST, match("text", "software")),
        bool(SHOULD, match("text", "copyright holder"), SHOULD, match("title", "patent")),
        bool(SHOULD, match("text", "license"), MUST_NOT, match("text", "software")),
        bool(
            MUST,
            match("text", "program"),
            SHOULD,
            match("title", "warranty"),
            SHOULD,
            match("text", "free software"),
            MUST_NOT,
            match("title", "GNU")),
        bool(MUST, match("text", "zzzqqq"), SHOULD, match("text", "license")),
        boost(match("text", "license"), match("text", "software"), 0.5f),
        boost(match("text", "GNU General Public License"), match("title", "patent"), 0.2f),
        boost(
            bool(SHOULD, match("text", "work"), SHOULD, match("title", "work")),
            match("text", "derivative"),
            0.7f),
        multi("license", null, false),
        multi("license", List.of(1.0f, 2.0f), false),
        multi("GNU license", List.of(1.5f, 0.5f), true),
        bool(MUST, multi("copyright", null, false), MUST_NOT, match("title", "license")));
  }

  /**
   * For the query whose first MUST clause is a multi-match: the score shared by that multi-match's
   * k-th and (k+1)-th rows when they tie (Lance then cuts the tie in no fixed order); empty
   * otherwise.
   */
  private static OptionalDouble multiMatchCutTie(Dataset ds, Pair q, int k) {
    if (!q.name().startsWith("bool(MUST multi(")) {
      return OptionalDouble.empty();
    }
    List<Hit> inner =
        ours(
            ds,
            FullTextQuery.of(multi("copyright", null, false).ours())
                .k(k + 1)
                .columns(List.of("id"))
                .withRowId(true)
                .build());
    if (inner.size() <= k
        || Math.abs(inner.get(k - 1).score() - inner.get(k).score())
            > 1e-4f * inner.get(k).score()) {
      return OptionalDouble.empty();
    }
    return OptionalDouble.of(inner.get(k).score());
  }

  @Test
  void compoundQueriesScoreAsLanceDoes() {
    try (Dataset ds = Dataset.open(dir.toString())) {
      for (Pair q : queries()) {
        for (int k : List.of(10, 60)) {
          List<Hit> ours =
              ours(
                  ds,
                  FullTextQuery.of(q.ours()).k(k).columns(List.of("id")).withRowId(true).build());
          List<Hit> theirs = lance(q.lance(), k, null);
          OptionalDouble tie = multiMatchCutTie(ds, q, k);
          if (tie.isPresent()) {
            // The MUST multi-match keeps its best k rows, and rows tied at its k-th score are cut
            // by Lance in no fixed order: which of them survive (and then fall to MUST_NOT)
            // differs between runs. Every row scoring above the tie must agree.
            float above = (float) tie.getAsDouble() * (1 + 1e-4f);
            FullTextSearchOracleTest.assertSameTopK(
                q.name() + " k=" + k + " above the tie at " + tie.getAsDouble(),
                ours.stream().filter(h -> h.score() > above).toList(),
                theirs.stream().filter(h -> h.score() > above).toList());
          } else {
            FullTextSearchOracleTest.assertSameTopK(q.name() + " k=" + k, ours, theirs);
          }
        }
      }
    }
  }

  @Test
  void prefilteredCompoundQueriesScoreAsLanceDoes() {
    try (Dataset ds = Dataset.open(dir.toString())) {
      for (Pair q : List.of(queries().get(2), queries().get(9), queries().get(13))) {
        String filter = "id > 250";
        List<Hit> ours =
            ours(
                ds,
                FullTextQuery.of(q.ours())
                    .k(20)
                    .filter(filter)
                    .prefilter(true)
                    .columns(List.of("id"))
                    .withRowId(true)
                    .build());
        FullTextSearchOracleTest.assertSameTopK(
            q.name() + " where " + filter, ours, lance(q.lance(), 20, filter));
      }
    }
  }

  /** The plan's tasks, each through bytes, merged: the local answer, which is Lance's. */
  @Test
  void distributedCompoundQueriesEqualTheLocalSearch() {
    try (Dataset ds = Dataset.open(dir.toString())) {
      for (Pair q : queries()) {
        for (boolean prefilter : List.of(false, true)) {
          FullTextQuery query =
              FullTextQuery.of(q.ours())
                  .k(25)
                  .filter(prefilter ? "id % 3 <> 1" : null)
                  .prefilter(prefilter)
                  .columns(List.of("id"))
                  .withRowId(true)
                  .build();
          FullTextSearchPlan plan =
              FullTextSearchPlan.fromBytes(FullTextSearchPlan.plan(ds, query).toBytes());
          assertThat(plan.taskCount()).as(q.name()).isEqualTo(TextQueries.leaves(q.ours()).size());
          List<FullTextTaskResult> results = new ArrayList<>();
          for (FullTextSearchTask task : plan.tasks()) {
            FullTextSearchTask back = FullTextSearchTask.fromBytes(task.toBytes());
            results.add(FullTextTaskResult.fromBytes(back.run(ds).toBytes()));
          }
          List<Hit> distributed = new ArrayList<>();
          try (VectorSchemaRoot rows = plan.finish(ds, results)) {
            Float4Vector score = (Float4Vector) rows.getVector("_score");
            UInt8Vector rowId = (UInt8Vector) rows.getVector("_rowid");
            for (int i = 0; i < rows.getRowCount(); i++) {
              distributed.add(new Hit(rowId.get(i), score.get(i)));
            }
          }
          assertThat(distributed).as(q.name()).isEqualTo(ours(ds, query));
          if (prefilter) {
            FullTextSearchOracleTest.assertSameTopK(
                q.name() + " distributed", distributed, lance(q.lance(), 25, "id % 3 <> 1"));
          }
        }
      }
    }
  }

  /** Lance's JSON form of a query reads into the same tree, so the same answer as Lance's. */
  @Test
  void jsonQueriesAreLancesQueries() {
    String json =
        "{\"boolean\": {\"must\": [{\"multi_match\": {\"query\": \"copyright\","
            + " \"columns\": [\"text\", \"title\"], \"boost\": [1.0, 2.0]}}],"
            + " \"should\": [{\"boost\": {\"positive\": {\"match\": {\"column\": \"text\","
            + " \"terms\": \"software\", \"operator\": \"Or\", \"fuzziness\": 0}},"
            + " \"negative\": {\"match\": {\"column\": \"title\", \"terms\": \"license\"}},"
            + " \"negative_boost\": 0.3}}],"
            + " \"must_not\": [{\"match\": {\"column\": \"text\", \"terms\": \"GNU Lesser\","
            + " \"operator\": \"And\", \"boost\": 2.0}}]}}";
    Pair expected =
        bool(
            MUST,
            multi("copyright", List.of(1.0f, 2.0f), false),
            SHOULD,
            boost(match("text", "software"), match("title", "license"), 0.3f),
            MUST_NOT,
            match("text", "GNU Lesser", 2.0f, true));
    assertThat(TextQuery.fromJson(json)).isEqualTo(expected.ours());
    try (Dataset ds = Dataset.open(dir.toString())) {
      List<Hit> ours =
          ours(
              ds,
              FullTextQuery.of(TextQuery.fromJson(json))
                  .k(30)
                  .columns(List.of("id"))
                  .withRowId(true)
                  .build());
      assertThat(ours).isNotEmpty();
      FullTextSearchOracleTest.assertSameTopK("json", ours, lance(expected.lance(), 30, null));
    }
    for (String[] bad :
        new String[][] {
          {"{\"match\": {\"column\": \"text\"}}", "match.terms is required"},
          {
            "{\"match\": {\"column\": \"text\", \"terms\": \"x\", \"fuzziness\": 1}}",
            "fuzzy matching is not supported"
          },
          {"{\"phrase\": {\"column\": \"text\", \"terms\": \"x y\"}}", "phrase"},
          {"{\"regex\": {}}", "unknown query type regex"},
          {"{\"boolean\": {\"must\": {}}}", "boolean.must must be an array"},
          {
            "{\"match\": {\"column\": \"text\", \"terms\": \"x\", \"operator\": \"XOR\"}}",
            "operator must be"
          },
          {"{\"match\": ", "Cannot read the full-text query JSON"},
          {
            "{\"boost\": {\"positive\": {\"match\": {\"column\": \"text\", \"terms\": \"x\"}}}}",
            "boost.negative must be an object"
          }
        }) {
      assertThatThrownBy(() -> TextQuery.fromJson(bad[0]))
          .as(bad[0])
          .isInstanceOf(LancelotException.class)
          .hasMessageContaining(bad[1]);
    }
  }

  @Test
  void badCompoundQueriesAreRefusedClearly() {
    assertThatThrownBy(
            () ->
                new TextQuery.Bool(
                    List.of(new TextQuery.Clause(MUST_NOT, TextQuery.match("text", "x")))))
        .isInstanceOf(LancelotException.class)
        .hasMessageContaining("at least one MUST or SHOULD clause");
    assertThatThrownBy(
            () ->
                new TextQuery.MultiMatch(
                    "x", List.of("text", "title"), List.of(1.0f), FullTextQuery.Operator.OR))
        .isInstanceOf(LancelotException.class)
        .hasMessageContaining("one boost per column");
    assertThatThrownBy(
            () ->
                FullTextQuery.of(TextQuery.match("text", "x")).operator(FullTextQuery.Operator.AND))
        .isInstanceOf(LancelotException.class)
        .hasMessageContaining("set on its matches");
    try (Dataset ds = Dataset.open(dir.toString())) {
      assertThatThrownBy(
              () ->
                  ours(
                      ds,
                      FullTextQuery.of(
                              new TextQuery.MultiMatch(
                                  "x", List.of("text", "id"), null, FullTextQuery.Operator.OR))
                          .withRowId(true)
                          .build()))
          .isInstanceOf(LancelotException.class)
          .hasMessageContaining("not a string");
    }
  }
}
