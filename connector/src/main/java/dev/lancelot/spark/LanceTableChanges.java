package dev.lancelot.spark;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.LancelotException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.spark.sql.connector.catalog.TableChange;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.StructField;

/**
 * Applies the {@link TableChange}s of one {@code ALTER TABLE} statement to a dataset, as Lance's
 * schema evolution does (docs/sql.md, "ALTER TABLE"): added columns (nullable, read as nulls in the
 * existing rows) commit one {@code Merge}, dropped columns one {@code Project}, each renamed column
 * one {@code Project}, and {@code SET/UNSET TBLPROPERTIES} one {@code UpdateConfig}. Every change
 * is checked before anything is committed, and one statement holds changes of one kind only, so a
 * refused statement commits nothing. Changes Lance cannot make without rewriting data (types,
 * positions, defaults, comments, nested fields) are refused, naming the change and the column.
 */
final class LanceTableChanges {
  /** Properties computed from the dataset (LanceTable.load); they cannot be set. */
  static final Set<String> RESERVED =
      Set.of(
          "location",
          "version",
          "format",
          "fragments",
          "rows",
          "indexes",
          "provider",
          "owner",
          "comment");

  private enum Kind {
    ADD,
    DROP,
    RENAME,
    PROPERTIES
  }

  private final String table;
  private final Dataset dataset;

  private LanceTableChanges(String table, Dataset dataset) {
    this.table = table;
    this.dataset = dataset;
  }

  /**
   * Commits {@code changes} to {@code dataset} (the table named {@code table}); returns the new
   * version.
   */
  static Dataset apply(String table, Dataset dataset, TableChange... changes) {
    return new LanceTableChanges(table, dataset).apply(changes);
  }

  private Dataset apply(TableChange... changes) {
    if (changes.length == 0) {
      return dataset;
    }
    Kind kind = kindOf(changes[0]);
    for (TableChange c : changes) {
      if (kindOf(c) != kind) {
        throw refuse(
            "it mixes "
                + describe(changes[0])
                + " with "
                + describe(c)
                + ", and a Lance version holds one "
                + "kind of schema change. Run them as separate ALTER TABLE statements.");
      }
    }
    return switch (kind) {
      case ADD -> addColumns(changes);
      case DROP -> dropColumns(changes);
      case RENAME -> renameColumns(changes);
      case PROPERTIES -> updateProperties(changes);
    };
  }

  private Kind kindOf(TableChange c) {
    if (c instanceof TableChange.AddColumn) {
      return Kind.ADD;
    }
    if (c instanceof TableChange.DeleteColumn) {
      return Kind.DROP;
    }
    if (c instanceof TableChange.RenameColumn) {
      return Kind.RENAME;
    }
    if (c instanceof TableChange.SetProperty || c instanceof TableChange.RemoveProperty) {
      return Kind.PROPERTIES;
    }
    if (c instanceof TableChange.UpdateColumnType u) {
      throw refuse(
          describe(c)
              + ": Lance changes a column's type only by rewriting it, which lancelot does not do. "
              + "Add a new column with the values cast (CALL lance.system.add_columns) and drop the old one.",
          column(u));
    }
    if (c instanceof TableChange.ColumnChange cc) {
      throw refuse(
          describe(c)
              + " is not supported by Lance tables: only ADD COLUMNS, DROP COLUMN, RENAME COLUMN "
              + "and SET/UNSET TBLPROPERTIES are.",
          column(cc));
    }
    throw refuse(
        describe(c)
            + " is not supported by Lance tables: only ADD COLUMNS, DROP COLUMN, RENAME COLUMN and "
            + "SET/UNSET TBLPROPERTIES are.");
  }

