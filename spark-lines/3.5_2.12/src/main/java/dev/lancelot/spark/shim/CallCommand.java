package dev.lancelot.spark.shim;

import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.spark.LanceCatalog;
import dev.lancelot.spark.ScalaCollections;
import dev.lancelot.spark.parser.ProcedureCall;
import dev.lancelot.spark.procedures.LanceProcedure;
import dev.lancelot.spark.procedures.Parameter;
import dev.lancelot.spark.procedures.Procedures;
import dev.lancelot.spark.scalashim.CommandPlan;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.CatalystTypeConverters;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.analysis.UnresolvedAlias;
import org.apache.spark.sql.catalyst.expressions.Alias;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.Cast;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.parser.ParseException;
import org.apache.spark.sql.catalyst.parser.ParserInterface;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.OneRowRelation;
import org.apache.spark.sql.catalyst.plans.logical.Project;
import org.apache.spark.sql.catalyst.types.DataTypeUtils;
import org.apache.spark.sql.connector.catalog.CatalogManager;
import org.apache.spark.sql.connector.catalog.CatalogPlugin;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.MetadataBuilder;
import org.apache.spark.sql.types.StructType;
import scala.Option;

/**
 * {@code CALL} of a lance catalog's procedure on Spark 3.5 (D76), which has no stored procedures:
 * the same {@link LanceProcedure} the Spark 4 lines run through Spark's, with the same checks. When
 * the statement runs (a command runs at once), the arguments are analysed as constant expressions,
 * bound by name and position ({@link LanceProcedure#bind}), ordered, completed with the parameters'
 * defaults, cast to the parameters' types and evaluated; the procedure's rows are the statement's
 * result.
 */
public final class CallCommand extends CommandPlan {
  private static final long serialVersionUID = 1L;
  private static final Metadata BY_NAME =
      new MetadataBuilder().putBoolean(LanceProcedure.BY_NAME_METADATA_KEY, true).build();

  /** One parsed argument: its parameter's name (null when positional) and its expression. */
  record Argument(String name, String sql, Expression expression) {}

  private final transient LanceProcedure procedure;
  private final transient List<Argument> arguments;
  private final transient List<Expression> defaults;
  private final scala.collection.immutable.List<Attribute> output;

  /**
   * Public, with the product's elements, for Spark, which copies plan nodes through their public
   * constructor.
   */
  public CallCommand(
      LanceProcedure procedure,
      List<Argument> arguments,
      List<Expression> defaults,
      scala.collection.Seq<? extends Attribute> output) {
    this.procedure = procedure;
    this.arguments = List.copyOf(arguments);
    this.defaults = new ArrayList<>(defaults);
    this.output = ScalaCollections.list(ScalaCollections.toJava(output));
  }

  /**
   * The command of {@code call}: finds the procedure (its catalog is the name's first part when
   * that is a catalog, the current catalog otherwise) and parses its arguments and the parameters'
   * defaults with {@code parser}.
   */
  static CallCommand of(SparkSession session, ParserInterface parser, ProcedureCall call)
      throws ParseException {
    List<String> parts = call.nameParts();
    CatalogManager catalogs = session.sessionState().catalogManager();
    boolean qualified = parts.size() > 1 && catalogs.isCatalogRegistered(parts.get(0));
    CatalogPlugin catalog = qualified ? catalogs.catalog(parts.get(0)) : catalogs.currentCatalog();
    List<String> ident = qualified ? parts.subList(1, parts.size()) : parts;
    if (!(catalog instanceof LanceCatalog lance)) {
      throw new InvalidInputException(
          "Cannot run CALL "
              + String.join(".", parts)
              + ": catalog "
              + catalog.name()
              + " is not a lance catalog, and Spark 3.5 has no stored procedures of its own; "
              + "lancelot's CALL runs the procedures of a lance catalog, e.g. CALL "
              + "lance.system.compact(table => 'db.items').");
    }
    LanceProcedure procedure =
        Procedures.load(
            lance,
            Identifier.of(
                ident.subList(0, ident.size() - 1).toArray(new String[0]),
                ident.get(ident.size() - 1)));
    List<Argument> arguments = new ArrayList<>();
    for (ProcedureCall.Argument a : call.arguments()) {
      arguments.add(new Argument(a.name(), a.sql(), parser.parseExpression(a.sql())));
    }
    List<Expression> defaults = new ArrayList<>();
    for (Parameter p : procedure.parameters()) {
      defaults.add(p.required() ? null : parser.parseExpression(p.defaultSql()));
    }
    return new CallCommand(
        procedure, arguments, defaults, DataTypeUtils.toAttributes(procedure.outputType()));
  }

