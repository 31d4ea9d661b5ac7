package dev.lancelot.spark.read;

import dev.lancelot.engine.Blob;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.OpenOptions;
import dev.lancelot.spark.LanceCatalog;
import dev.lancelot.spark.LancePathCatalog;
import dev.lancelot.spark.SqlArguments;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import scala.collection.Seq;
import scala.runtime.AbstractFunction1;

/**
 * {@code lance_blob(path, column, row_id [, offset, length])}: the bytes of one row's value of a
 * blob column (or of a range of them), read on the driver while the query is analysed through
 * {@link Dataset#openBlob}, so only that row's descriptor and the asked bytes are read. {@code
 * path} is a dataset location or a table of a {@link LanceCatalog} ({@code 'lance.db.items'});
 * {@code row_id} is the row's {@code _rowid} (on a dataset with stable row ids, give {@code
 * row_address => _rowaddr} instead); {@code version => v} reads an older version. Returns one row
 * {@code (row_address, size, offset, bytes)}: {@code size} the whole value's length, {@code bytes}
 * the range (to the end when no length is given), both null for a null value. A deleted or absent
 * row, a range outside the value and a column that is not a blob column are refused.
 */
public final class BlobFunction extends AbstractFunction1<Seq<Expression>, LogicalPlan> {
  public static final String NAME = "lance_blob";
  public static final String USAGE =
      NAME
          + "(path or 'catalog.db.table', column, row_id [, offset, length] [, row_address => a,"
          + " version => v]) - the bytes of one row's value of a Lance blob column (or a range of"
          + " them), without reading the column";
  private static final String[] POSITIONAL = {"path", "column", "row_id", "offset", "length"};
  private static final List<String> NAMES =
      List.of("path", "column", "row_id", "row_address", "offset", "length", "version");

  /** The schema of the one row returned. */
  public static final StructType SCHEMA =
      new StructType()
          .add("row_address", DataTypes.LongType, false)
          .add("size", DataTypes.LongType, true)
          .add("offset", DataTypes.LongType, false)
          .add("bytes", DataTypes.BinaryType, true);

  @Override
  public LogicalPlan apply(Seq<Expression> arguments) {
    Map<String, Object> params =
        SqlArguments.parse(arguments, POSITIONAL, NAME, USAGE, InvalidInputException::new);
    for (String key : params.keySet()) {
      if (!NAMES.contains(key)) {
        throw new InvalidInputException(
            "Cannot run " + NAME + ": unknown argument \"" + key + "\". Usage: " + USAGE);
      }
    }
    if (!(params.get("path") instanceof String target)
        || !(params.get("column") instanceof String column)) {
      throw new InvalidInputException(
          "Cannot run "
              + NAME
              + ": give the dataset path or table name and the blob column as"
              + " strings. Usage: "
              + USAGE);
    }
    SparkSession spark = SparkSession.active();
    String location =
        LancePathCatalog.qualify(LanceCatalog.sessionTableLocation(spark, target).orElse(target));
    OpenOptions open = OpenOptions.defaults().withHadoopConf(LancePathCatalog.hadoopConf());
    Optional<Long> version = number(params, "version");
    if (version.isPresent()) {
      open = open.withVersion(version.get());
    }
    Optional<Long> rowId = number(params, "row_id");
    Optional<Long> rowAddress = number(params, "row_address");
    if (rowId.isPresent() == rowAddress.isPresent()) {
      throw new InvalidInputException(
          "Cannot run " + NAME + ": give exactly one of row_id and row_address. Usage: " + USAGE);
    }
    long offset = number(params, "offset").orElse(0L);
    Optional<Long> length = number(params, "length");
    if (offset < 0 || length.map(l -> l < 0).orElse(false)) {
      throw new InvalidInputException(
          "Cannot run " + NAME + ": offset and length must not be negative.");
    }
    Row row;
    try (Dataset ds = Dataset.open(location, open)) {
      if (rowId.isPresent() && ds.stableRowIds()) {
        throw new InvalidInputException(
            "Cannot run "
                + NAME
                + " on "
                + location
                + " by row_id: the dataset has stable row ids, which are not row addresses."
                + " Select _rowaddr and give row_address => <it> instead.");
      }
      long address = rowId.orElseGet(rowAddress::get);
      Optional<Blob> blob = ds.openBlob(column, address);
      if (blob.isEmpty()) {
        row = RowFactory.create(address, null, offset, null);
      } else {
        try (Blob b = blob.get()) {
          long size = b.size();
          long n = length.orElse(Math.max(0, size - offset));
          if (n > Integer.MAX_VALUE - 16) {
            throw new InvalidInputException(
                "Cannot run "
                    + NAME
                    + ": the value has "
                    + size
                    + " bytes; read at most 2 GiB at a time with offset and length.");
          }
          row = RowFactory.create(address, size, offset, b.read(offset, (int) n));
        }
      }
    }
    return spark.createDataFrame(List.of(row), SCHEMA).queryExecution().analyzed();
  }

  private static Optional<Long> number(Map<String, Object> params, String name) {
    Object v = params.get(name);
    if (v == null) {
      return Optional.empty();
    }
    if (!(v instanceof Number n) || v instanceof Double || v instanceof Float) {
      throw new InvalidInputException(
          "Cannot run " + NAME + ": " + name + " must be a whole number, got " + v + ".");
    }
    return Optional.of(n.longValue());
  }
}
