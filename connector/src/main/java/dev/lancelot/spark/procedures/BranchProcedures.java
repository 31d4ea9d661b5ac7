package dev.lancelot.spark.procedures;

import dev.lancelot.engine.Branch;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.Tag;
import dev.lancelot.spark.LanceCatalog;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * The branch procedures: {@code create_branch}, {@code delete_branch} and {@code list_branches},
 * over the engine's branch API (Lance 7's {@code _refs/branches/} and {@code tree/<name>/},
 * decision D58). Each returns the branches it touched (or all of them, for {@code list_branches})
 * as rows of {@link #OUTPUT}.
 */
final class BranchProcedures {
  private BranchProcedures() {}

  static final StructType OUTPUT =
      new StructType()
          .add("branch", DataTypes.StringType, false)
          .add("parent_branch", DataTypes.StringType, true)
          .add("parent_version", DataTypes.LongType, false)
          .add("created_at", DataTypes.TimestampType, false);

  static InternalRow row(Branch b) {
    return new GenericInternalRow(
        new Object[] {
          UTF8String.fromString(b.name()),
          b.parentBranch().map(UTF8String::fromString).orElse(null),
          b.parentVersion(),
          Math.multiplyExact(b.createdAt().getEpochSecond(), 1_000_000L)
        });
  }

  /**
   * {@code CALL lance.system.create_branch(table => 'db.items', branch => 'dev' [, version => 3] [,
   * from_branch => 'other'] [, tag => 'gold'])}: creates a branch from a version (default: the
   * latest) of the main branch or of {@code from_branch}, or from the version a tag names.
   */
  static final class Create extends LanceProcedure {
    static final String NAME = "create_branch";
    private static final Parameter[] PARAMETERS = {
      required("table", DataTypes.StringType),
      required("branch", DataTypes.StringType),
      optional("version", DataTypes.LongType),
      optional("from_branch", DataTypes.StringType),
      optional("tag", DataTypes.StringType),
    };

    Create(LanceCatalog catalog) {
      super(
          catalog,
          NAME,
          "Creates a branch from a version (default: the latest) of the main branch or of "
              + "from_branch, or from the version a tag names.",
          PARAMETERS,
          OUTPUT);
    }

    @Override
    protected List<InternalRow> run(SparkSession spark, ProcedureArguments args) {
      String name = args.string("branch");
      try (Dataset ds = TagProcedures.open(tableLocation(args))) {
        if (args.has("tag")) {
          if (args.has("version") || args.has("from_branch")) {
            throw new InvalidInputException(
                "create_branch takes a tag or a version (and from_branch), not both: the tag "
                    + "names the version and its branch.");
          }
          Tag t = ds.tags().get(args.string("tag"));
          return List.of(row(ds.createBranchFromTag(name, t.name())));
        }
        Optional<String> from =
            args.has("from_branch") ? Optional.of(args.string("from_branch")) : Optional.empty();
        long version = TagProcedures.version(args, ds, from.filter(b -> !b.equals("main")));
        return List.of(row(ds.createBranch(name, from, version)));
      }
    }
  }

  /** {@code CALL lance.system.delete_branch(table => ..., branch => ...)}: deletes a branch. */
  static final class Delete extends LanceProcedure {
    static final String NAME = "delete_branch";
    private static final Parameter[] PARAMETERS = {
      required("table", DataTypes.StringType), required("branch", DataTypes.StringType),
    };

    Delete(LanceCatalog catalog) {
      super(
          catalog,
          NAME,
          "Deletes a branch and its versions (refused while a branch created from it or a tag "
              + "on it remains).",
          PARAMETERS,
          OUTPUT);
    }

    @Override
    protected List<InternalRow> run(SparkSession spark, ProcedureArguments args) {
      String name = args.string("branch");
      try (Dataset ds = TagProcedures.open(tableLocation(args))) {
        Optional<Branch> b = ds.branches().stream().filter(x -> x.name().equals(name)).findFirst();
        ds.deleteBranch(name); // a missing branch is an error naming the branches
        return b.map(BranchProcedures::row).map(List::of).orElse(List.of());
      }
    }
  }

  /** {@code CALL lance.system.list_branches(table => ...)}: every branch, by name. */
  static final class ListBranches extends LanceProcedure {
    static final String NAME = "list_branches";
    private static final Parameter[] PARAMETERS = {
      required("table", DataTypes.StringType),
    };

    ListBranches(LanceCatalog catalog) {
      super(catalog, NAME, "Lists the branches of a table, by name.", PARAMETERS, OUTPUT);
    }

    @Override
    protected List<InternalRow> run(SparkSession spark, ProcedureArguments args) {
      try (Dataset ds = TagProcedures.open(tableLocation(args))) {
        List<InternalRow> out = new ArrayList<>();
        ds.branches().forEach(b -> out.add(row(b)));
        return out;
      }
    }
  }
}
