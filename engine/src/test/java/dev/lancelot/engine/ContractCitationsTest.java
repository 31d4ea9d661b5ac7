package dev.lancelot.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The behaviour contract ({@code docs/semantics.md}) and the architecture description ({@code
 * docs/architecture.md}) live in the repository, and the code's citations of them resolve
 * (docs/architecture.md §7.15): every rule id cited in a Java comment is defined once in the
 * contract, every cited architecture section exists, no comment cites documents the repository does
 * not hold, and the classes and tests each rule's "Where" line names exist.
 *
 * <p>Only comment text is scanned (string literals and code are skipped), and only these forms
 * count as citations of a rule: {@code SPEC} followed by ids; ids alone in parentheses; ids
 * followed by a colon. Lists ({@code Q6, Q9}, {@code S3/S4}, {@code S3, S4 and S6}) and ranges
 * ({@code Q4–Q7}) are understood. Other tokens that look like ids (an {@code F32} constant, an
 * {@code s3a} scheme, a hex byte) are not citations.
 */
class ContractCitationsTest {
  private static final Path ROOT = repositoryRoot();
  private static final Path SEMANTICS = ROOT.resolve("docs/semantics.md");
  private static final Path ARCHITECTURE = ROOT.resolve("docs/architecture.md");

  /** Java sources whose comments may cite the contract. */
  private static final List<String> SOURCE_DIRS =
      List.of(
          "engine/src/main",
          "engine/src/test",
          "connector/src/main",
          "connector/src/test",
          "cli/src/main",
          "cli/src/test",
          "spark-tests/src/test",
          "spark-lines/3.5_2.12/src",
          "spark-lines/4.2_2.13/src",
          "examples/src");

  private static final String ID = "(?<![\\w.])[FQSET][1-9][0-9]?(?!\\w)";
  private static final String SEP = "\\s*(?:,|/|–|-|\\band\\b|\\bor\\b)\\s*";
  private static final String LIST = ID + "(?:" + SEP + ID + ")*";
  private static final Pattern ONE_ID = Pattern.compile("([FQSET])([1-9][0-9]?)");
  private static final Pattern RANGE =
      Pattern.compile("([FQSET])([1-9][0-9]?)\\s*[–-]\\s*([FQSET])([1-9][0-9]?)");
  private static final List<Pattern> CITATION_FORMS =
      List.of(
          Pattern.compile("\\bSPEC\\s+(" + LIST + ")"),
          Pattern.compile("\\(\\s*(" + LIST + ")\\s*\\)"),
          Pattern.compile("(" + LIST + ")\\s*:"));
  private static final Pattern SECTION_CITATION = Pattern.compile("\\bSPEC\\s+([FQSET])(?![\\w])");
  private static final Pattern ARCHITECTURE_CITATION =
      Pattern.compile("architecture\\.md\\s+§\\s*(\\d+(?:\\.\\d+)?)");
  private static final Pattern OUTSIDE_DOCUMENT =
      Pattern.compile("\\bSTYLE\\s+\\d+|\\bSTYLE\\.md\\b|ARCHITECTURE\\.md|\\bSPEC\\.md\\b");

  private static final Pattern RULE_HEADING =
      Pattern.compile("^###\\s+([FQSET][1-9][0-9]?)\\s+—\\s+\\S.*$");
  private static final Pattern SECTION_HEADING = Pattern.compile("^##\\s+([FQSET])\\s+—\\s+\\S.*$");
  private static final Pattern ARCHITECTURE_HEADING =
      Pattern.compile("^#{2,3}\\s+(\\d+(?:\\.\\d+)?)\\.?\\s+\\S.*$");
  private static final Pattern CODE_SPAN = Pattern.compile("`([^`]+)`");
  private static final Pattern TYPE_REFERENCE =
      Pattern.compile("[A-Z][A-Za-z0-9]*(?:\\.[A-Za-z][A-Za-z0-9]*)?");

  /** A rule id cited at a line of a source. */
  record Citation(String id, int line) {}

  /** One line's comment text. */
  record CommentLine(int line, String text) {}

