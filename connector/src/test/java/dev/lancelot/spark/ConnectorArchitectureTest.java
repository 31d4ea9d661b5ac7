package dev.lancelot.spark;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The connector uses the engine's public API, and of its internal packages only those that
 * distributed execution needs, each for the reason docs/architecture.md §3 gives.
 */
class ConnectorArchitectureTest {
  /** The engine's internal packages the connector may use (docs/architecture.md §3). */
  static final String[] ALLOWED_INTERNALS = {
    "dev.lancelot.engine.internal",
    "dev.lancelot.engine.internal.format",
    "dev.lancelot.engine.internal.query",
    "dev.lancelot.engine.internal.query.plan..",
    "dev.lancelot.engine.internal.query.exec..",
    "dev.lancelot.engine.internal.scan..",
    "dev.lancelot.engine.internal.write..",
    "dev.lancelot.engine.internal.index.vector.build..",
    "dev.lancelot.engine.internal.format.proto..",
    "dev.lancelot.engine.internal.table..",
    "dev.lancelot.engine.internal.util.."
  };

  @Test
  void connectorUsesOnlyTheListedInternalPackages() {
    JavaClasses connector =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.lancelot.spark");
    noClasses()
        .should()
        .dependOnClassesThat(
            resideInAPackage("dev.lancelot.engine.internal..")
                .and(not(resideInAnyPackage(ALLOWED_INTERNALS))))
        .check(connector);
  }
}
