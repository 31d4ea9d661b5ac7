package dev.lancelot.spark.procedures;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.OpenOptions;
import dev.lancelot.engine.index.IndexStatistics;
import dev.lancelot.spark.LanceCatalog;
import dev.lancelot.spark.LancePathCatalog;
import dev.lancelot.spark.MetadataTable;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Index management: {@code list_indexes} (one row per index, the engine's {@link IndexStatistics}:
 * what lance-core reports as index statistics, from the manifest alone) and {@code drop_index} (the
 * engine's {@link Dataset#dropIndex}, Lance's {@code drop_index}).
 */
final class IndexProcedures {
  private IndexProcedures() {}

  static final StructType LIST_OUTPUT = MetadataTable.INDEXES;

  static final StructType DROP_OUTPUT =
      new StructType()
          .add("version", DataTypes.LongType, false)
          .add("dropped_index", DataTypes.StringType, false)
          .add("segments", DataTypes.IntegerType, false);

  private static Dataset open(String location) {
    return Dataset.open(
        location, OpenOptions.defaults().withHadoopConf(LancePathCatalog.hadoopConf()));
  }

  /** {@code CALL lance.system.list_indexes(table => 'db.items')}. */
  static final class ListIndexes extends LanceProcedure {
    static final String NAME = "list_indexes";
    private static final Parameter[] PARAMETERS = {
      required("table", DataTypes.StringType),
    };

    ListIndexes(LanceCatalog catalog) {
      super(
          catalog,
          NAME,
          "Lists the indexes of a table: type, columns, segments, and the fragments and rows they "
              + "cover and do not cover (appended since the last build or optimize).",
          PARAMETERS,
          LIST_OUTPUT);
    }

    @Override
    protected List<InternalRow> run(SparkSession spark, ProcedureArguments args) {
      try (Dataset ds = open(tableLocation(args))) {
        List<InternalRow> out = new ArrayList<>();
        for (String name : ds.indexes().names()) {
          out.add(MetadataTable.indexRow(IndexStatistics.of(ds, name)));
        }
        return out;
      }
    }
  }

  /** {@code CALL lance.system.drop_index(table => 'db.items', name => 'vector_idx')}. */
  static final class DropIndex extends LanceProcedure {
    static final String NAME = "drop_index";
    private static final Parameter[] PARAMETERS = {
      required("table", DataTypes.StringType), required("name", DataTypes.StringType),
    };

    DropIndex(LanceCatalog catalog) {
      super(
          catalog,
          NAME,
          "Drops an index (every segment of it) as a new version; its files stay until cleanup "
              + "removes the versions that use them.",
          PARAMETERS,
          DROP_OUTPUT);
    }

    @Override
    protected List<InternalRow> run(SparkSession spark, ProcedureArguments args) {
      String name = args.string("name");
      try (Dataset ds = open(tableLocation(args))) {
        int segments = ds.indexes().segments(name).size();
        try (Dataset dropped = ds.dropIndex(name)) {
          return List.of(
              new GenericInternalRow(
                  new Object[] {dropped.version(), UTF8String.fromString(name), segments}));
        }
      }
    }
  }
}