  @Override
  public scala.collection.immutable.List<Row> run(SparkSession spark) {
    StructType given = new StructType();
    List<Expression> analysed = analyse(spark, arguments.stream().map(Argument::expression));
    for (int i = 0; i < arguments.size(); i++) {
      Argument a = arguments.get(i);
      Expression e = analysed.get(i);
      if (!e.foldable()) {
        throw new InvalidInputException(
            "Cannot run "
                + procedure.qualifiedName()
                + ": argument "
                + (a.name() == null ? String.valueOf(i + 1) : a.name())
                + " ("
                + a.sql()
                + ") is not a constant. Usage: "
                + procedure.usage());
      }
      given =
          a.name() == null
              ? given.add("arg" + (i + 1), e.dataType())
              : given.add(a.name(), e.dataType(), true, BY_NAME);
    }
    procedure.bind(given);
    Parameter[] parameters = procedure.parameters();
    List<Expression> ordered = new ArrayList<>();
    for (int p = 0; p < parameters.length; p++) {
      Expression value = defaults.get(p);
      for (int i = 0; i < arguments.size(); i++) {
        Argument a = arguments.get(i);
        if (a.name() == null ? i == p : a.name().equalsIgnoreCase(parameters[p].name())) {
          value = a.expression();
        }
      }
      ordered.add(new Cast(value, parameters[p].dataType(), Option.empty()));
    }
    List<Expression> values = analyse(spark, ordered.stream());
    Object[] input = new Object[values.size()];
    for (int p = 0; p < input.length; p++) {
      input[p] = values.get(p).eval(null);
    }
    List<Row> rows = new ArrayList<>();
    for (InternalRow r : procedure.execute(new GenericInternalRow(input))) {
      rows.add((Row) CatalystTypeConverters.convertToScala(r, procedure.outputType()));
    }
    return ScalaCollections.list(rows);
  }

  /** {@code expressions} resolved as the columns of a one-row query. */
  private static List<Expression> analyse(
      SparkSession spark, java.util.stream.Stream<Expression> expressions) {
    List<NamedExpression> columns = new ArrayList<>();
    expressions.forEach(e -> columns.add(new UnresolvedAlias(e, Option.empty())));
    LogicalPlan plan =
        SparkLine.ofRows(spark, new Project(ScalaCollections.list(columns), new OneRowRelation()))
            .queryExecution()
            .analyzed();
    List<Expression> out = new ArrayList<>();
    for (NamedExpression n : ScalaCollections.toJava(((Project) plan).projectList())) {
      out.add(n instanceof Alias alias ? alias.child() : (Expression) n);
    }
    return out;
  }

  @Override
  public scala.collection.immutable.List<Attribute> output() {
    return output;
  }

  @Override
  public String nodeName() {
    return "LanceCall";
  }

  @Override
  public String simpleString(int maxFields) {
    List<String> args = new ArrayList<>();
    arguments.forEach(a -> args.add(a.name() == null ? a.sql() : a.name() + " => " + a.sql()));
    return "CALL " + procedure.qualifiedName() + "(" + String.join(", ", args) + ")";
  }

  @Override
  public int productArity() {
    return 4;
  }

  @Override
  public Object productElement(int n) {
    return switch (n) {
      case 0 -> procedure;
      case 1 -> arguments;
      case 2 -> defaults;
      case 3 -> output;
      default -> throw new IndexOutOfBoundsException(n);
    };
  }

  @Override
  public boolean canEqual(Object that) {
    return that instanceof CallCommand;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof CallCommand c
        && c.procedure == procedure
        && c.arguments.equals(arguments)
        && c.defaults.equals(defaults)
        && c.output.equals(output);
  }

  @Override
  public int hashCode() {
    return Objects.hash(System.identityHashCode(procedure), arguments, defaults, output);
  }
}
