package dev.lancelot.spark.search;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.OpenOptions;
import dev.lancelot.engine.distributed.QueryCandidates;
import dev.lancelot.engine.distributed.SearchTask;
import dev.lancelot.engine.distributed.TaskResult;
import dev.lancelot.engine.distributed.VectorSearchPlan;
import dev.lancelot.engine.query.InvalidQueryException;
import dev.lancelot.engine.query.UnitStats;
import dev.lancelot.engine.query.VectorQuery;
import dev.lancelot.spark.ScalaCollections;
import dev.lancelot.spark.SerializableConfiguration;
import dev.lancelot.spark.read.LanceColumnVector;
import dev.lancelot.spark.shim.SparkLine;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.JoinedRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import scala.Tuple2;

/**
 * Vector search with the query vectors in a DataFrame column (SPEC S6 at scale: recommendation,
 * deduplication, recall evaluation). The driver plans once, from the parameters and the dataset's
 * metadata — no query vector is ever in the plan or on the driver. The work is split as query
 * blocks × search units:
 *
 * <ol>
 *   <li>each partition of the queries is cut into blocks of at most {@value #DEFAULT_BLOCK} vectors
 *       (Spark conf {@code spark.lancelot.search.queryBlockSize}); each (block, unit) pair is one
 *       task that searches the unit for every vector of the block at once, sharing its index reads,
 *       and emits each query's local candidates;
 *   <li>candidates are grouped by query (one shuffle of small records: row addresses and
 *       distances), and each group is merged with the engine's merge — the same rules as one query
 *       at a time, so each query gets exactly its global top-k; the result columns are then read
 *       for the final rows only.
 * </ol>
 *
 * The output holds the queries' other columns (a query id…) followed by the result columns and
 * {@code _distance} ({@code _rowid} when asked), one row per result.
 *
 * <p>With per-query statistics (internal, for recall evaluation), each task searches its unit for
 * the block's vectors one at a time, so that the time of each query's search is its own; the output
 * then ends with {@value #SEARCH_MS} (the query's executor time, summed over its search units),
 * {@value #PARTITIONS_PROBED} and {@value #DISTANCES_COMPUTED} (sums of the units' {@link
 * UnitStats}), repeated on each of the query's rows, and a query without any result gets one row
 * whose result columns are null.
 */
final class QueryFrameSearch {
  static final int DEFAULT_BLOCK = 512;
  static final String BLOCK_CONF = "spark.lancelot.search.queryBlockSize";
  static final String SEARCH_MS = "_search_ms";
  static final String PARTITIONS_PROBED = "_partitions_probed";
  static final String DISTANCES_COMPUTED = "_distances_computed";

  private QueryFrameSearch() {}

  static org.apache.spark.sql.Dataset<Row> search(
      SparkSession spark,
      String location,
      long version,
      org.apache.spark.sql.Dataset<Row> queries,
      String queryColumn,
      VectorQuery params,
      Configuration conf) {
    return search(spark, location, version, queries, queryColumn, params, conf, false);
  }

