package dev.lancelot.engine.internal.file;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancelot.engine.io.HadoopFileIO;
import dev.lancelot.engine.io.InputFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Which encodings and layouts the reader is proven on. lance-core 7.0.0 writes every data shape
 * (flat, flat with encoding hints, nested) in formats 2.0, 2.1 and 2.2, every packed struct shape
 * in the formats it can write it in, and maps in 2.2; each file is read back in full and compared
 * with the data written, and the encodings of its pages are collected. The encoding table of {@code
 * docs/format-compatibility.md} must claim "read" (✓) for a format exactly for the encodings seen
 * here in that format: no claim without a file that exercised it, no exercised encoding missing
 * from the table.
 */
@Tag("oracle")
class EncodingCoverageTest {
  static final List<String> VERSIONS = List.of("2.0", "2.1", "2.2");
  static final Path DOC = locateDoc();

  @TempDir Path dir;

  interface Batch {
    VectorSchemaRoot make(BufferAllocator allocator, long seed, int rows);
  }

  /**
   * {@code nested}: a shape whose format 2.0 file Lance reads back with structs of nulls for null
   * structs (the expected values are then Lance's own read).
   */
  record Case(String name, String version, int rows, Batch batch, boolean nested) {}

  static List<Case> cases() {
    List<Case> out = new ArrayList<>();
    for (String version : VERSIONS) {
      List<Shapes.Shape> flat = new ArrayList<>(Shapes.all());
      flat.addAll(Shapes.withEncodingHints());
      for (Shapes.Shape s : flat) {
        out.add(
            new Case(
                s.name(), version, s.rows(), (a, seed, n) -> Shapes.batch(s, a, seed, n), false));
      }
      for (NestedShapes.Shape s : NestedShapes.all()) {
        out.add(
            new Case(
                s.name(),
                version,
                s.rows(),
                (a, seed, n) -> NestedShapes.batch(s, a, seed, n),
                true));
      }
      if (version.equals("2.2")) {
        for (NestedShapes.Shape s : NestedShapes.maps()) {
          out.add(
              new Case(
                  s.name(),
                  version,
                  s.rows(),
                  (a, seed, n) -> NestedShapes.batch(s, a, seed, n),
                  false));
        }
      }
      for (NestedShapes.PackedShape p : NestedShapes.packed()) {
        NestedShapes.Shape s = p.shape();
        if (p.versions().contains(version)) {
          // no nulls in packed structs: the values written are what Lance reads in every format
          out.add(
              new Case(
                  s.name(),
                  version,
                  s.rows(),
                  (a, seed, n) -> NestedShapes.batch(s, a, seed, n),
                  false));
        }
      }
    }
    return out;
  }

  @Test
  void everyEncodingTheDocumentClaimsIsReadFromLanceWrittenFiles() throws Exception {
    Map<String, Map<String, Set<String>>> seen = new TreeMap<>(); // version -> token -> shapes
    for (String v : VERSIONS) {
      seen.put(v, new TreeMap<>());
    }
    try (BufferAllocator allocator = new RootAllocator()) {
      for (Case c : cases()) {
        Path path = dir.resolve(c.name() + "-" + c.version() + ".lance");
        List<Object> expected = new ArrayList<>();
        int first = c.rows() / 2 + 7;
        VectorSchemaRoot[] batches = {
          c.batch().make(allocator, 1, first), c.batch().make(allocator, 2, c.rows() - first)
        };
        try {
          OracleFiles.write(path, allocator, c.version(), List.of(batches));
          for (VectorSchemaRoot b : batches) {
            expected.addAll(Values.of(b.getVector(0)));
          }
        } finally {
          for (VectorSchemaRoot b : batches) {
            b.close();
          }
        }
        if (c.nested() && c.version().equals("2.0")) {
          // format 2.0 cannot store null structs: Lance itself reads them back as structs of nulls
          expected = OracleFiles.readColumn(path, allocator, "c");
        }
        try (InputFile in = HadoopFileIO.local().newInputFile(path.toUri().toString())) {
          LanceFileReader reader = LanceFileReader.open(in);
          assertThat(
                  LanceFileReaderOracleTest.scan(
                      reader,
                      FileProjection.all(reader.schema()),
                      0,
                      reader.numRows(),
                      1000,
                      allocator))
              .as("%s (%s)", c.name(), c.version())
              .containsExactlyElementsOf(expected);
          for (List<String> pages : LanceFileInspector.encodings(in).values()) {
            for (String page : pages) {
              for (String token : tokens(c.version(), page)) {
                seen.get(c.version()).computeIfAbsent(token, k -> new TreeSet<>()).add(c.name());
              }
            }
          }
        }
      }
    }
    StringBuilder report =
        new StringBuilder("Encodings read from lance-core 7.0.0 files, per format:\n");
    seen.forEach(
        (v, tokens) ->
            tokens.forEach(
                (t, shapes) ->
                    report.append(
                        String.format(
                            "  %s  %-28s %d shapes, e.g. %s%n",
                            v, t, shapes.size(), shapes.iterator().next()))));
    System.out.println(report);

    Map<String, Set<String>> claimed = claimedInDoc();
    for (String v : VERSIONS) {
      assertThat(seen.get(v).keySet())
          .as("encodings read in format %s (observed) vs claimed in %s", v, DOC)
          .containsExactlyInAnyOrderElementsOf(claimed.get(v));
    }
  }

