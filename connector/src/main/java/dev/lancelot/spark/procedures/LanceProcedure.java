package dev.lancelot.spark.procedures;

import dev.lancelot.engine.ClosestName;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.LancelotException;
import dev.lancelot.spark.LanceCatalog;
import dev.lancelot.spark.LancePathCatalog;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.NullType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * A stored procedure of {@link LanceCatalog}: one class per procedure, with named parameters and
 * one result table. {@link #bind} checks the arguments' names and types (no I/O, no side effect: it
 * runs while the statement is analysed, also for {@code EXPLAIN CALL}); {@link #execute} validates
 * the values and does the work, only when the {@code CALL} statement runs. A value the procedure
 * refuses (an unknown table, a bad index type...) is reported as one {@link LancelotException}
 * naming the procedure and its usage.
 *
 * <p>This class is the same on every Spark line (D76): on the Spark 4 lines {@code
 * CatalogProcedures} presents it to Spark's stored procedures, on Spark 3.5 the {@code CALL}
 * statement of lancelot's parser extension runs it.
 */
public abstract class LanceProcedure {
  /**
   * The metadata key marking a field of {@link #bind}'s input type as a named argument ({@code name
   * => value}); its value is that of Spark 4's {@code ProcedureParameter.BY_NAME_METADATA_KEY}, so
   * Spark's input type is checked as it comes.
   */
  public static final String BY_NAME_METADATA_KEY = "BY_NAME";

  private final LanceCatalog catalog;
  private final String name;
  private final String summary;
  private final Parameter[] parameters;
  private final StructType outputType;

  /**
   * @param name the procedure's name in namespace {@value Procedures#NAMESPACE}, e.g. {@code
   *     create_index}
   * @param summary what it does, in one sentence (shown by {@code DESCRIBE PROCEDURE}, before the
   *     usage)
   * @param parameters the required ones first (as Spark requires), then the optional ones (default
   *     NULL)
   * @param outputType the columns of the rows {@link #run} returns
   */
  protected LanceProcedure(
      LanceCatalog catalog,
      String name,
      String summary,
      Parameter[] parameters,
      StructType outputType) {
    this.catalog = catalog;
    this.name = name;
    this.summary = summary;
    this.parameters = parameters.clone();
    this.outputType = outputType;
  }

  /** The procedure's name in namespace {@value Procedures#NAMESPACE}. */
  public String name() {
    return name;
  }

  /** The parameters, the required ones first. */
  public Parameter[] parameters() {
    return parameters.clone();
  }

  /** Columns of the rows {@link #run} returns. */
  public StructType outputType() {
    return outputType;
  }

  /** Does the work, once the statement runs; returns the rows describing what it did. */
  protected abstract List<InternalRow> run(SparkSession spark, ProcedureArguments args);

  protected LanceCatalog catalog() {
    return catalog;
  }

  /** {@code <catalog>.system.<name>}. */
  public String qualifiedName() {
    return catalog.name() + "." + Procedures.NAMESPACE + "." + name();
  }

  /** {@code CALL lance.system.name(required => <type>, ... [, optional => <type>, ...])}. */
  public String usage() {
    StringBuilder required = new StringBuilder();
    StringBuilder optional = new StringBuilder();
    for (Parameter p : parameters()) {
      String arg = p.name() + " => <" + p.dataType().sql().toLowerCase(Locale.ROOT) + ">";
      if (p.required()) {
        required.append(required.length() == 0 ? "" : ", ").append(arg);
      } else {
        optional.append(", ").append(arg);
      }
    }
    return "CALL "
        + qualifiedName()
        + "("
        + required
        + (optional.length() == 0 ? "" : " [" + optional + "]")
        + ")";
  }

  /** What it does and its usage (shown by {@code DESCRIBE PROCEDURE}). */
  public String description() {
    return summary + " Usage: " + usage();
  }

  /**
   * Checks the arguments' names and types against {@link #parameters()}, so that a misspelt name
   * (with the closest parameter name), a missing required argument or a value of the wrong type is
   * refused with the usage; the caller then orders the arguments and casts them to the parameters'
   * types. A field of {@code inputType} is a named argument when its metadata has {@link
   * #BY_NAME_METADATA_KEY} set to true, a positional one otherwise.
   *
   * @return this procedure
   */
  public LanceProcedure bind(StructType inputType) {
    Parameter[] params = parameters();
    Set<String> given = new HashSet<>();
    StructField[] fields = inputType.fields();
    for (int i = 0; i < fields.length; i++) {
      StructField f = fields[i];
      Parameter p;
      if (byName(f)) {
        p = parameter(f.name());
        if (p == null) {
          throw refused(
              "unknown parameter \""
                  + f.name()
                  + "\". Did you mean \""
                  + ClosestName.closest(
                      f.name(), Arrays.stream(params).map(Parameter::name).toList())
                  + "\"?");
        }
      } else if (i < params.length) {
        p = params[i];
      } else {
        throw refused(
            "too many arguments (" + fields.length + "; it takes at most " + params.length + ")");
      }
      given.add(p.name());
      if (!accepts(p.dataType(), f.dataType())) {
        throw refused(
            "parameter "
                + p.name()
                + " takes a "
                + p.dataType().sql()
                + ", got a "
                + f.dataType().sql());
      }
    }
    for (Parameter p : params) {
      if (p.required() && !given.contains(p.name())) {
        throw refused("parameter " + p.name() + " is required");
      }
    }
    return this;
  }

  /**
   * Runs the procedure on {@code input}, the arguments in parameter order cast to the parameters'
   * types (absent optional ones set to their defaults), and returns its result rows ({@link
   * #outputType()}).
   */
  public List<InternalRow> execute(InternalRow input) {
    try {
      return run(SparkSession.active(), new ProcedureArguments(parameters(), input));
    } catch (LancelotException e) {
      String message =
          "Cannot run " + qualifiedName() + ": " + e.getMessage() + " Usage: " + usage();
      throw e instanceof InvalidInputException
          ? new InvalidInputException(message, e)
          : new LancelotException(message, e);
    }
  }

  /**
   * The location of argument {@code table}: a table name of this catalog ({@code db.items}) or a
   * path or URI; refused when no dataset is there.
   */
  protected String tableLocation(ProcedureArguments args) {
    String table = args.string("table");
    String location = catalog.locationOf(table);
    if (!Dataset.exists(location, LancePathCatalog.hadoopConf())) {
      throw new InvalidInputException(
          "table \""
              + table
              + "\" does not exist: there is no Lance dataset at "
              + location
              + ". Create it first (CREATE TABLE ... AS SELECT, or write a DataFrame to it).");
    }
    return location;
  }

  protected static Parameter required(String name, DataType type) {
    return new Parameter(name, type, null);
  }

  protected static Parameter optional(String name, DataType type) {
    return new Parameter(name, type, "NULL");
  }

  protected static Parameter optional(String name, DataType type, String defaultSql) {
    return new Parameter(name, type, defaultSql);
  }

  private LancelotException refused(String reason) {
    String end = reason.endsWith("?") ? " " : ". ";
    return new InvalidInputException(
        "Cannot run " + qualifiedName() + ": " + reason + end + "Usage: " + usage());
  }

  private Parameter parameter(String name) {
    for (Parameter p : parameters()) {
      if (p.name().equalsIgnoreCase(name)) {
        return p;
      }
    }
    return null;
  }

  private static boolean byName(StructField f) {
    return f.metadata().contains(BY_NAME_METADATA_KEY)
        && f.metadata().getBoolean(BY_NAME_METADATA_KEY);
  }

  /**
   * Arguments Spark can cast to the parameter's type without losing meaning; NULL fits every type.
   */
  private static boolean accepts(DataType parameter, DataType argument) {
    if (argument instanceof NullType) {
      return true;
    }
    if (parameter.equals(DataTypes.LongType)) {
      return argument instanceof LongType
          || argument instanceof IntegerType
          || argument instanceof ShortType
          || argument instanceof ByteType;
    }
    if (parameter instanceof StringType) {
      return argument instanceof StringType;
    }
    if (parameter instanceof BooleanType) {
      return argument instanceof BooleanType;
    }
    if (parameter instanceof DoubleType) {
      // a literal such as 0.01 is a DECIMAL in Spark SQL; Spark casts it to the parameter's type
      return argument instanceof DoubleType
          || argument instanceof FloatType
          || argument instanceof DecimalType
          || argument instanceof LongType
          || argument instanceof IntegerType;
    }
    return parameter.equals(argument);
  }
}
