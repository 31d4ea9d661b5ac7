package dev.lancelot.engine.expr;

import dev.lancelot.engine.internal.expr.ExprInternals;
import dev.lancelot.engine.internal.expr.eval.Batch;
import dev.lancelot.engine.internal.expr.eval.Binder;
import dev.lancelot.engine.internal.expr.eval.BoundColumn;
import dev.lancelot.engine.internal.expr.eval.Kernel;
import java.io.IOException;
import java.io.InvalidObjectException;
import java.io.ObjectInputStream;
import java.io.Serial;
import java.io.Serializable;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A predicate checked against a schema and ready to evaluate on Arrow batches of that schema:
 *
 * <pre>{@code
 * BoundPredicate filter = BoundPredicate.bind(FilterParser.parse("tenant_id = 42"), schema);
 * List<String> read = filter.referencedColumns();   // ["tenant_id"]
 * RowSelection rows = filter.evaluate(batch);        // batch holds at least those columns
 * RoaringBitmap mask = rows.toRoaringBitmap(offsetInFragment);
 * }</pre>
 *
 * <p>Semantics (all checked against Lance 7): SQL three-valued logic, only TRUE rows selected;
 * integers compare exactly with any number literal; floats in IEEE total order (NaN equal to itself
 * and above +inf, -0.0 below +0.0); strings and binaries byte-wise. See {@code docs/filters.md}.
 * Immutable; {@code evaluate} is thread-safe.
 *
 * <p>Serializable, so that a filter bound once where the user gave it (the driver) travels to the
 * planner's units, executors and Spark tasks as is. The serialized form is the predicate tree, the
 * SQL text for messages and the fields of the referenced columns; reading it back rebuilds the
 * kernels from those fields (no parsing, and binding cannot fail: it succeeded on the same fields).
 */
public final class BoundPredicate implements Serializable {
  @Serial private static final long serialVersionUID = 1L;

  private final Predicate predicate;
  private final String sql;
  private final Schema referencedSchema;
  private final Kernel kernel;
  private final List<BoundColumn> columns;
  private final List<String> referencedColumns;

  static {
    ExprInternals.register(p -> new Binder.Result(p.kernel, p.columns));
  }

  private BoundPredicate(Predicate predicate, String sql, Binder.Result bound, Schema schema) {
    this.predicate = predicate;
    this.sql = sql == null ? predicate.toSql() : sql;
    this.kernel = bound.kernel();
    this.columns = bound.columns();
    Set<String> used = new LinkedHashSet<>();
    bound.columns().forEach(c -> used.add(c.topLevelName()));
    List<String> inSchemaOrder = new ArrayList<>();
    for (Field f : schema.getFields()) {
      if (used.contains(f.getName())) {
        inSchemaOrder.add(f.getName());
      }
    }
    this.referencedColumns = List.copyOf(inSchemaOrder);
    List<Field> referenced = new ArrayList<>();
    for (Field f : schema.getFields()) {
      if (used.contains(f.getName())) {
        referenced.add(f);
      }
    }
    this.referencedSchema = new Schema(referenced);
  }

  /**
   * Resolves the predicate's columns in {@code schema} and checks every literal against its
   * column's type.
   *
   * @throws FilterBindException naming the column and the fix, if a column is missing or a literal
   *     or operator does not fit a column's type
   */
  public static BoundPredicate bind(Predicate predicate, Schema schema) {
    Objects.requireNonNull(predicate, "predicate");
    return new BoundPredicate(predicate, null, Binder.bind(predicate, schema), schema);
  }

  /**
   * Parses {@code sql} and binds it to {@code schema}: the one place a filter given as text becomes
   * a bound predicate. {@link #sql()} then returns the text as written, for messages and explain
   * output.
   *
   * @throws FilterParseException if {@code sql} is not filter SQL
   * @throws FilterBindException if it does not fit the schema
   */
  public static BoundPredicate bind(String sql, Schema schema) {
    Objects.requireNonNull(sql, "sql");
    Predicate predicate = FilterParser.parse(sql);
    return new BoundPredicate(predicate, sql, Binder.bind(predicate, schema), schema);
  }