  @Test
  void theContractDefinesEveryRuleExactlyOnce() {
    Map<String, Integer> defined = ruleDefinitions(read(SEMANTICS));
    List<String> duplicates =
        defined.entrySet().stream().filter(e -> e.getValue() > 1).map(Map.Entry::getKey).toList();
    assertThat(duplicates).as("ids defined more than once in %s", SEMANTICS).isEmpty();

    Set<String> expected = new TreeSet<>();
    addIds(expected, "F", 8);
    addIds(expected, "Q", 14);
    addIds(expected, "T", 10);
    addIds(expected, "S", 13);
    addIds(expected, "E", 2);
    assertThat(new TreeSet<>(defined.keySet()))
        .as("rule ids defined in %s", SEMANTICS)
        .isEqualTo(expected);
    assertThat(sectionDefinitions(read(SEMANTICS))).containsExactly("F", "Q", "T", "S", "E");
  }

  @Test
  void everyRuleCitedInTheCodeIsDefined() {
    Set<String> defined = ruleDefinitions(read(SEMANTICS)).keySet();
    Set<String> sections = sectionDefinitions(read(SEMANTICS));
    List<String> undefined = new ArrayList<>();
    int cited = 0;
    for (Path file : javaSources()) {
      String source = read(file);
      for (Citation c : citations(source)) {
        cited++;
        if (!defined.contains(c.id())) {
          undefined.add(where(file, c.line()) + " cites " + c.id());
        }
      }
      for (Citation c : sectionCitations(source)) {
        if (!sections.contains(c.id())) {
          undefined.add(where(file, c.line()) + " cites section " + c.id());
        }
      }
    }
    assertThat(undefined).as("citations of rules that %s does not define", SEMANTICS).isEmpty();
    assertThat(cited)
        .as("citations found (the scanner must see the code's citations)")
        .isGreaterThan(100);
  }

  @Test
  void everyCitedArchitectureSectionExists() {
    Set<String> sections = architectureSections(read(ARCHITECTURE));
    List<String> missing = new ArrayList<>();
    for (Path file : javaSources()) {
      for (CommentLine c : comments(read(file))) {
        Matcher m = ARCHITECTURE_CITATION.matcher(c.text());
        while (m.find()) {
          if (!sections.contains(m.group(1))) {
            missing.add(where(file, c.line()) + " cites docs/architecture.md §" + m.group(1));
          }
        }
      }
    }
    assertThat(missing).as("citations of sections that %s does not have", ARCHITECTURE).isEmpty();
  }

  @Test
  void noCommentCitesDocumentsOutsideTheRepository() {
    List<String> found = new ArrayList<>();
    for (Path file : javaSources()) {
      for (CommentLine c : comments(read(file))) {
        Matcher m = OUTSIDE_DOCUMENT.matcher(c.text());
        while (m.find()) {
          found.add(
              where(file, c.line())
                  + " cites "
                  + m.group()
                  + " (cite docs/semantics.md or docs/architecture.md)");
        }
      }
    }
    assertThat(found).isEmpty();
  }

  @Test
  void whereLinesNameClassesAndTestsThatExist() {
    Map<String, List<Path>> types = typeDeclarations();
    Map<String, String> whereLines = whereLines(read(SEMANTICS));
    List<String> problems = new ArrayList<>();
    for (String id : ruleDefinitions(read(SEMANTICS)).keySet()) {
      String where = whereLines.get(id);
      if (where == null) {
        problems.add(id + ": no Where line");
        continue;
      }
      boolean namesTest = false;
      Matcher m = CODE_SPAN.matcher(where);
      while (m.find()) {
        String ref = m.group(1);
        if (!TYPE_REFERENCE.matcher(ref).matches()) {
          continue;
        }
        String type = ref.contains(".") ? ref.substring(0, ref.indexOf('.')) : ref;
        String member = ref.contains(".") ? ref.substring(ref.indexOf('.') + 1) : null;
        List<Path> files = types.getOrDefault(type, List.of());
        if (files.isEmpty()) {
          problems.add(id + ": no type " + type);
        } else if (member != null && files.stream().noneMatch(f -> containsWord(read(f), member))) {
          problems.add(id + ": " + type + " has no " + member);
        }
        namesTest |= type.endsWith("Test");
      }
      if (!namesTest) {
        problems.add(id + ": the Where line names no test");
      }
    }
    assertThat(problems).as("Where lines of %s", SEMANTICS).isEmpty();
  }

