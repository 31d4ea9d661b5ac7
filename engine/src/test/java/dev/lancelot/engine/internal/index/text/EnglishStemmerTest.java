package dev.lancelot.engine.internal.index.text;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Words of the sample vocabulary published with the Snowball English algorithm and its rules' edge
 * cases; {@link TextAnalysisOracleTest} compares the stemmer with Lance's over a whole corpus.
 */
class EnglishStemmerTest {
  private static void check(Map<String, String> expected) {
    Map<String, String> actual = new LinkedHashMap<>();
    for (String w : expected.keySet()) {
      actual.put(w, EnglishStemmer.stem(w));
    }
    assertThat(actual).containsExactlyEntriesOf(expected);
  }

  @Test
  void sampleVocabulary() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("consign", "consign");
    m.put("consigned", "consign");
    m.put("consigning", "consign");
    m.put("consignment", "consign");
    m.put("consistency", "consist");
    m.put("consistently", "consist");
    m.put("consolation", "consol");
    m.put("consolatory", "consolatori");
    m.put("consolidated", "consolid");
    m.put("consolingly", "consol");
    m.put("conspicuously", "conspicu");
    m.put("conspiracy", "conspiraci");
    m.put("constable", "constabl");
    m.put("constance", "constanc");
    m.put("knackeries", "knackeri");
    m.put("kneeling", "kneel");
    m.put("knightly", "knight");
    m.put("knitting", "knit");
    m.put("knives", "knive");
    m.put("hoping", "hope");
    m.put("generously", "generous");
    check(m);
  }

  @Test
  void exceptionalFormsShortWordsAndYs() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("skies", "sky");
    m.put("dying", "die");
    m.put("news", "news");
    m.put("succeeded", "succeed");
    m.put("by", "by");
    m.put("cry", "cri");
    m.put("say", "say");
    m.put("ties", "tie");
    m.put("cries", "cri");
    m.put("gas", "gas");
    m.put("gaps", "gap");
    m.put("this", "this");
    m.put("does", "doe");
    m.put("yearly", "year");
    check(m);
  }
}