  /**
   * {@code perQueryStats}: search queries one at a time and add the per-query statistics columns.
   */
  static org.apache.spark.sql.Dataset<Row> search(
      SparkSession spark,
      String location,
      long version,
      org.apache.spark.sql.Dataset<Row> queries,
      String queryColumn,
      VectorQuery params,
      Configuration conf,
      boolean perQueryStats) {
    if (params.hasVectors()) {
      throw new InvalidQueryException(
          "Cannot search with query vectors from column \""
              + queryColumn
              + "\" and "
              + "query vectors in the parameters too: leave q unset (build the parameters with buildParameters()).");
    }
    StructType querySchema = queries.schema();
    int vectorIndex = columnIndex(querySchema, queryColumn);
    DataType type = querySchema.fields()[vectorIndex].dataType();
    if (!(type instanceof ArrayType a)
        || !(a.elementType().equals(DataTypes.FloatType)
            || a.elementType().equals(DataTypes.DoubleType))) {
      throw new InvalidQueryException(
          "Cannot search with query vectors from column \""
              + queryColumn
              + "\": it is "
              + type.simpleString()
              + ", not an array of float or double. Cast it to array<float>.");
    }
    OpenOptions open = OpenOptions.defaults().withHadoopConf(conf);
    if (version > 0) {
      open = open.withVersion(version);
    }
    VectorSearchPlan plan;
    StructType results;
    try (Dataset ds = Dataset.open(location, open)) {
      // The plan depends on the parameters and the metadata only: no query vector is in it.
      plan = VectorSearchPlan.plan(ds, params);
      StructType withIndex = PlannedSearch.resultSchema(ds, plan);
      // The engine's rows start with query_index, which maps them back to the carried columns.
      results =
          new StructType(Arrays.copyOfRange(withIndex.fields(), 1, withIndex.fields().length));
    }
    List<StructField> carried = new ArrayList<>();
    for (int i = 0; i < querySchema.fields().length; i++) {
      if (i != vectorIndex) {
        carried.add(querySchema.fields()[i]);
      }
    }
    Set<String> resultNames = new HashSet<>(Arrays.asList(results.fieldNames()));
    for (StructField f : carried) {
      if (resultNames.contains(f.name())) {
        throw new InvalidQueryException(
            "Cannot search with queries that have a column \""
                + f.name()
                + "\": the "
                + "results have a column of that name too. Rename it in the queries (withColumnRenamed) or leave it out "
                + "of the result columns.");
      }
    }
    StructType carriedSchema = new StructType(carried.toArray(new StructField[0]));
    List<StructField> out = new ArrayList<>(carried);
    if (perQueryStats) {
      for (StructField f : results.fields()) {
        out.add(new StructField(f.name(), f.dataType(), true, f.metadata()));
      }
      out.add(
          new StructField(
              SEARCH_MS, DataTypes.DoubleType, false, org.apache.spark.sql.types.Metadata.empty()));
      out.add(
          new StructField(
              PARTITIONS_PROBED,
              DataTypes.LongType,
              false,
              org.apache.spark.sql.types.Metadata.empty()));
      out.add(
          new StructField(
              DISTANCES_COMPUTED,
              DataTypes.LongType,
              false,
              org.apache.spark.sql.types.Metadata.empty()));
    } else {
      out.addAll(Arrays.asList(results.fields()));
    }
    StructType outSchema = new StructType(out.toArray(new StructField[0]));
    if (plan.taskCount() == 0) {
      return SparkLine.internalCreateDataFrame(
          spark,
          JavaSparkContext.fromSparkContext(spark.sparkContext()).<InternalRow>emptyRDD().rdd(),
          outSchema);
    }
    int blockSize = Integer.parseInt(spark.conf().get(BLOCK_CONF, String.valueOf(DEFAULT_BLOCK)));
    if (blockSize < 1) {
      throw new InvalidQueryException(
          "Cannot search: " + BLOCK_CONF + " must be at least 1, got " + blockSize + ".");
    }
    Job job =
        new Job(
            plan,
            new SerializableConfiguration(conf),
            queryColumn,
            carriedSchema,
            outSchema,
            blockSize,
            ((ArrayType) type).elementType().equals(DataTypes.DoubleType),
            perQueryStats,
            false,
            false);
    org.apache.spark.sql.Dataset<Row> ordered = queries.select(columns(carriedSchema, queryColumn));
    JavaRDD<InternalRow> rows = ordered.queryExecution().toRdd().toJavaRDD();
    JavaRDD<InternalRow> merged =
        run(JavaSparkContext.fromSparkContext(spark.sparkContext()), job, rows);
    return SparkLine.internalCreateDataFrame(spark, merged.rdd(), outSchema);
  }

  /**
   * The work of a query frame: {@code rows} hold the job's carried columns followed by the query
   * vector; the answer's rows hold the carried columns followed by the result columns and {@code
   * _distance}. The plan must have at least one task.
   */
  static JavaRDD<InternalRow> run(JavaSparkContext jsc, Job job, JavaRDD<InternalRow> rows) {
    VectorSearchPlan plan = job.plan;
    int queryPartitions = Math.max(1, rows.getNumPartitions());
    JavaRDD<QueryBlock> blocks = rows.mapPartitionsWithIndex(job::blocks, false);
    JavaRDD<Integer> units =
        jsc.parallelize(IntStream.range(0, plan.taskCount()).boxed().toList(), plan.taskCount());
    JavaPairRDD<Long, byte[]> candidates = blocks.cartesian(units).flatMapToPair(job::searchBlock);
    return candidates.groupByKey(queryPartitions).mapPartitions(job::merge);
  }

