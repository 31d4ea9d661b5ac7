package dev.lancelot.cli;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The CLI uses the engine's public API, and of its internal packages only those that its reports
 * need, each for the reason docs/architecture.md §3 gives.
 */
class CliArchitectureTest {
  /** The engine's internal packages the CLI may use (docs/architecture.md §3). */
  static final String[] ALLOWED_INTERNALS = {
    "dev.lancelot.engine.internal.format.proto..", "dev.lancelot.engine.internal.table.."
  };

  @Test
  void cliUsesOnlyTheListedInternalPackages() {
    JavaClasses cli =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.lancelot.cli");
    noClasses()
        .should()
        .dependOnClassesThat(
            resideInAPackage("dev.lancelot.engine.internal..")
                .and(not(resideInAnyPackage(ALLOWED_INTERNALS))))
        .check(cli);
  }
}
