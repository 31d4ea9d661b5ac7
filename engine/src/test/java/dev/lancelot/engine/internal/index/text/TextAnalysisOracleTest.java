package dev.lancelot.engine.internal.index.text;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.index.IndexSegment;
import dev.lancelot.engine.testing.LanceOracle;
import dev.lancelot.engine.testing.LicenseCorpus;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.lance.WriteParams;
import org.lance.index.IndexParams;
import org.lance.index.IndexType;
import org.lance.index.scalar.InvertedIndexParams;

/**
 * lancelot's text analysis applied to a corpus yields exactly the tokens of the inverted index
 * lance-core 7.0.0 builds over it: per partition, the same token set and, per document, the same
 * token count. The corpus is the paragraphs of Debian's common licenses plus every distinct word of
 * the installed packages' copyright files (tens of thousands of English words, names and non-ASCII
 * words), so Lance's stemmer and stop-word list are compared word by word.
 */
@Tag("oracle")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TextAnalysisOracleTest {
  private static final int WORDS_PER_DOC = 40;

  @TempDir static Path tmp;
  private BufferAllocator allocator;
  private List<String> docs;

  @BeforeAll
  void setUp() {
    allocator = new RootAllocator();
    docs = new ArrayList<>(LicenseCorpus.paragraphs());
    TreeSet<String> words = new TreeSet<>();
    for (String p : docs) {
      words.addAll(List.of(p.split("[^\\p{L}\\p{N}]+")));
    }
    try (Stream<Path> files = Files.walk(Path.of("/usr/share/doc"))) {
      for (Path f : files.filter(p -> p.getFileName().toString().equals("copyright")).toList()) {
        try {
          String text = new String(Files.readAllBytes(f), StandardCharsets.UTF_8);
          words.addAll(List.of(text.split("[^\\p{L}\\p{N}]+")));
        } catch (IOException e) {
          // An unreadable file only makes the corpus smaller.
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    words.remove("");
    assertThat(words).as("distinct words of the corpus").hasSizeGreaterThan(2000);
    StringBuilder doc = new StringBuilder();
    int n = 0;
    for (String w : words) {
      doc.append(w).append(' ');
      if (++n % WORDS_PER_DOC == 0) {
        docs.add(doc.toString());
        doc.setLength(0);
      }
    }
    if (doc.length() > 0) {
      docs.add(doc.toString());
    }
  }

  @AfterAll
  void tearDown() {
    allocator.close();
  }

  private Path build(String name, IndexParams params) {
    Path dir = tmp.resolve(name);
    LicenseCorpus.write(allocator, dir, docs, 0, docs.size(), WriteParams.WriteMode.CREATE, 4000);
    try (org.lance.Dataset ds = LanceOracle.open(allocator, dir)) {
      ds.createIndex(List.of("text"), IndexType.INVERTED, Optional.of("text_idx"), params, true);
    }
    return dir;
  }

  /** Every partition holds exactly the tokens, and every document the token count, we derive. */
  private void assertSameTokens(Path dir) {
    try (Dataset ds = Dataset.open(dir.toString())) {
      List<IndexSegment> segments = ds.indexes().segments("text_idx");
      assertThat(segments).isNotEmpty();
      int partitions = 0;
      for (IndexSegment segment : segments) {
        InvertedIndexReader reader = TextSearcher.reader(ds, segment);
        TextAnalyzer analyzer = TextAnalyzer.of(reader.params(), "text_idx");
        for (InvertedIndexReader.Partition p : reader.partitions()) {
          partitions++;
          Map<Long, String> text = texts(ds, p.rowIds);
          TreeSet<String> expected = new TreeSet<>();
          List<String> missing = new ArrayList<>();
          List<String> counts = new ArrayList<>();
          for (int doc = 0; doc < p.rowIds.length; doc++) {
            List<String> tokens = analyzer.tokens(text.get(p.rowIds[doc]));
            if (tokens.size() != p.numTokens[doc]) {
              counts.add(tokens.size() + " != " + p.numTokens[doc] + ": " + tokens);
            }
            expected.addAll(tokens);
          }
          for (String t : expected) {
            if (p.tokenId(t) < 0) {
              missing.add(t);
            }
          }
          assertThat(missing).as("our tokens the index lacks (partition %d)", p.id).isEmpty();
          assertThat(counts).as("token counts of documents (partition %d)", p.id).isEmpty();
          assertThat(p.tokenCount()).as("tokens of partition %d", p.id).isEqualTo(expected.size());
        }
      }
      assertThat(partitions).isPositive();
    }
  }

  private static Map<Long, String> texts(Dataset ds, long[] rowIds) {
    Map<Long, String> out = new HashMap<>();
    try (VectorSchemaRoot rows = ds.takeRows(rowIds, List.of("text"))) {
      VarCharVector text = (VarCharVector) rows.getVector("text");
      for (int i = 0; i < rows.getRowCount(); i++) {
        out.put(rowIds[i], new String(text.get(i), StandardCharsets.UTF_8));
      }
    }
    return out;
  }

  @Test
  void defaultSettingsStemAndDropStopWordsAsLanceDoes() {
    assertSameTokens(build("default", LicenseCorpus.defaultParams()));
  }

  @Test
  void stemmingAloneAsLanceDoes() {
    assertSameTokens(build("stem", LicenseCorpus.params(true, false)));
  }

  @Test
  void stopWordsAloneAsLanceDoes() {
    assertSameTokens(build("stop", LicenseCorpus.params(false, true)));
  }

  @Test
  void customStopWordsAsLanceDoes() {
    IndexParams params =
        IndexParams.builder()
            .setScalarIndexParams(
                InvertedIndexParams.builder()
                    .baseTokenizer("simple")
                    .language("English")
                    .withPosition(false)
                    .maxTokenLength(40)
                    .lowerCase(true)
                    .stem(true)
                    .removeStopWords(true)
                    .customStopWords(List.of("licens", "softwar", "the", "gnu"))
                    .asciiFolding(true)
                    .build())
            .build();
    assertSameTokens(build("custom", params));
  }
}
