package dev.lancelot.spark;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The connector uses the engine's public API alone, as the CLI does: the distributed operations it
 * runs on Spark go through {@code dev.lancelot.engine.distributed} (docs/architecture.md §3, §8).
 */
class ConnectorArchitectureTest {
  @Test
  void connectorUsesNoInternalEnginePackage() {
    JavaClasses connector =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.lancelot.spark");
    noClasses()
        .should()
        .dependOnClassesThat()
        .resideInAPackage("dev.lancelot.engine.internal..")
        .check(connector);
  }
}
