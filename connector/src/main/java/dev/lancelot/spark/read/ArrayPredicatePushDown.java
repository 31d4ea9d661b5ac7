package dev.lancelot.spark.read;

import dev.lancelot.engine.expr.ArrayContains;
import dev.lancelot.engine.expr.BoundPredicate;
import dev.lancelot.engine.expr.Column;
import dev.lancelot.engine.expr.Literal;
import dev.lancelot.engine.expr.Predicate;
import dev.lancelot.engine.expr.Predicates;
import dev.lancelot.spark.LanceTable;
import dev.lancelot.spark.ScalaCollections;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.SparkSessionExtensions;
import org.apache.spark.sql.catalyst.expressions.And;
import org.apache.spark.sql.catalyst.expressions.ArraysOverlap;
import org.apache.spark.sql.catalyst.expressions.AttributeReference;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.Or;
import org.apache.spark.sql.catalyst.plans.logical.Filter;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.rules.Rule;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import scala.collection.Iterator;
import scala.runtime.AbstractFunction1;

/**
 * Gives a lance scan the array predicates Spark does not push to a data source (decision D77):
 * {@code array_contains(col, value)} and {@code arrays_overlap(col, array(values))} (either order)
 * on a list column, alone or under {@code AND} / {@code OR} in a {@code WHERE} directly over a
 * lance table. Spark's V2 pushdown has no form for them, so without this rule a scan reads every
 * row even when a label-list index answers them.
 *
 * <p>Each such test becomes the engine's {@code array_contains} / {@code array_has_any} (NULL
 * values of the array literal left out), whose TRUE rows are exactly Spark's: Spark's three-valued
 * answer is TRUE only when a non-NULL element equals a searched value, and NULL (for a NULL list, a
 * NULL value, or a list with a NULL element and no match) and FALSE rows are both dropped by a
 * filter. The parts of the condition that are not such tests are taken as TRUE (an {@code AND}
 * keeps its other side, an {@code OR} with one is not used), so the engine filter selects a
 * superset of the query's rows; it is set on the relation's table ({@link
 * LanceTable#withScanFilter}), the scan builder ANDs it with the predicates Spark pushes, and
 * Spark's filter stays above the scan and decides every row. Negations, {@code size}, other
 * functions and casts are left to Spark. Element types: integers, strings (binary collation),
 * binaries, dates (days); floats are left to Spark, whose equality makes {@code -0.0} equal {@code
 * 0.0} and NaN equal NaN where the engine's total order does not, and so are timestamps.
 *
 * <p>A pre-CBO optimizer rule: it sees the {@code WHERE} on the relation after operator
 * optimization (constant arrays folded into literals) and before Spark builds the scan. {@link
 * #ENABLED_CONF} turns it off.
 */
public final class ArrayPredicatePushDown extends Rule<LogicalPlan> {
  /** Session conf: whether array predicates reach lance scans (true). */
  public static final String ENABLED_CONF = "spark.lancelot.scan.arrayPredicates.enabled";

  /** Installs the rule in a session's optimizer. */
  public static void inject(SparkSessionExtensions extensions) {
    extensions.injectPreCBORule(
        new AbstractFunction1<SparkSession, Rule<LogicalPlan>>() {
          @Override
          public Rule<LogicalPlan> apply(SparkSession session) {
            return new ArrayPredicatePushDown();
          }
        });
  }

  @Override
  public LogicalPlan apply(LogicalPlan plan) {
    if (!Boolean.parseBoolean(SQLConf.get().getConfString(ENABLED_CONF, "true"))) {
      return plan;
    }
    return rewrite(plan);
  }

  private static LogicalPlan rewrite(LogicalPlan node) {
    if (node instanceof Filter filter
        && filter.child() instanceof DataSourceV2Relation relation
        && relation.table() != null
        && relation.table().getClass() == LanceTable.class) {
      LanceTable table = (LanceTable) relation.table();
      Optional<Predicate> pushed = new Translator(relation, table).superset(filter.condition());
      if (pushed.isEmpty()
          || (table.scanFilter() != null
              && table.scanFilter().toSql().equals(pushed.get().toSql()))) {
        return node; // nothing to add, or added already: the rule is idempotent
      }
      LogicalPlan withFilter = withTable(relation, table.withScanFilter(pushed.get()));
      return filter.withNewChildren(ScalaCollections.list(List.of(withFilter)));
    }
    List<LogicalPlan> children = ScalaCollections.toJava(node.children());
    List<LogicalPlan> rewritten = new ArrayList<>(children.size());
    boolean changed = false;
    for (LogicalPlan child : children) {
      LogicalPlan r = rewrite(child);
      changed |= r != child;
      rewritten.add(r);
    }
    return changed ? node.withNewChildren(ScalaCollections.list(rewritten)) : node;
  }

  /**
   * {@code relation} with {@code table} in place of its table. The relation's constructor differs
   * between Spark lines (4.1 added a time-travel argument), so the copy goes through the tree
   * node's own copy of its arguments rather than a constructor call.
   */
  private static LogicalPlan withTable(DataSourceV2Relation relation, LanceTable table) {
    List<Object> args = new ArrayList<>();
    Iterator<Object> it = relation.productIterator();
    while (it.hasNext()) {
      Object arg = it.next();
      args.add(arg == relation.table() ? table : arg);
    }
    return relation.makeCopy(args.toArray());
  }