  // ---- the scanner, on made-up sources ----

  @Test
  void theScannerFindsCitationFormsInCommentsOnly() {
    String source =
        String.join(
            "\n",
            "/** Exact search (SPEC Q9–Q11): see also (Q6, Q9) and SPEC S3, S4 and S6. */",
            "class Made {",
            "  // Q99: a rule nobody defined; SPEC Z1 is no rule id at all",
            "  static final ArrowType F32 = type(\"(Q42) SPEC Q43 // Q44:\");",
            "  char c = '\"'; String s = \"/* (E9) */\";",
            "  /* reads s3a://bucket, S3 buckets, bytes 0xF1 0xE2, keys F1 and F2, fragments F0,F1 */",
            "  // SPEC Q4/Q5 and SPEC Q",
            "}");
    List<Citation> found = citations(source);
    assertThat(found)
        .extracting(Citation::id)
        .containsExactly("Q9", "Q10", "Q11", "Q6", "Q9", "S3", "S4", "S6", "Q99", "Q4", "Q5");
    assertThat(found)
        .filteredOn(c -> c.id().equals("Q99"))
        .extracting(Citation::line)
        .containsExactly(3);
    assertThat(sectionCitations(source)).extracting(Citation::id).containsExactly("Q");
  }

  @Test
  void theScannerSkipsStringsTextBlocksAndCharacters() {
    String source =
        "class T {\n  String a = \"\\\" (Q50) \\\"\";\n  String b = \"\"\"\n    // Q51:\n    \"\"\";\n"
            + "  char q = '\\''; // (Q52)\n}";
    assertThat(citations(source)).containsExactly(new Citation("Q52", 6));
  }

  @Test
  void aMadeUpIdFailsAgainstTheContract() {
    Set<String> defined = ruleDefinitions(read(SEMANTICS)).keySet();
    List<Citation> found = citations("/** Checks SPEC Q7 and (Q15). */\nclass X {}");
    assertThat(found).extracting(Citation::id).containsExactly("Q7", "Q15");
    assertThat(found)
        .filteredOn(c -> !defined.contains(c.id()))
        .extracting(Citation::id)
        .containsExactly("Q15");
  }

  @Test
  void aDuplicateDefinitionIsCounted() {
    String doc = "## Q — Queries\n\n### Q1 — One\n\ntext\n\n### Q2 — Two\n\n### Q1 — One again\n";
    assertThat(ruleDefinitions(doc)).containsEntry("Q1", 2).containsEntry("Q2", 1);
  }

  @Test
  void outsideDocumentsAreRecognizedInComments() {
    String source =
        "/** see the STYLE 4 rule and ARCHITECTURE" + ".md */\nclass Y { String s = \"STYLE 2\"; }";
    List<String> found = new ArrayList<>();
    for (CommentLine c : comments(source)) {
      Matcher m = OUTSIDE_DOCUMENT.matcher(c.text());
      while (m.find()) {
        found.add(m.group());
      }
    }
    assertThat(found).containsExactly("STYLE 4", "ARCHITECTURE" + ".md");
  }

  // ---- scanning ----

  /** Rule ids cited in the comments of {@code source}, in order, ranges expanded. */
  static List<Citation> citations(String source) {
    List<Citation> out = new ArrayList<>();
    for (CommentLine c : comments(source)) {
      // The id lists of every form, keyed by where they start; a list inside an earlier one counts
      // once.
      Map<Integer, String> lists = new TreeMap<>();
      for (Pattern form : CITATION_FORMS) {
        Matcher m = form.matcher(c.text());
        while (m.find()) {
          lists.putIfAbsent(m.start(1), m.group(1));
        }
      }
      Set<Integer> covered = new HashSet<>();
      for (Map.Entry<Integer, String> e : lists.entrySet()) {
        if (covered.contains(e.getKey())) {
          continue;
        }
        String list = e.getValue();
        for (int i = e.getKey(); i < e.getKey() + list.length(); i++) {
          covered.add(i);
        }
        for (String id : expand(list)) {
          out.add(new Citation(id, c.line()));
        }
      }
    }
    return out;
  }

