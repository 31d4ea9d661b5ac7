package dev.lancelot.spark.procedures;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.FragmentInfo;
import dev.lancelot.engine.FragmentMetadata;
import dev.lancelot.engine.LancelotException;
import dev.lancelot.engine.OpenOptions;
import dev.lancelot.engine.distributed.DistributedWrite;
import dev.lancelot.engine.io.CommitOutcomeUnknownException;
import dev.lancelot.engine.schema.LanceSchema;
import dev.lancelot.spark.ConfigurationBroadcasts;
import dev.lancelot.spark.JavaSerialized;
import dev.lancelot.spark.LanceCatalog;
import dev.lancelot.spark.LancePathCatalog;
import dev.lancelot.spark.SerializableConfiguration;
import dev.lancelot.spark.SparkTypes;
import dev.lancelot.spark.write.RowToArrow;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * {@code CALL lance.system.add_columns(table => 'db.items', column => 'name_len', expression =>
 * 'length(name)' [, target_base => 'b1'])}: adds a column whose value in each row is a Spark SQL
 * expression over the row's columns (lance-spark's {@code ALTER TABLE ... ADD COLUMNS ... FROM},
 * without a parser extension). Spark evaluates the expression on the executors over the latest
 * version, grouped by fragment; each task writes one data file per fragment holding only the new
 * column, for every physical row (rows deleted in that version get nulls); the driver commits every
 * file as one Lance {@code Merge} version. A concurrent commit that changed the fragments fails it
 * (its files are deleted). With {@code target_base} the new files go under that registered base
 * (decision D68).
 */
final class AddColumnsProcedure extends LanceProcedure {
  static final String NAME = "add_columns";
  private static final String SUMMARY =
      "Adds a column computed by a SQL expression over each row, written by the "
          + "executors as one new data file per fragment and committed as one version.";

  static final StructType OUTPUT =
      new StructType()
          .add("version", DataTypes.LongType, false)
          .add("fragments_written", DataTypes.LongType, false);

  private static final Parameter[] PARAMETERS = {
    required("table", DataTypes.StringType),
    required("column", DataTypes.StringType),
    required("expression", DataTypes.StringType),
    optional("target_base", DataTypes.StringType),
  };

  AddColumnsProcedure(LanceCatalog catalog) {
    super(catalog, NAME, SUMMARY, PARAMETERS, OUTPUT);
  }

  @Override
  protected List<InternalRow> run(SparkSession spark, ProcedureArguments args) {
    String location = tableLocation(args);
    String column = args.string("column");
    String expression = args.string("expression");
    if (column.isBlank()) {
      throw new LancelotException("argument column is empty.");
    }
    String targetBase = args.has("target_base") ? args.string("target_base") : null;
    Configuration conf = LancePathCatalog.hadoopConf();
    try (Dataset ds = Dataset.open(location, OpenOptions.defaults().withHadoopConf(conf))) {
      if (targetBase != null && ds.basePaths().stream().noneMatch(b -> b.matches(targetBase))) {
        throw new dev.lancelot.engine.InvalidInputException(
            "Cannot add columns to "
                + location
                + ": cannot write their values to base \""
                + targetBase
                + "\" (argument target_base): the dataset's bases are "
                + ds.basePaths().stream().map(b -> b.name().orElse("") + "=" + b.path()).toList()
                + ". Name a base the dataset registers, or leave target_base out.");
      }
      org.apache.spark.sql.Dataset<Row> values =
          spark
              .read()
              .format("lance")
              .option("version", ds.version())
              .load(location)
              .selectExpr(
                  "_rowaddr", "(" + expression + ") AS `" + column.replace("`", "``") + "`");
      DataType type = values.schema().fields()[1].dataType();
      String dimKey = column + "." + SparkTypes.FIXED_SIZE_LIST_SIZE;
      Map<String, Integer> dims =
          ds.config().containsKey(dimKey)
              ? Map.of(column, Integer.parseInt(ds.config().get(dimKey).trim()))
              : Map.of();
      Schema arrow = SparkTypes.toArrow(new StructType().add(column, type, true), dims);
      LanceSchema added = ds.planAddedColumns(arrow.getFields());
      int fragments = ds.fragments().size();
      if (fragments == 0) {
        Dataset next = ds.addColumns(arrow.getFields());
        return List.of(new GenericInternalRow(new Object[] {next.version(), 0L}));
      }
      Task task =
          new Task(
              location,
              ConfigurationBroadcasts.of(spark.sparkContext(), conf),
              ds.version(),
              DistributedWrite.schemaToBytes(added),
              type,
              targetBase);
      List<FragmentMetadata> written = new ArrayList<>();
      values
          .repartition(fragments, org.apache.spark.sql.functions.expr("shiftright(_rowaddr, 32)"))
          .sortWithinPartitions("_rowaddr")
          .queryExecution()
          .toRdd()
          .toJavaRDD()
          .mapPartitions(task)
          .collect()
          .forEach(f -> written.add(f.get()));
      try {
        Set<Long> done = new HashSet<>();
        written.forEach(f -> done.add(f.fragmentId()));
        for (FragmentInfo f :
            ds.fragments()) { // every row of it deleted since: nothing was scanned
          if (!done.contains(f.id())) {
            written.add(
                DistributedWrite.writeAddedColumns(
                    location,
                    conf,
                    ds.version(),
                    added,
                    f.id(),
                    (id, in, allocator) -> nulls(arrow, in.getRowCount(), allocator),
                    targetBase));
          }
        }
        Dataset next = ds.commitAddedColumns(added, written);
        return List.of(
            new GenericInternalRow(new Object[] {next.version(), (long) written.size()}));
      } catch (CommitOutcomeUnknownException e) {
        throw e; // the version may exist and refer to the files
      } catch (RuntimeException e) {
        DistributedWrite.abort(location, conf, written);
        throw e;
      }
    }
  }