  /** Translates a condition over one relation. */
  private static final class Translator {
    private final DataSourceV2Relation relation;
    private final Schema schema;

    Translator(DataSourceV2Relation relation, LanceTable table) {
      this.relation = relation;
      this.schema = table.arrowSchema();
    }

    /** An engine predicate TRUE on every row where {@code e} is TRUE, if there is one. */
    Optional<Predicate> superset(Expression e) {
      if (e instanceof And and) {
        Optional<Predicate> l = superset(and.left());
        Optional<Predicate> r = superset(and.right());
        if (l.isPresent() && r.isPresent()) {
          return Optional.of(Predicates.and(l.get(), r.get()));
        }
        return l.isPresent() ? l : r;
      }
      if (e instanceof Or or) {
        Optional<Predicate> l = superset(or.left());
        Optional<Predicate> r = superset(or.right());
        return l.isPresent() && r.isPresent()
            ? Optional.of(Predicates.or(l.get(), r.get()))
            : Optional.empty();
      }
      if (e instanceof org.apache.spark.sql.catalyst.expressions.ArrayContains c) {
        return contains(c.left(), c.right());
      }
      if (e instanceof ArraysOverlap o) {
        Optional<Predicate> p = overlaps(o.left(), o.right());
        return p.isPresent() ? p : overlaps(o.right(), o.left());
      }
      return Optional.empty();
    }

    private Optional<Predicate> contains(Expression list, Expression value) {
      Field element = elementField(list);
      if (element == null
          || !(value instanceof org.apache.spark.sql.catalyst.expressions.Literal lit)
          || lit.value() == null
          || !lit.dataType().equals(((ArrayType) list.dataType()).elementType())) {
        return Optional.empty();
      }
      return checked(
          new ArrayContains(
              column(list),
              List.of(literal(lit.value(), lit.dataType())),
              ArrayContains.Mode.CONTAINS));
    }

    private Optional<Predicate> overlaps(Expression list, Expression values) {
      Field element = elementField(list);
      if (element == null
          || !(values instanceof org.apache.spark.sql.catalyst.expressions.Literal lit)
          || lit.value() == null
          || !(lit.dataType() instanceof ArrayType litType)
          || !litType.elementType().equals(((ArrayType) list.dataType()).elementType())) {
        return Optional.empty();
      }
      ArrayData data = (ArrayData) lit.value();
      Set<String> seen = new LinkedHashSet<>();
      List<Literal> searched = new ArrayList<>();
      for (int i = 0; i < data.numElements(); i++) {
        if (!data.isNullAt(i)) {
          Literal v = literal(data.get(i, litType.elementType()), litType.elementType());
          if (seen.add(v.toSql())) {
            searched.add(v);
          }
        }
      }
      if (searched.isEmpty()) {
        return Optional.empty(); // never TRUE in Spark; left to Spark's filter
      }
      return checked(new ArrayContains(column(list), searched, ArrayContains.Mode.ANY));
    }

    private Optional<Predicate> checked(Predicate p) {
      return BoundPredicate.canEvaluate(p, schema) ? Optional.of(p) : Optional.empty();
    }

    private static Column column(Expression list) {
      return Column.named(((AttributeReference) list).name());
    }

    /**
     * The element field of the list column {@code e} refers to, when it is one of the relation's
     * list columns whose element type's equality is Spark's; else null.
     */
    private Field elementField(Expression e) {
      if (!(e instanceof AttributeReference a)
          || !relation.outputSet().contains(a)
          || !(a.dataType() instanceof ArrayType sparkType)) {
        return null;
      }
      Field column = null;
      for (Field f : schema.getFields()) {
        if (f.getName().equals(a.name())) {
          column = f;
        }
      }
      if (column == null
          || !(column.getType() instanceof ArrowType.List
              || column.getType() instanceof ArrowType.LargeList)) {
        return null;
      }
      Field element = column.getChildren().get(0);
      return sameEquality(element.getType(), sparkType.elementType()) ? element : null;
    }

    /** Whether Spark's equality of {@code spark} values is the engine's on {@code arrow}. */
    private static boolean sameEquality(ArrowType arrow, DataType spark) {
      if (arrow instanceof ArrowType.Int i) {
        return !(i.getBitWidth() == 64 && !i.getIsSigned()); // uint64 reads as a decimal
      } else if (arrow instanceof ArrowType.Utf8 || arrow instanceof ArrowType.LargeUtf8) {
        return DataTypes.StringType.equals(spark); // the binary collation only
      } else if (arrow instanceof ArrowType.Binary || arrow instanceof ArrowType.LargeBinary) {
        return true;
      } else if (arrow instanceof ArrowType.Date d) {
        return d.getUnit() == DateUnit.DAY;
      }
      // timestamps are left to Spark: the engine's filtered scan cannot yet gather the rows of a
      // list of zoned timestamps (Arrow's list copy refuses the element type)
      return false;
    }

    /** The engine literal of a Spark value of {@code type} (not a timestamp). */
    private static Literal literal(Object value, DataType type) {
      return Literal.of(SparkPredicates.javaValue(value, type));
    }
  }
}
