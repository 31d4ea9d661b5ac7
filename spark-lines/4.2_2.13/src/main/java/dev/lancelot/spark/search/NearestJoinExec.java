package dev.lancelot.spark.search;

import dev.lancelot.spark.ScalaCollections;
import dev.lancelot.spark.SerializableConfiguration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.BoundReference;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.types.DataTypeUtils;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.SparkStrategy;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import scala.collection.immutable.IndexedSeq;
import scala.collection.immutable.Seq;

/**
 * The physical node of a NEAREST BY join planned as lancelot's batch search: the left side's rows,
 * each with its query vector evaluated, are the queries of a query frame search (SPEC S6: blocks of
 * queries × search units, candidates grouped by query and merged with the engine's merge, so each
 * left row gets exactly its own top k); its rows are the left row followed by the right side's
 * columns of each match, and, for {@code LEFT OUTER}, the left rows without a match followed by
 * NULLs.
 */
public final class NearestJoinExec extends SparkPlan {
  private static final long serialVersionUID = 1L;
  private final SparkPlan child;
  private final transient NearestJoin search;
  private final scala.collection.immutable.List<Attribute> carried;
  private final Expression query;

  /** Public for Spark, which copies plan nodes through their public constructor. */
  public NearestJoinExec(
      SparkPlan child, NearestJoin search, Seq<Attribute> carried, Expression query) {
    this.child = child;
    this.search = search;
    this.carried = ScalaCollections.list(ScalaCollections.toJava(carried));
    this.query = query;
  }

  /** Plans a {@link NearestJoinNode}; installed on Spark 4.2 by {@code LanceSparkExtensions}. */
  public static final class Strategy extends SparkStrategy {
    @Override
    public scala.collection.immutable.List<SparkPlan> apply(LogicalPlan plan) {
      List<SparkPlan> planned =
          plan instanceof NearestJoinNode n
              ? List.of(
                  new NearestJoinExec(planLater(n.left()), n.search(), n.carried(), n.query()))
              : List.of();
      return ScalaCollections.list(planned);
    }
  }

  @Override
  public Seq<Attribute> output() {
    List<Attribute> out = new ArrayList<>(ScalaCollections.toJava(carried));
    out.addAll(ScalaCollections.toJava(search.right));
    return ScalaCollections.list(out);
  }

  @Override
  public Seq<SparkPlan> children() {
    return ScalaCollections.list(List.of(child));
  }

  @Override
  public SparkPlan withNewChildrenInternal(IndexedSeq<SparkPlan> newChildren) {
    return new NearestJoinExec(newChildren.apply(0), search, carried, query);
  }

  @Override
  public String nodeName() {
    return "LanceNearestJoin";
  }

  @Override
  public String simpleString(int maxFields) {
    return search.description.stripTrailing() + "\n  query vectors: " + search.queryExpression;
  }

  @Override
  public RDD<InternalRow> doExecute() {
    NearestJoin s = search;
    int left = carried.size();
    List<Expression> projected = new ArrayList<>(ScalaCollections.toJava(carried));
    projected.add(query);
    JavaRDD<InternalRow> queries =
        child
            .execute()
            .toJavaRDD()
            .mapPartitions(new Project(ScalaCollections.list(projected), child.output()), false);
    StructType carriedSchema = DataTypeUtils.fromAttributes(carried);
    List<StructField> out = new ArrayList<>(List.of(carriedSchema.fields()));
    for (StructField f : s.results.fields()) {
      out.add(new StructField(f.name(), f.dataType(), true, f.metadata()));
    }
    StructType outSchema = new StructType(out.toArray(new StructField[0]));
    List<Expression> arrange = new ArrayList<>();
    for (int i = 0; i < left; i++) {
      arrange.add(new BoundReference(i, outSchema.fields()[i].dataType(), true));
    }
    List<Attribute> right = ScalaCollections.toJava(s.right);
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(sparkContext());
    JavaRDD<InternalRow> merged;
    if (s.plan.taskCount() == 0) {
      // nothing to search (an empty table): no left row has a match
      for (Attribute a : right) {
        arrange.add(Literal.create(null, a.dataType()));
      }
      merged = s.outer ? queries : jsc.<InternalRow>emptyRDD();
    } else {
      for (int j = 0; j < right.size(); j++) {
        int ordinal = left + s.position(j);
        arrange.add(new BoundReference(ordinal, outSchema.fields()[ordinal].dataType(), true));
      }
      int blockSize =
          Integer.parseInt(
              org.apache.spark.sql.internal.SQLConf.get()
                  .getConfString(
                      QueryFrameSearch.BLOCK_CONF, String.valueOf(QueryFrameSearch.DEFAULT_BLOCK)));
      boolean doubles = ((ArrayType) query.dataType()).elementType().equals(DataTypes.DoubleType);
      QueryFrameSearch.Job job =
          new QueryFrameSearch.Job(
              s.plan,
              new SerializableConfiguration(s.conf),
              s.queryExpression,
              carriedSchema,
              outSchema,
              blockSize,
              doubles,
              false,
              s.outer,
              true);
      merged = QueryFrameSearch.run(jsc, job, queries);
    }
    return merged.mapPartitions(new Project(ScalaCollections.list(arrange), null), false).rdd();
  }

  /** Projects each row of a partition; with {@code input}, binds the expressions to it. */
  private static final class Project
      implements FlatMapFunction<Iterator<InternalRow>, InternalRow> {
    private static final long serialVersionUID = 1L;
    private final scala.collection.immutable.List<Expression> expressions;
    private final Seq<Attribute> input;

    Project(scala.collection.immutable.List<Expression> expressions, Seq<Attribute> input) {
      this.expressions = expressions;
      this.input = input;
    }

    @Override
    public Iterator<InternalRow> call(Iterator<InternalRow> rows) {
      UnsafeProjection p =
          input == null
              ? UnsafeProjection.create(expressions)
              : UnsafeProjection.create(expressions, input);
      return new Iterator<>() {
        @Override
        public boolean hasNext() {
          return rows.hasNext();
        }

        @Override
        public InternalRow next() {
          return p.apply(rows.next()).copy();
        }
      };
    }
  }

  @Override
  public int productArity() {
    return 4;
  }

  @Override
  public Object productElement(int n) {
    return switch (n) {
      case 0 -> child;
      case 1 -> search;
      case 2 -> carried;
      case 3 -> query;
      default -> throw new IndexOutOfBoundsException(n);
    };
  }

  @Override
  public boolean canEqual(Object that) {
    return that instanceof NearestJoinExec;
  }
}