  static final Pattern NAME =
      Pattern.compile(
          "\\b(Flat|Variable|Constant|OutOfLineBitpacking|InlineBitpacking|Fsst"
              + "|Dictionary|Rle|ByteStreamSplit|FixedSizeList|PackedStruct|VariablePackedStruct|Binary|List"
              + "|SimpleStruct|Bitpacked)\\(");

  /** The document's names for the encodings in a page description of {@link LanceFileInspector}. */
  static Set<String> tokens(String version, String page) {
    Set<String> out = new TreeSet<>();
    if (version.equals("2.0")) {
      if (page.contains("Nullable(all null)")) {
        out.add("Nullable (all null)");
      }
      if (page.contains("Nullable(validity")) {
        out.add("Nullable (some nulls)");
      }
      if (page.contains("SimpleStruct")) {
        out.add("SimpleStruct");
      }
    } else {
      if (page.startsWith("MiniBlock[")) {
        out.add("MiniBlock");
      } else if (page.startsWith("FullZip[fixed")) {
        out.add("FullZip (fixed width)");
      } else if (page.startsWith("FullZip[variable")) {
        out.add("FullZip (variable width)");
      } else if (page.startsWith("AllNull[")) {
        out.add("AllNull");
      } else if (page.startsWith("Constant[inline")) {
        out.add("Constant page (inline value)");
      } else if (page.startsWith("Constant[value in buffer")) {
        out.add("Constant page (value in buffer)");
      } else {
        out.add(page.replaceAll("\\[.*", ""));
      }
      if (page.contains("dictionary=")) {
        out.add("Dictionary");
      }
      if (page.contains("repindex depth")) {
        out.add("Repetition index");
      }
      if (page.contains("large chunks")) {
        out.add("Large chunks");
      }
      if (page.contains(", validity, ")) {
        out.add("FixedSizeList (item validity)");
      }
    }
    Matcher m = NAME.matcher(page);
    while (m.find()) {
      out.add(m.group(1));
    }
    Matcher general = Pattern.compile("General\\((zstd|lz4)").matcher(page);
    while (general.find()) {
      out.add("General (" + general.group(1) + ")");
    }
    Matcher compressedFlat = Pattern.compile("Flat\\(\\d+, (zstd|lz4)\\)").matcher(page);
    while (compressedFlat.find()) {
      out.add("Flat (" + compressedFlat.group(1) + ")");
    }
    if (version.equals("2.0")
        && Pattern.compile("Nullable\\((?!validity|all null)").matcher(page).find()) {
      out.add("Nullable (no nulls)");
    }
    return out;
  }

  /**
   * Per format, the encodings marked ✓ in the doc's table between {@code <!-- encodings:begin -->}
   * and {@code <!-- encodings:end -->}: rows {@code | `name` | 2.0 | 2.1 | 2.2 | ...}.
   */
  static Map<String, Set<String>> claimedInDoc() throws Exception {
    String text = Files.readString(DOC);
    int from = text.indexOf("<!-- encodings:begin -->");
    int to = text.indexOf("<!-- encodings:end -->");
    assertThat(from).as("encoding table markers in %s", DOC).isPositive();
    assertThat(to).isGreaterThan(from);
    Map<String, Set<String>> claimed = new TreeMap<>();
    for (String v : VERSIONS) {
      claimed.put(v, new TreeSet<>());
    }
    for (String line : text.substring(from, to).split("\n")) {
      if (!line.startsWith("| `")) {
        continue;
      }
      String[] cells = line.split("\\|");
      String name = cells[1].trim();
      name = name.substring(1, name.indexOf('`', 1));
      for (int i = 0; i < VERSIONS.size(); i++) {
        if (cells[2 + i].contains("✓")) {
          claimed.get(VERSIONS.get(i)).add(name);
        }
      }
    }
    return claimed;
  }

  static Path locateDoc() {
    Path p = Path.of("").toAbsolutePath();
    while (p != null && !Files.exists(p.resolve("docs/format-compatibility.md"))) {
      p = p.getParent();
    }
    return p == null
        ? Path.of("docs/format-compatibility.md")
        : p.resolve("docs/format-compatibility.md");
  }
}
