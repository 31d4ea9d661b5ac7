package dev.lancelot.engine.index.text;

import dev.lancelot.engine.testing.LicenseCorpus;
import org.junit.jupiter.api.Tag;
import org.lance.index.IndexParams;

/**
 * Every check of {@link FullTextSearchOracleTest} over an index lance-core builds with Lance's
 * default tokenizer settings — English stemming and stop-word removal — so queries are stemmed and
 * their stop words dropped as the documents were (SPEC T7).
 */
@Tag("oracle")
class DefaultAnalysisFullTextSearchOracleTest extends FullTextSearchOracleTest {
  @Override
  IndexParams indexParams() {
    return LicenseCorpus.defaultParams();
  }
}
