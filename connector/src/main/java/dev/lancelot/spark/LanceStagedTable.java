package dev.lancelot.spark;

import dev.lancelot.spark.write.LanceWriteBuilder;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.connector.catalog.StagedTable;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.types.StructType;

/**
 * The target of {@code CREATE TABLE AS SELECT} / {@code REPLACE TABLE AS SELECT} (save modes
 * errorifexists, ignore and overwrite of a new location): the write job commits exactly one
 * version — the dataset's first for a create, a replacing one for a replace — so there is nothing
 * left to do at staging commit, and an aborted job leaves no version behind.
 */
final class LanceStagedTable extends LanceTable implements StagedTable {
  private final boolean replace;

  LanceStagedTable(String location, Configuration conf, boolean replace) {
    super(location, 0, new org.apache.arrow.vector.types.pojo.Schema(java.util.List.of()),
        Map.of("location", location), conf);
    this.replace = replace;
  }

  @Override
  public WriteBuilder newWriteBuilder(LogicalWriteInfo info) {
    return new LanceWriteBuilder(this, info, LanceOptions.parse(withPath(info.options())), true).staged(replace);
  }

  @Override
  public void commitStagedChanges() {
    // The batch write already committed the version atomically.
  }

  @Override
  public void abortStagedChanges() {
    // The batch write's abort already deleted the files its tasks wrote; no version was committed.
  }
}
