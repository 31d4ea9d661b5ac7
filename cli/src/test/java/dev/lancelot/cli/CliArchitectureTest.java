package dev.lancelot.cli;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** The CLI uses the engine's public API only (docs/architecture.md §3). */
class CliArchitectureTest {
  @Test
  void cliUsesOnlyThePublicApi() {
    JavaClasses cli =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.lancelot.cli");
    noClasses()
        .should()
        .dependOnClassesThat()
        .resideInAPackage("dev.lancelot.engine.internal..")
        .check(cli);
  }
}