  private static org.apache.spark.sql.Column[] columns(StructType carried, String vectorColumn) {
    List<org.apache.spark.sql.Column> cols = new ArrayList<>();
    for (String name : carried.fieldNames()) {
      cols.add(org.apache.spark.sql.functions.col("`" + name.replace("`", "``") + "`"));
    }
    cols.add(org.apache.spark.sql.functions.col("`" + vectorColumn.replace("`", "``") + "`"));
    return cols.toArray(new org.apache.spark.sql.Column[0]);
  }

  private static int columnIndex(StructType schema, String name) {
    for (int i = 0; i < schema.fields().length; i++) {
      if (schema.fields()[i].name().equals(name)) {
        return i;
      }
    }
    throw new InvalidQueryException(
        "Cannot search with query vectors from column \""
            + name
            + "\": the queries "
            + "have no such column. Their columns: "
            + Arrays.toString(schema.fieldNames())
            + ".");
  }

  /** Query vectors of one block, with the encoded carried columns and the key of each query. */
  static final class QueryBlock implements Serializable {
    private static final long serialVersionUID = 1L;
    final long[] keys;
    final float[][] vectors;
    final byte[][] carried;

    QueryBlock(long[] keys, float[][] vectors, byte[][] carried) {
      this.keys = keys;
      this.vectors = vectors;
      this.carried = carried;
    }
  }

  /** The functions the tasks run; holds only small, serializable things. */
  static final class Job implements Serializable {
    private static final long serialVersionUID = 1L;

    /** Tags a query's carried row; any other first byte starts a {@link QueryCandidates}. */
    private static final byte CARRIED = 0;

    private static final int STATS_COLUMNS = 3;
    private final VectorSearchPlan plan;
    private final SerializableConfiguration conf;
    private final String queryColumn;
    private final StructType carriedSchema;
    private final StructType outSchema;
    private final int blockSize;
    private final boolean doubles;
    private final boolean perQueryStats;
    private final boolean keepUnanswered;
    private final boolean nullMatchesNothing;

    /**
     * {@code keepUnanswered}: a query without any result gets one row whose result columns are null
     * (as it always does with {@code perQueryStats}); {@code nullMatchesNothing}: a null query
     * vector is a query without any result instead of an error (a NEAREST BY join's left row).
     */
    Job(
        VectorSearchPlan plan,
        SerializableConfiguration conf,
        String queryColumn,
        StructType carriedSchema,
        StructType outSchema,
        int blockSize,
        boolean doubles,
        boolean perQueryStats,
        boolean keepUnanswered,
        boolean nullMatchesNothing) {
      this.plan = plan;
      this.conf = conf;
      this.queryColumn = queryColumn;
      this.carriedSchema = carriedSchema;
      this.outSchema = outSchema;
      this.blockSize = blockSize;
      this.doubles = doubles;
      this.perQueryStats = perQueryStats;
      this.keepUnanswered = keepUnanswered;
      this.nullMatchesNothing = nullMatchesNothing;
    }

    /** Cuts one partition of the queries into blocks, checking every vector. */
    Iterator<QueryBlock> blocks(Integer partition, Iterator<InternalRow> rows) {
      int vectorOrdinal = carriedSchema.size();
      UnsafeProjection project =
          UnsafeProjection.create(ScalaCollections.list(Arrays.asList(carriedExpressions())));
      List<QueryBlock> out = new ArrayList<>();
      List<Long> keys = new ArrayList<>();
      List<float[]> vectors = new ArrayList<>();
      List<byte[]> carried = new ArrayList<>();
      long position = 0;
      while (rows.hasNext()) {
        InternalRow row = rows.next();
        long key = ((long) partition << 32) | position++;
        vectors.add(
            nullMatchesNothing && row.isNullAt(vectorOrdinal) ? null : vector(row, vectorOrdinal));
        // copy(): the projection reuses its buffer, and getBytes() may hand that very buffer out.
        carried.add(project.apply(row).copy().getBytes());
        keys.add(key);
        if (keys.size() == blockSize) {
          out.add(block(keys, vectors, carried));
        }
      }
      if (!keys.isEmpty()) {
        out.add(block(keys, vectors, carried));
      }
      return out.iterator();
    }

