package dev.lancelot.spark.procedures;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.OpenOptions;
import dev.lancelot.engine.Tag;
import dev.lancelot.spark.LanceCatalog;
import dev.lancelot.spark.LancePathCatalog;
import dev.lancelot.spark.MetadataTable;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * The tag procedures: {@code create_tag}, {@code update_tag}, {@code delete_tag} and {@code
 * list_tags}, over the engine's {@link Dataset#tags()} (Lance 7's {@code _refs/tags/}). Each
 * returns the tags it touched (or all of them, for {@code list_tags}) as rows of {@link #OUTPUT}.
 */
final class TagProcedures {
  private TagProcedures() {}

  static final StructType OUTPUT = MetadataTable.TAGS;

  static InternalRow row(Tag t) {
    return MetadataTable.tagRow(t);
  }

  static Dataset open(String location) {
    return Dataset.open(
        location, OpenOptions.defaults().withHadoopConf(LancePathCatalog.hadoopConf()));
  }

  /** Argument {@code version}, or the latest version of {@code branch} when absent. */
  static long version(ProcedureArguments args, Dataset ds, Optional<String> branch) {
    if (args.has("version")) {
      long v = ((Number) args.given().get("version")).longValue();
      if (v < 1) {
        throw new InvalidInputException(
            "argument version must be a version number (1, 2, ...), got " + v + ".");
      }
      return v;
    }
    if (branch.isEmpty()) {
      return ds.version();
    }
    try (Dataset b =
        Dataset.open(
            ds.location(),
            OpenOptions.defaults()
                .withHadoopConf(LancePathCatalog.hadoopConf())
                .withBranch(branch.get()))) {
      return b.version();
    }
  }

  static Optional<String> branch(ProcedureArguments args) {
    return args.has("branch") ? Optional.of(args.string("branch")) : Optional.empty();
  }

  /** The parameters of create_tag and update_tag. */
  private static final Parameter[] SET_PARAMETERS = {
    LanceProcedure.required("table", DataTypes.StringType),
    LanceProcedure.required("tag", DataTypes.StringType),
    LanceProcedure.optional("version", DataTypes.LongType),
    LanceProcedure.optional("branch", DataTypes.StringType),
  };

  /**
   * {@code CALL lance.system.create_tag(table => 'db.items', tag => 'gold' [, version => 3] [,
   * branch => 'dev'])}: tags a version (the latest of the branch when {@code version} is absent).
   */
  static final class Create extends LanceProcedure {
    static final String NAME = "create_tag";

    Create(LanceCatalog catalog) {
      super(
          catalog,
          NAME,
          "Creates a tag on a version (default: the latest) of the main branch or of branch.",
          SET_PARAMETERS,
          OUTPUT);
    }

    @Override
    protected List<InternalRow> run(SparkSession spark, ProcedureArguments args) {
      return setTag(this, args, true);
    }
  }

  /**
   * {@code CALL lance.system.update_tag(table => ..., tag => ... [, version => n] [, branch =>
   * ...])}: moves an existing tag.
   */
  static final class Update extends LanceProcedure {
    static final String NAME = "update_tag";

    Update(LanceCatalog catalog) {
      super(
          catalog,
          NAME,
          "Moves an existing tag to a version (default: the latest) of the main branch or of branch.",
          SET_PARAMETERS,
          OUTPUT);
    }

    @Override
    protected List<InternalRow> run(SparkSession spark, ProcedureArguments args) {
      return setTag(this, args, false);
    }
  }

  /** Creates ({@code create}) or moves the tag the arguments name; its row. */
  private static List<InternalRow> setTag(
      LanceProcedure procedure, ProcedureArguments args, boolean create) {
    try (Dataset ds = open(procedure.tableLocation(args))) {
      Optional<String> branch = branch(args);
      long version = version(args, ds, branch);
      String tag = args.string("tag");
      return List.of(
          row(
              create
                  ? ds.tags().create(tag, version, branch)
                  : ds.tags().update(tag, version, branch)));
    }
  }

  /** {@code CALL lance.system.delete_tag(table => ..., tag => ...)}: deletes a tag. */
  static final class Delete extends LanceProcedure {
    static final String NAME = "delete_tag";
    private static final Parameter[] PARAMETERS = {
      required("table", DataTypes.StringType), required("tag", DataTypes.StringType),
    };

    Delete(LanceCatalog catalog) {
      super(
          catalog,
          NAME,
          "Deletes a tag (the version it named stays until cleanup).",
          PARAMETERS,
          OUTPUT);
    }

    @Override
    protected List<InternalRow> run(SparkSession spark, ProcedureArguments args) {
      try (Dataset ds = open(tableLocation(args))) {
        Tag t = ds.tags().get(args.string("tag"));
        ds.tags().delete(t.name());
        return List.of(row(t));
      }
    }
  }

  /** {@code CALL lance.system.list_tags(table => ...)}: every tag, by name. */
  static final class ListTags extends LanceProcedure {
    static final String NAME = "list_tags";
    private static final Parameter[] PARAMETERS = {
      required("table", DataTypes.StringType),
    };

    ListTags(LanceCatalog catalog) {
      super(catalog, NAME, "Lists the tags of a table, by name.", PARAMETERS, OUTPUT);
    }

    @Override
    protected List<InternalRow> run(SparkSession spark, ProcedureArguments args) {
      try (Dataset ds = open(tableLocation(args))) {
        List<InternalRow> out = new ArrayList<>();
        ds.tags().list().forEach(t -> out.add(row(t)));
        return out;
      }
    }
  }
}
