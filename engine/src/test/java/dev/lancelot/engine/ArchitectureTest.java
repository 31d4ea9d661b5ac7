package dev.lancelot.engine;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import dev.lancelot.engine.expr.BoundPredicate;
import dev.lancelot.engine.expr.FilterParser;
import dev.lancelot.engine.index.scalar.ScalarIndexQuery;
import dev.lancelot.engine.query.plan.Planner;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The engine's layering (docs/architecture.md §2), checked on the compiled main classes: the layers
 * that read and write bytes (file format, table format, storage, filters, schemas, Arrow helpers,
 * distance kernels) never depend on the layers built on them (indexes, vector queries, scans, the
 * table's commit machinery, writes, maintenance) or on the {@link Dataset} facade.
 */
@Tag("slow")
class ArchitectureTest {
  static JavaClasses engine;

  @BeforeAll
  static void importMainClasses() {
    engine =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.lancelot.engine");
  }

  @Test
  void lowerLayersDoNotDependOnTheLayersBuiltOnThem() {
    noClasses()
        .that()
        .resideInAnyPackage(
            "dev.lancelot.engine.file..",
            "dev.lancelot.engine.format..",
            "dev.lancelot.engine.io..",
            "dev.lancelot.engine.expr..",
            "dev.lancelot.engine.schema..",
            "dev.lancelot.engine.arrow..",
            "dev.lancelot.engine.vector..",
            "dev.lancelot.engine.util..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "dev.lancelot.engine.index..",
            "dev.lancelot.engine.query..",
            "dev.lancelot.engine.scan..",
            "dev.lancelot.engine.table..",
            "dev.lancelot.engine.write..",
            "dev.lancelot.engine.maintenance..")
        .check(engine);
    noClasses()
        .that()
        .resideOutsideOfPackage("dev.lancelot.engine")
        .and()
        .resideInAnyPackage(
            "dev.lancelot.engine.file..",
            "dev.lancelot.engine.format..",
            "dev.lancelot.engine.io..",
            "dev.lancelot.engine.expr..",
            "dev.lancelot.engine.schema..",
            "dev.lancelot.engine.arrow..",
            "dev.lancelot.engine.vector..",
            "dev.lancelot.engine.util..")
        .should()
        .dependOnClassesThat()
        .belongToAnyOf(Dataset.class, Scanner.class, DeletePlanner.class)
        .check(engine);
  }

  /**
   * The engine's subpackages (file, format, index, query, scan, table, write, ...) form no cycle:
   * each can be read, tested and changed knowing only the ones below it. The root package (the
   * {@link Dataset} facade and the base types every layer uses) is outside this rule until its base
   * types move to a package of their own (docs/architecture.md §2).
   */
  @Test
  void subpackagesFormNoCycle() {
    slices().matching("dev.lancelot.engine.(*)..").should().beFreeOfCycles().check(engine);
  }

  /** Planning a vector query decides what runs; it never reaches into what runs it. */
  @Test
  void planningDoesNotDependOnExecution() {
    noClasses()
        .that()
        .resideInAnyPackage("dev.lancelot.engine.query.plan..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("dev.lancelot.engine.query.exec..")
        .check(engine);
  }

  /**
   * Filters are parsed and bound where the user gives them (Scanner.filter(String), the planner,
   * Dataset.delete, ScalarIndexQuery.plan(String)); what runs the plan (executors, scans, the
   * merge, index evaluation) receives bound predicates and never parses.
   */
  @Test
  void executorsScansAndIndexEvaluationNeverParseFilters() {
    noClasses()
        .that()
        .resideInAnyPackage(
            "dev.lancelot.engine.query.exec..",
            "dev.lancelot.engine.scan..",
            "dev.lancelot.engine.index..")
        .and()
        .doNotHaveFullyQualifiedName(
            ScalarIndexQuery.class.getName()) // plan(Dataset, String) is an entry point
        .should()
        .callMethod(FilterParser.class, "parse", String.class)
        .orShould()
        .callMethod(BoundPredicate.class, "bind", String.class, Schema.class)
        .orShould()
        .callMethod(Dataset.class, "bindFilter", String.class)
        .orShould()
        .callMethod(Scanner.class, "filter", String.class)
        .orShould()
        .callMethod(ScalarIndexQuery.class, "plan", Dataset.class, String.class)
        .check(engine);
    noClasses()
        .that()
        .resideInAnyPackage("dev.lancelot.engine.query.plan..")
        .and()
        .doNotHaveFullyQualifiedName(Planner.class.getName())
        .should()
        .callMethod(FilterParser.class, "parse", String.class)
        .orShould()
        .callMethod(Dataset.class, "bindFilter", String.class)
        .check(engine);
  }
}