    /**
     * The carried columns are the leading ordinals of the selected rows: bound references to them.
     */
    private org.apache.spark.sql.catalyst.expressions.Expression[] carriedExpressions() {
      org.apache.spark.sql.catalyst.expressions.Expression[] e =
          new org.apache.spark.sql.catalyst.expressions.Expression[carriedSchema.size()];
      for (int i = 0; i < e.length; i++) {
        StructField f = carriedSchema.fields()[i];
        e[i] =
            new org.apache.spark.sql.catalyst.expressions.BoundReference(
                i, f.dataType(), f.nullable());
      }
      return e;
    }

    private static QueryBlock block(List<Long> keys, List<float[]> vectors, List<byte[]> carried) {
      QueryBlock b =
          new QueryBlock(
              keys.stream().mapToLong(Long::longValue).toArray(),
              vectors.toArray(new float[0][]),
              carried.toArray(new byte[0][]));
      keys.clear();
      vectors.clear();
      carried.clear();
      return b;
    }

    private float[] vector(InternalRow row, int ordinal) {
      if (row.isNullAt(ordinal)) {
        throw bad(row, "is null");
      }
      ArrayData a = row.getArray(ordinal);
      if (a.numElements() != plan.dimension()) {
        throw bad(
            row,
            "has "
                + a.numElements()
                + " dimensions but column \""
                + plan.vectorColumn()
                + "\" holds "
                + plan.dimension()
                + "-dimensional vectors");
      }
      float[] v = new float[a.numElements()];
      for (int i = 0; i < v.length; i++) {
        if (a.isNullAt(i)) {
          throw bad(row, "has a null at position " + i);
        }
        v[i] = doubles ? (float) a.getDouble(i) : a.getFloat(i);
        if (!Float.isFinite(v[i])) {
          throw bad(row, "has a non-finite value (" + v[i] + ") at position " + i);
        }
      }
      return v;
    }

    private InvalidQueryException bad(InternalRow row, String what) {
      String which = "a query";
      if (carriedSchema.size() > 0) {
        StructField f = carriedSchema.fields()[0];
        Object id = row.isNullAt(0) ? null : row.get(0, f.dataType());
        which = "query " + f.name() + "=" + id;
      }
      return new InvalidQueryException(
          "Cannot search with query vectors from column \""
              + queryColumn
              + "\": "
              + which
              + " "
              + what
              + ". Query vectors must be non-null, finite, of dimension "
              + plan.dimension()
              + ".");
    }

    /** One task: one unit searched for every query of one block. */
    Iterator<Tuple2<Long, byte[]>> searchBlock(Tuple2<QueryBlock, Integer> task) {
      QueryBlock block = task._1();
      int unitIndex = task._2();
      SearchTask unit = plan.tasks().get(unitIndex);
      Dataset ds = Dataset.openCached(plan.location(), plan.version(), conf.get());
      List<byte[]> encoded = new ArrayList<>(block.keys.length);
      if (perQueryStats) {
        // One query at a time: each query's time is its own, not a share of the block's.
        for (float[] vector : block.vectors) {
          long start = System.nanoTime();
          TaskResult result = unit.run(ds, new float[][] {vector});
          long nanos = System.nanoTime() - start;
          encoded.add(result.candidates(0, true).withNanos(nanos).toBytes());
        }
      } else {
        // null vectors (queries that match nothing) are not searched
        List<float[]> searched = new ArrayList<>(block.vectors.length);
        for (float[] v : block.vectors) {
          if (v != null) {
            searched.add(v);
          }
        }
        TaskResult result =
            searched.isEmpty() ? null : unit.run(ds, searched.toArray(new float[0][]));
        int next = 0;
        for (float[] v : block.vectors) {
          encoded.add(v == null ? null : result.candidates(next++, false).toBytes());
        }
      }
      List<Tuple2<Long, byte[]>> out =
          new ArrayList<>(block.keys.length * (unitIndex == 0 ? 2 : 1));
      for (int i = 0; i < block.keys.length; i++) {
        if (encoded.get(i) != null) {
          out.add(new Tuple2<>(block.keys[i], encoded.get(i)));
        }
        if (unitIndex == 0) {
          out.add(new Tuple2<>(block.keys[i], encodeCarried(block.carried[i])));
        }
      }
      return out.iterator();
    }