  /** Sections cited as a whole ({@code SPEC Q}). */
  static List<Citation> sectionCitations(String source) {
    List<Citation> out = new ArrayList<>();
    for (CommentLine c : comments(source)) {
      Matcher m = SECTION_CITATION.matcher(c.text());
      while (m.find()) {
        out.add(new Citation(m.group(1), c.line()));
      }
    }
    return out;
  }

  /** The ids of a list such as {@code Q2, Q4–Q7 and Q9}: ranges of one letter expanded. */
  private static List<String> expand(String list) {
    Set<String> ids = new LinkedHashSet<>();
    Matcher r = RANGE.matcher(list);
    int last = 0;
    while (r.find()) {
      addAll(ids, list.substring(last, r.start()));
      int from = Integer.parseInt(r.group(2));
      int to = Integer.parseInt(r.group(4));
      if (r.group(1).equals(r.group(3)) && from <= to) {
        for (int n = from; n <= to; n++) {
          ids.add(r.group(1) + n);
        }
      } else {
        ids.add(r.group(1) + r.group(2));
        ids.add(r.group(3) + r.group(4));
      }
      last = r.end();
    }
    addAll(ids, list.substring(last));
    return new ArrayList<>(ids);
  }

  private static void addAll(Set<String> ids, String text) {
    Matcher m = ONE_ID.matcher(text);
    while (m.find()) {
      ids.add(m.group());
    }
  }

  /**
   * The comment text of each line of a Java source: line comments, block and Javadoc comments;
   * string literals, text blocks and character literals are skipped.
   */
  static List<CommentLine> comments(String source) {
    List<CommentLine> out = new ArrayList<>();
    StringBuilder text = new StringBuilder();
    int line = 1;
    int i = 0;
    int n = source.length();
    State state = State.CODE;
    while (i < n) {
      char ch = source.charAt(i);
      if (ch == '\n') {
        if (!text.toString().isBlank()) {
          out.add(new CommentLine(line, text.toString()));
        }
        text.setLength(0);
        line++;
        if (state == State.LINE_COMMENT) {
          state = State.CODE;
        }
        i++;
        continue;
      }
      switch (state) {
        case CODE -> {
          if (source.startsWith("//", i)) {
            state = State.LINE_COMMENT;
            i += 2;
          } else if (source.startsWith("/*", i)) {
            state = State.BLOCK_COMMENT;
            i += 2;
          } else if (source.startsWith("\"\"\"", i)) {
            state = State.TEXT_BLOCK;
            i += 3;
          } else if (ch == '"') {
            state = State.STRING;
            i++;
          } else if (ch == '\'') {
            state = State.CHAR;
            i++;
          } else {
            i++;
          }
        }
        case LINE_COMMENT -> {
          text.append(ch);
          i++;
        }
        case BLOCK_COMMENT -> {
          if (source.startsWith("*/", i)) {
            state = State.CODE;
            text.append(' ');
            i += 2;
          } else {
            text.append(ch);
            i++;
          }
        }
        case STRING, CHAR -> {
          if (ch == '\\') {
            i += source.charAt(Math.min(i + 1, n - 1)) == '\n' ? 1 : 2;
          } else {
            if ((state == State.STRING && ch == '"') || (state == State.CHAR && ch == '\'')) {
              state = State.CODE;
            }
            i++;
          }
        }
        case TEXT_BLOCK -> {
          if (ch == '\\') {
            i += source.charAt(Math.min(i + 1, n - 1)) == '\n' ? 1 : 2;
          } else if (source.startsWith("\"\"\"", i)) {
            state = State.CODE;
            i += 3;
          } else {
            i++;
          }
        }
        default -> throw new IllegalStateException("state " + state);
      }
    }
    if (!text.toString().isBlank()) {
      out.add(new CommentLine(line, text.toString()));
    }
    return out;
  }

  private enum State {
    CODE,
    LINE_COMMENT,
    BLOCK_COMMENT,
    STRING,
    CHAR,
    TEXT_BLOCK
  }

