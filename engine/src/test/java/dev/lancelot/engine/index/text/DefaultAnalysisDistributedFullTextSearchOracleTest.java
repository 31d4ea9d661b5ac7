package dev.lancelot.engine.index.text;

import dev.lancelot.engine.testing.LicenseCorpus;
import org.junit.jupiter.api.Tag;
import org.lance.index.IndexParams;

/**
 * Every check of {@link DistributedFullTextSearchOracleTest} over a partitioned index lance-core
 * builds with Lance's default tokenizer settings (English stemming and stop-word removal, SPEC T7).
 */
@Tag("oracle")
class DefaultAnalysisDistributedFullTextSearchOracleTest
    extends DistributedFullTextSearchOracleTest {
  @Override
  IndexParams indexParams() {
    return LicenseCorpus.defaultParams();
  }

  @Override
  String licenseToken() {
    return "licens";
  }
}