    /**
     * One reduce partition: every query's candidates from every unit, merged; result columns taken.
     */
    Iterator<InternalRow> merge(Iterator<Tuple2<Long, Iterable<byte[]>>> groups) {
      List<byte[]> carried = new ArrayList<>();
      List<List<QueryCandidates>> perQuery = new ArrayList<>();
      List<long[]> stats = new ArrayList<>();
      while (groups.hasNext()) {
        Tuple2<Long, Iterable<byte[]>> g = groups.next();
        List<QueryCandidates> candidates = new ArrayList<>();
        long[] sums = new long[STATS_COLUMNS];
        byte[] carriedRow = null;
        for (byte[] part : g._2()) {
          if (part[0] == CARRIED) {
            carriedRow = Arrays.copyOfRange(part, 1, part.length);
          } else {
            QueryCandidates c = QueryCandidates.fromBytes(part);
            candidates.add(c);
            c.stats()
                .ifPresent(
                    s -> {
                      sums[0] += s.nanos();
                      sums[1] += s.partitionsProbed();
                      sums[2] += s.distancesComputed();
                    });
          }
        }
        if (carriedRow == null) {
          throw new IllegalStateException("Query " + g._1() + " has candidates but no row");
        }
        carried.add(carriedRow);
        perQuery.add(candidates);
        stats.add(sums);
      }
      if (perQuery.isEmpty()) {
        return java.util.Collections.emptyIterator();
      }
      List<InternalRow> out = new ArrayList<>();
      Dataset ds = Dataset.openCached(plan.location(), plan.version(), conf.get());
      try (VectorSchemaRoot root = plan.mergeQueries(ds, perQuery)) {
        List<FieldVector> vectors = root.getFieldVectors();
        ColumnVector[] columns = new ColumnVector[vectors.size() - 1];
        for (int i = 1; i < vectors.size(); i++) {
          columns[i - 1] = new LanceColumnVector(vectors.get(i));
        }
        org.apache.arrow.vector.IntVector queryIndex =
            (org.apache.arrow.vector.IntVector) vectors.get(0);
        UnsafeProjection project = UnsafeProjection.create(outSchema);
        UnsafeRow carriedRow = new UnsafeRow(carriedSchema.size());
        Iterator<InternalRow> it = new ColumnarBatch(columns, root.getRowCount()).rowIterator();
        boolean[] answered = new boolean[perQuery.size()];
        for (int r = 0; r < root.getRowCount(); r++) {
          int qi = queryIndex.get(r);
          byte[] c = carried.get(qi);
          carriedRow.pointTo(c, c.length);
          InternalRow row = new JoinedRow(carriedRow, it.next());
          if (perQueryStats) {
            row = new JoinedRow(row, statsRow(stats.get(qi)));
          }
          answered[qi] = true;
          out.add(project.apply(row).copy());
        }
        if (perQueryStats || keepUnanswered) {
          // Every query has a row, so that a query without results still has its statistics.
          InternalRow noResult =
              new org.apache.spark.sql.catalyst.expressions.GenericInternalRow(columns.length);
          for (int qi = 0; qi < answered.length; qi++) {
            if (!answered[qi]) {
              byte[] c = carried.get(qi);
              carriedRow.pointTo(c, c.length);
              InternalRow row = new JoinedRow(carriedRow, noResult);
              if (perQueryStats) {
                row = new JoinedRow(row, statsRow(stats.get(qi)));
              }
              out.add(project.apply(row).copy());
            }
          }
        }
      }
      return out.iterator();
    }

    private static InternalRow statsRow(long[] sums) {
      return new org.apache.spark.sql.catalyst.expressions.GenericInternalRow(
          new Object[] {sums[0] / 1e6, sums[1], sums[2]});
    }

    private static byte[] encodeCarried(byte[] row) {
      byte[] out = new byte[row.length + 1];
      out[0] = CARRIED;
      System.arraycopy(row, 0, out, 1, row.length);
      return out;
    }
  }
}