  // ---- the documents ----

  /** Rule id → how many headings define it. */
  static Map<String, Integer> ruleDefinitions(String markdown) {
    Map<String, Integer> out = new LinkedHashMap<>();
    for (String line : markdown.split("\n", -1)) {
      Matcher m = RULE_HEADING.matcher(line.strip());
      if (m.matches()) {
        out.merge(m.group(1), 1, Integer::sum);
      }
    }
    return out;
  }

  private static Set<String> sectionDefinitions(String markdown) {
    Set<String> out = new LinkedHashSet<>();
    for (String line : markdown.split("\n", -1)) {
      Matcher m = SECTION_HEADING.matcher(line.strip());
      if (m.matches()) {
        out.add(m.group(1));
      }
    }
    return out;
  }

  private static Set<String> architectureSections(String markdown) {
    Set<String> out = new LinkedHashSet<>();
    for (String line : markdown.split("\n", -1)) {
      Matcher m = ARCHITECTURE_HEADING.matcher(line.strip());
      if (m.matches()) {
        out.add(m.group(1));
      }
    }
    return out;
  }

  /** Rule id → the text of its Where paragraph (from "Where:" to the next blank line). */
  private static Map<String, String> whereLines(String markdown) {
    Map<String, String> out = new LinkedHashMap<>();
    String rule = null;
    StringBuilder where = null;
    for (String line : markdown.split("\n", -1)) {
      Matcher m = RULE_HEADING.matcher(line.strip());
      if (m.matches() || line.startsWith("## ")) {
        if (rule != null && where != null) {
          out.put(rule, where.toString());
        }
        rule = m.matches() ? m.group(1) : null;
        where = null;
        continue;
      }
      if (rule != null && line.startsWith("Where:")) {
        where = new StringBuilder(line);
      } else if (where != null && !line.isBlank()) {
        where.append(' ').append(line.strip());
      } else if (where != null) {
        out.put(rule, where.toString());
        where = null;
      }
    }
    if (rule != null && where != null) {
      out.put(rule, where.toString());
    }
    return out;
  }

  /** Simple type name → the source files declaring a type of that name. */
  private static Map<String, List<Path>> typeDeclarations() {
    Pattern declaration =
        Pattern.compile("\\b(?:class|interface|record|enum)\\s+([A-Z][A-Za-z0-9]*)");
    Map<String, List<Path>> out = new LinkedHashMap<>();
    for (Path file : javaSources()) {
      Matcher m = declaration.matcher(read(file));
      while (m.find()) {
        out.computeIfAbsent(m.group(1), k -> new ArrayList<>()).add(file);
      }
    }
    return out;
  }

  private static boolean containsWord(String text, String word) {
    return Pattern.compile("\\b" + Pattern.quote(word) + "\\b").matcher(text).find();
  }

  // ---- files ----

  private static List<Path> javaSources() {
    List<Path> out = new ArrayList<>();
    for (String dir : SOURCE_DIRS) {
      Path d = ROOT.resolve(dir);
      if (!Files.isDirectory(d)) {
        continue;
      }
      try (Stream<Path> files = Files.walk(d)) {
        files.filter(p -> p.toString().endsWith(".java")).sorted().forEach(out::add);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    assertThat(out).as("Java sources under %s", ROOT).isNotEmpty();
    return out;
  }

  private static String where(Path file, int line) {
    return ROOT.relativize(file) + ":" + line;
  }

  private static String read(Path file) {
    try {
      return Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void addIds(Set<String> ids, String letter, int count) {
    for (int n = 1; n <= count; n++) {
      ids.add(letter + n);
    }
  }

  /**
   * The repository root: the nearest directory above the working directory holding
   * docs/semantics.md.
   */
  private static Path repositoryRoot() {
    Path dir = Path.of("").toAbsolutePath();
    for (Path d = dir; d != null; d = d.getParent()) {
      if (Files.isRegularFile(d.resolve("docs/semantics.md"))
          && Files.isDirectory(d.resolve("engine"))) {
        return d;
      }
    }
    throw new IllegalStateException("No docs/semantics.md above " + dir);
  }
}