  private Dataset addColumns(TableChange[] changes) {
    Map<String, String> config = dataset.config();
    List<Field> fields = new ArrayList<>();
    for (TableChange c : changes) {
      TableChange.AddColumn add = (TableChange.AddColumn) c;
      String name = topLevel(add.fieldNames(), "add");
      if (add.position() != null) {
        throw refuse(
            "column \""
                + name
                + "\" is added at a position ("
                + add.position()
                + "), but Lance appends "
                + "new columns after the existing ones. Remove FIRST/AFTER.");
      }
      if (add.defaultValue() != null) {
        throw refuse(
            "column \""
                + name
                + "\" has a DEFAULT, but lancelot adds columns as nulls in the existing rows. "
                + "Remove DEFAULT, or compute the values with CALL lance.system.add_columns.");
      }
      if (add.comment() != null) {
        throw refuse(
            "column \""
                + name
                + "\" has a COMMENT, which Lance tables do not store. Remove COMMENT.");
      }
      if (!add.isNullable()) {
        throw refuse(
            "column \""
                + name
                + "\" is NOT NULL, but the existing rows would have no value for it. Add it "
                + "as a nullable column.");
      }
      String dim = config.get(name + "." + SparkTypes.FIXED_SIZE_LIST_SIZE);
      Integer vectorDim =
          dim == null
              ? null
              : (int) LanceOptions.positiveLong(name + "." + SparkTypes.FIXED_SIZE_LIST_SIZE, dim);
      fields.add(
          SparkTypes.toArrow(
              new StructField(name, add.dataType(), true, Metadata.empty()), vectorDim));
    }
    return engine(() -> dataset.addColumns(fields));
  }

  private Dataset dropColumns(TableChange[] changes) {
    List<String> names = new ArrayList<>();
    for (TableChange c : changes) {
      TableChange.DeleteColumn drop = (TableChange.DeleteColumn) c;
      String name = topLevel(drop.fieldNames(), "drop");
      if (dataset.lanceSchema().field(name).isEmpty() && drop.ifExists()) {
        continue;
      }
      names.add(name);
    }
    return names.isEmpty() ? dataset : engine(() -> dataset.dropColumns(names));
  }

  private Dataset renameColumns(TableChange[] changes) {
    Dataset current = dataset;
    for (TableChange c : changes) {
      TableChange.RenameColumn rename = (TableChange.RenameColumn) c;
      String name = topLevel(rename.fieldNames(), "rename");
      Dataset base = current;
      current = engine(() -> base.renameColumn(name, rename.newName()));
    }
    return current;
  }

  private Dataset updateProperties(TableChange[] changes) {
    Map<String, Optional<String>> entries = new LinkedHashMap<>();
    for (TableChange c : changes) {
      String key =
          c instanceof TableChange.SetProperty s
              ? s.property()
              : ((TableChange.RemoveProperty) c).property();
      if (RESERVED.contains(key.toLowerCase(java.util.Locale.ROOT))) {
        throw refuse(
            "property \""
                + key
                + "\" is computed from the dataset and cannot be set or removed. Reserved: "
                + new java.util.TreeSet<>(RESERVED)
                + ".");
      }
      if (c instanceof TableChange.SetProperty s) {
        if (key.endsWith("." + SparkTypes.FIXED_SIZE_LIST_SIZE)) {
          LanceOptions.positiveLong(key, s.value()); // a vector dimension must be a positive number
        }
        entries.put(key, Optional.of(s.value()));
      } else if (dataset
          .config()
          .containsKey(key)) { // UNSET of an absent key changes nothing, as in Spark
        entries.put(key, Optional.empty());
      }
    }
    return engine(() -> dataset.updateConfig(entries));
  }

  private String topLevel(String[] fieldNames, String action) {
    if (fieldNames.length != 1) {
      throw refuse(
          "cannot "
              + action
              + " nested field "
              + String.join(".", fieldNames)
              + ": lancelot changes "
              + "top-level columns only.");
    }
    return fieldNames[0];
  }

  /** Runs an engine change, turning its refusals into errors naming the table. */
  private Dataset engine(java.util.function.Supplier<Dataset> change) {
    try {
      return change.get();
    } catch (dev.lancelot.engine.CommitConflictException e) {
      throw e;
    } catch (LancelotException e) {
      throw new IllegalArgumentException("Cannot alter " + table + ": " + e.getMessage(), e);
    }
  }

  private static String column(TableChange.ColumnChange c) {
    return String.join(".", c.fieldNames());
  }

  private IllegalArgumentException refuse(String reason, String column) {
    return refuse(reason + " (column " + column + ")");
  }

  private IllegalArgumentException refuse(String reason) {
    return new IllegalArgumentException("Cannot alter " + table + ": " + reason);
  }

  private static String describe(TableChange c) {
    String name = c.getClass().getSimpleName();
    if (c instanceof TableChange.ColumnChange cc) {
      return name + " of column " + String.join(".", cc.fieldNames());
    }
    if (c instanceof TableChange.SetProperty s) {
      return "SetProperty " + s.property();
    }
    if (c instanceof TableChange.RemoveProperty r) {
      return "RemoveProperty " + r.property();
    }
    return name;
  }
}