  /**
   * Whether {@link #bind} would succeed, i.e. whether this engine can evaluate the predicate on
   * data of this schema (the Spark connector pushes down exactly such predicates).
   */
  public static boolean canEvaluate(Predicate predicate, Schema schema) {
    try {
      Binder.bind(predicate, schema);
      return true;
    } catch (FilterBindException e) {
      return false;
    }
  }

  public Predicate predicate() {
    return predicate;
  }

  /** The filter as the user wrote it (or the predicate's SQL if it was built in code). */
  public String sql() {
    return sql;
  }

  /**
   * The fields of the {@link #referencedColumns()}, as in the schema this predicate was bound to.
   * Two schemas holding equal fields under these names bind the predicate identically.
   */
  public Schema referencedSchema() {
    return referencedSchema;
  }

  /**
   * Whether this predicate may be evaluated on data of {@code schema}: every referenced column is
   * there with the same field (type, nullability, children) it was bound to.
   */
  public boolean fits(Schema schema) {
    for (Field f : referencedSchema.getFields()) {
      Field other;
      try {
        other = schema.findField(f.getName());
      } catch (IllegalArgumentException e) {
        return false;
      }
      if (!f.equals(other)) {
        return false;
      }
    }
    return true;
  }

  /**
   * Top-level columns the predicate reads, in schema order and as spelled in the schema; a nested
   * reference {@code a.b} reads column {@code a}. A batch passed to {@code evaluate} needs these
   * columns and no others.
   */
  public List<String> referencedColumns() {
    return referencedColumns;
  }

  /** The exact fields read, nested ones as paths, as spelled in the schema. */
  public Set<Column> referencedFields() {
    Set<Column> out = new LinkedHashSet<>();
    columns.forEach(c -> out.add(new Column(c.path())));
    return out;
  }

  /** Evaluates on all rows of {@code root}, finding columns by name. */
  public RowSelection evaluate(VectorSchemaRoot root) {
    return evaluate(root::getVector, root.getRowCount());
  }

  /** Evaluates on the first {@code rowCount} rows of vectors given by top-level column name. */
  public RowSelection evaluate(Map<String, ? extends FieldVector> columnsByName, int rowCount) {
    return evaluate(columnsByName::get, rowCount);
  }

  /**
   * Evaluates on the first {@code rowCount} rows of the vectors {@code vectorByName} returns for
   * the {@link #referencedColumns()}.
   *
   * @throws IllegalArgumentException if a column is missing, shorter than {@code rowCount}, or of
   *     another type than the schema this predicate was bound to
   */
  public RowSelection evaluate(Function<String, ? extends FieldVector> vectorByName, int rowCount) {
    Batch batch = new Batch(columns, vectorByName::apply, rowCount);
    long[] isTrue = new long[batch.words()];
    long[] isUnknown = new long[batch.words()];
    kernel.evaluate(batch, isTrue, isUnknown);
    return RowSelection.wrap(isTrue, rowCount);
  }

  @Override
  public String toString() {
    return "BoundPredicate[" + predicate.toSql() + "]";
  }

  @Serial
  private Object writeReplace() {
    return new Form(predicate, sql, referencedSchema.serializeAsMessage());
  }

  @Serial
  private void readObject(ObjectInputStream in) throws IOException {
    throw new InvalidObjectException("BoundPredicate travels as its serialized form");
  }

  /**
   * What travels: the predicate, its text, and the referenced fields as an Arrow schema message.
   */
  private record Form(Predicate predicate, String sql, byte[] schema) implements Serializable {
    @Serial private static final long serialVersionUID = 1L;

    @Serial
    private Object readResolve() {
      Schema fields = Schema.deserializeMessage(ByteBuffer.wrap(schema));
      return new BoundPredicate(predicate, sql, Binder.bind(predicate, fields), fields);
    }
  }
}