  private static org.apache.arrow.vector.VectorSchemaRoot nulls(
      Schema schema, int rows, org.apache.arrow.memory.BufferAllocator allocator) {
    RowToArrow out = new RowToArrow(schema, allocator, "add_columns");
    InternalRow empty = new GenericInternalRow(new Object[] {null});
    for (int i = 0; i < rows; i++) {
      out.append(empty);
    }
    return out.finishBatch();
  }

  /**
   * The executor side: rows {@code (_rowaddr, value)} sorted by address, possibly of several
   * fragments; writes one file per fragment, nulls at the offsets without a row.
   */
  static final class Task
      implements FlatMapFunction<Iterator<InternalRow>, JavaSerialized<FragmentMetadata>> {
    private static final long serialVersionUID = 1L;
    private final String location;
    private final Broadcast<SerializableConfiguration> conf;
    private final long version;
    private final byte[] addedSchema;
    private final DataType type;
    private final String targetBase;

    Task(
        String location,
        Broadcast<SerializableConfiguration> conf,
        long version,
        byte[] addedSchema,
        DataType type,
        String targetBase) {
      this.targetBase = targetBase;
      this.location = location;
      this.conf = conf;
      this.version = version;
      this.addedSchema = addedSchema;
      this.type = type;
    }

    @Override
    public Iterator<JavaSerialized<FragmentMetadata>> call(Iterator<InternalRow> rows)
        throws Exception {
      LanceSchema added = DistributedWrite.schemaFromBytes(addedSchema);
      Schema arrow = added.toArrow();
      Configuration hadoop = conf.value().get();
      List<FragmentMetadata> out = new ArrayList<>();
      InternalRow[] pending = {rows.hasNext() ? rows.next().copy() : null};
      try {
        while (pending[0] != null) {
          long fragment = pending[0].getLong(0) >>> 32;
          long[] nextOffset = {0};
          out.add(
              DistributedWrite.writeAddedColumns(
                  location,
                  hadoop,
                  version,
                  added,
                  fragment,
                  (id, in, allocator) -> {
                    RowToArrow batch =
                        new RowToArrow(arrow, allocator, "add_columns of fragment " + id);
                    for (int i = 0; i < in.getRowCount(); i++) {
                      long address = (fragment << 32) | nextOffset[0]++;
                      if (pending[0] != null && pending[0].getLong(0) == address) {
                        batch.append(
                            new GenericInternalRow(new Object[] {pending[0].get(1, type)}));
                        pending[0] = rows.hasNext() ? rows.next().copy() : null;
                      } else {
                        batch.append(new GenericInternalRow(new Object[] {null}));
                      }
                    }
                    return batch.finishBatch();
                  },
                  targetBase));
          if (pending[0] != null && pending[0].getLong(0) >>> 32 == fragment) {
            throw new IllegalStateException(
                "Row address "
                    + pending[0].getLong(0)
                    + " is beyond the rows of fragment "
                    + fragment
                    + " of "
                    + location
                    + " version "
                    + version);
          }
        }
      } catch (RuntimeException e) {
        DistributedWrite.abort(location, hadoop, out);
        throw e;
      }
      // wrapped: the results cross Spark's configured serializer, Kryo with registration required
      // included
      return out.stream().map(JavaSerialized::of).iterator();
    }
  }
}
