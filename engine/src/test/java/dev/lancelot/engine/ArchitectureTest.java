package dev.lancelot.engine;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import dev.lancelot.engine.expr.BoundPredicate;
import dev.lancelot.engine.expr.FilterParser;
import dev.lancelot.engine.index.scalar.ScalarIndexQuery;
import dev.lancelot.engine.internal.query.plan.Planner;
import java.util.Set;
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
            "dev.lancelot.engine.internal.file..",
            "dev.lancelot.engine.internal.format..",
            "dev.lancelot.engine.io..",
            "dev.lancelot.engine.expr..",
            "dev.lancelot.engine.internal.expr..",
            "dev.lancelot.engine.schema..",
            "dev.lancelot.engine.internal.arrow..",
            "dev.lancelot.engine.vector..",
            "dev.lancelot.engine.internal.vector..",
            "dev.lancelot.engine.internal.util..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "dev.lancelot.engine.index..",
            "dev.lancelot.engine.internal.index..",
            "dev.lancelot.engine.query..",
            "dev.lancelot.engine.internal.query..",
            "dev.lancelot.engine.internal.scan..",
            "dev.lancelot.engine.internal.table..",
            "dev.lancelot.engine.internal.write..",
            "dev.lancelot.engine.internal.maintenance..")
        .check(engine);
    noClasses()
        .that()
        .resideOutsideOfPackage("dev.lancelot.engine")
        .and()
        .resideInAnyPackage(
            "dev.lancelot.engine.internal.file..",
            "dev.lancelot.engine.internal.format..",
            "dev.lancelot.engine.io..",
            "dev.lancelot.engine.expr..",
            "dev.lancelot.engine.internal.expr..",
            "dev.lancelot.engine.schema..",
            "dev.lancelot.engine.internal.arrow..",
            "dev.lancelot.engine.vector..",
            "dev.lancelot.engine.internal.vector..",
            "dev.lancelot.engine.internal.util..")
        .should()
        .dependOnClassesThat()
        .belongToAnyOf(Dataset.class, Scanner.class, DeletePlanner.class)
        .check(engine);
  }

  /**
   * The engine's layers (file, format, index, query, scan, table, write, ..., each with its
   * internal part; see {@link #LAYERS}) form no cycle: each can be read, tested and changed knowing
   * only the ones below it. The root package's base types are a layer of their own ({@code base});
   * its facade classes ({@link #FACADE}) are outside this rule: they sit on top of every layer, and
   * the layers take the {@link Dataset} handle as a parameter (docs/architecture.md §2.1).
   */
  @Test
  void layersFormNoCycle() {
    slices().assignedFrom(LAYERS).should().beFreeOfCycles().check(engine);
  }

  /**
   * A layer is a first-level sub-package with its internal part: {@code index} holds {@code
   * dev.lancelot.engine.index..} and {@code dev.lancelot.engine.internal.index..} (a public facade
   * and its implementation depend on each other by design; layers must not).
   */
  static final SliceAssignment LAYERS =
      new SliceAssignment() {
        @Override
        public SliceIdentifier getIdentifierOf(JavaClass c) {
          String p = c.getPackageName();
          String prefix = "dev.lancelot.engine.";
          if (p.equals("dev.lancelot.engine")) {
            return FACADE.contains(topLevel(c).getSimpleName())
                ? SliceIdentifier.ignore()
                : SliceIdentifier.of("base");
          }
          if (!p.startsWith(prefix)) {
            return SliceIdentifier.ignore();
          }
          String rest = p.substring(prefix.length());
          if (rest.equals("internal")) {
            // The root's internal part (the facade's accessors) goes with the root.
            return SliceIdentifier.ignore();
          }
          if (rest.startsWith("internal.")) {
            rest = rest.substring("internal.".length());
          }
          int dot = rest.indexOf('.');
          return SliceIdentifier.of(dot < 0 ? rest : rest.substring(0, dot));
        }

        @Override
        public String getDescription() {
          return "engine layers (first-level packages, public and internal parts together)";
        }
      };

  /**
   * The root package's classes that work on the layers: the {@link Dataset} facade and what it
   * delegates to inside the package, the result that holds a new version ({@code
   * CompactionResult}), and the value types that carry a layer's data (a written fragment's
   * manifest entry, the dataset's column types, a schema comparison), and the {@link Session} that
   * holds the layers' caches with the options that carry it. Every other root class is a base type
   * (exceptions, options, results, plain values) that any layer may use.
   */
  static final Set<String> FACADE =
      Set.of(
          "Dataset",
          "Blob",
          "DatasetStorage",
          "DatasetAccess",
          "DatasetWrites",
          "DatasetRowChanges",
          "DatasetRestore",
          "VersionRows",
          "DatasetScans",
          "Scanner",
          "ScanSettings",
          "CompactionResult",
          "DatasetCache",
          "Session",
          "OpenOptions",
          "Tags",
          "BranchOps",
          "ColumnChanges",
          "DeletePlanner",
          "ScanIndexPlanner",
          "RowChangesPlanner",
          "RowTaker",
          "FragmentMetadata",
          "DatasetTypes",
          "SchemaCompatibility");

  private static JavaClass topLevel(JavaClass c) {
    JavaClass t = c;
    while (t.getEnclosingClass().isPresent()) {
      t = t.getEnclosingClass().get();
    }
    return t;
  }

  /**
   * The root package's base types use nothing of the engine but each other, so every layer can use
   * them without depending on the facade; the facade classes ({@link #FACADE}) sit on top of the
   * layers, and the layers take the {@link Dataset} handle as a parameter.
   */
  @Test
  void baseTypesOfTheRootPackageUseNoLayer() {
    classes()
        .that()
        .resideInAPackage("dev.lancelot.engine")
        .and(
            new DescribedPredicate<JavaClass>("are base types") {
              @Override
              public boolean test(JavaClass c) {
                return !FACADE.contains(topLevel(c).getSimpleName());
              }
            })
        .should()
        .onlyDependOnClassesThat(
            new DescribedPredicate<JavaClass>("are outside the engine or base types") {
              @Override
              public boolean test(JavaClass c) {
                return !c.getPackageName().startsWith("dev.lancelot.engine")
                    || (c.getPackageName().equals("dev.lancelot.engine")
                        && !FACADE.contains(topLevel(c).getSimpleName()));
              }
            })
        .check(engine);
  }

  /** Planning a vector query decides what runs; it never reaches into what runs it. */
  @Test
  void planningDoesNotDependOnExecution() {
    noClasses()
        .that()
        .resideInAnyPackage("dev.lancelot.engine.internal.query.plan..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("dev.lancelot.engine.internal.query.exec..")
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
            "dev.lancelot.engine.internal.query.exec..",
            "dev.lancelot.engine.internal.scan..",
            "dev.lancelot.engine.index..",
            "dev.lancelot.engine.internal.index..")
        .and()
        .doNotHaveFullyQualifiedName(
            ScalarIndexQuery.class.getName()) // plan(Dataset, String) is an entry point
        .and()
        .doNotHaveFullyQualifiedName(
            dev.lancelot.engine.index.text.FullTextSearch.class
                .getName()) // search(Dataset, FullTextQuery) binds the query's filter
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
        .resideInAnyPackage("dev.lancelot.engine.internal.query.plan..")
        .and()
        .doNotHaveFullyQualifiedName(Planner.class.getName())
        .should()
        .callMethod(FilterParser.class, "parse", String.class)
        .orShould()
        .callMethod(Dataset.class, "bindFilter", String.class)
        .check(engine);
  }
}
