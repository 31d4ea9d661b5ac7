package dev.lancelot.engine;

import dev.lancelot.engine.internal.format.SchemaProtos;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFile;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFragment;
import dev.lancelot.engine.internal.scan.FragmentReader;
import dev.lancelot.engine.internal.table.Operation;
import dev.lancelot.engine.internal.write.FragmentWriter;
import dev.lancelot.engine.io.CommitOutcomeUnknownException;
import dev.lancelot.engine.schema.LanceField;
import dev.lancelot.engine.schema.LanceSchema;
import dev.lancelot.engine.schema.SchemaException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Plans schema changes as Lance makes them: added columns are a {@code Merge} (one new data file
 * per fragment holding only the added fields, or no file at all for columns that read as nulls);
 * dropped and renamed columns are a metadata-only {@code Project} (field ids never change, so data
 * files and index segments stay valid; a dropped field's values stay in the files unread).
 */
final class ColumnChanges {
  /** Rows per batch handed to a {@link ColumnBackfill}. */
  static final int BACKFILL_BATCH_ROWS = 8192;

  private ColumnChanges() {}

  /**
   * The added columns as Lance fields, numbered after every field id the version uses in its schema
   * or in any data file (as Lance: a dropped field's id stays in old data files and must never be
   * given to a new column, which would then read the dropped values).
   */
  static LanceSchema addedFields(Dataset d, List<Field> columns, boolean valuesGiven) {
    String action = "Cannot add columns to " + d.location();
    if (columns.isEmpty()) {
      throw new LancelotException(action + ": no column given.");
    }
    Set<String> names = new HashSet<>(d.lanceSchema().names());
    for (Field c : columns) {
      if (c.getName() == null || c.getName().isBlank()) {
        throw new LancelotException(action + ": a column name is empty.");
      }
      if (!names.add(c.getName())) {
        throw new LancelotException(
            action
                + ": column \""
                + c.getName()
                + "\" "
                + (d.lanceSchema().field(c.getName()).isPresent()
                    ? "already exists"
                    : "is given twice")
                + ". The dataset's columns are "
                + d.lanceSchema().names()
                + ".");
      }
      if (!valuesGiven && !c.isNullable()) {
        throw new LancelotException(
            action
                + ": column \""
                + c.getName()
                + "\" is NOT NULL but would have no value "
                + "in the existing rows. Add it as a nullable column, or give its values (a backfill).");
      }
    }
    int maxId = d.lanceSchema().maxFieldId();
    for (DataFragment f : d.snapshot().fragments()) {
      for (DataFile file : f.getFilesList()) {
        for (int id : file.getFieldsList()) {
          maxId = Math.max(maxId, id);
        }
      }
    }
    try {
      return LanceSchema.fromArrow(new Schema(columns), maxId + 1);
    } catch (SchemaException e) {
      throw new LancelotException(action + ": " + e.getMessage(), e);
    }
  }

  /**
   * Writes the added columns' values for every physical row of {@code fragment} into one new data
   * file, computed by {@code backfill} from {@code inputs}. On failure the file is deleted.
   */
  static DataFile writeFragmentColumns(
      Dataset d,
      DataFragment fragment,
      LanceSchema added,
      List<String> inputs,
      ColumnBackfill backfill,
      String targetBase) {
    List<LanceField> inputFields = new ArrayList<>();
    for (String name : inputs) {
      inputFields.add(d.field(name));
    }
    List<Field> inputArrow = inputFields.stream().map(LanceField::toArrow).toList();
    long rows = fragment.getPhysicalRows();
    WriteOptions options =
        WriteOptions.of(WriteMode.APPEND)
            .withMaxRowsPerFile(Integer.MAX_VALUE)
            .resolvedFor(d.dataStorageVersion());
    try (FragmentReader reader = d.openFragment(fragment);
        FragmentWriter writer =
            FragmentWriter.open(d.context(), added, options, target(d, targetBase), () -> {})) {
      try {
        FragmentReader.BatchStream stream =
            reader.stream(inputFields, 0, rows, BACKFILL_BATCH_ROWS);
        try (stream) {
          long done = 0;
          while (done < rows) {
            int n = (int) Math.min(BACKFILL_BATCH_ROWS, rows - done);
            FieldVector[] vectors = inputFields.isEmpty() ? new FieldVector[0] : stream.next();
            try (VectorSchemaRoot in = new VectorSchemaRoot(inputArrow, List.of(vectors), n);
                VectorSchemaRoot out =
                    backfill.compute(fragment.getId(), in, d.context().allocator())) {
              check(d, fragment, added, n, out);
              writer.write(out);
            }
            done += n;
          }
        }
        List<FragmentMetadata> written = writer.finish();
        if (written.size() != 1 || written.get(0).physicalRows() != rows) {
          throw new IllegalStateException(
              "Writing the added columns of fragment "
                  + fragment.getId()
                  + " gave "
                  + written
                  + " instead of one file of "
                  + rows
                  + " rows");
        }
        return written.get(0).toProto().getFiles(0);
      } catch (RuntimeException e) {
        writer.abort();
        throw e;
      }
    }
  }

  /** Where a backfill naming base {@code targetBase} writes the new files of {@code d}. */
  private static FragmentWriter.Target target(Dataset d, String targetBase) {
    return dev.lancelot.engine.internal.write.TargetBases.resolve(
        d.location(),
        java.util.Optional.of(d.snapshot()),
        targetBase,
        "Cannot add columns to " + d.location() + ": cannot write their values");
  }

  private static void check(
      Dataset d, DataFragment fragment, LanceSchema added, int rows, VectorSchemaRoot out) {
    if (out == null) {
      throw new LancelotException(
          "Cannot add columns to "
              + d.location()
              + ": the backfill returned no batch for "
              + "fragment "
              + fragment.getId()
              + ".");
    }
    if (out.getRowCount() != rows) {
      throw new LancelotException(
          "Cannot add columns to "
              + d.location()
              + ": the backfill returned "
              + out.getRowCount()
              + " rows for a batch of "
              + rows
              + " rows of fragment "
              + fragment.getId()
              + "; it must return one value per row.");
    }
    List<String> got = out.getSchema().getFields().stream().map(Field::getName).toList();
    if (!got.equals(added.names())) {
      throw new LancelotException(
          "Cannot add columns to "
              + d.location()
              + ": the backfill returned columns "
              + got
              + " but the added columns are "
              + added.names()
              + ".");
    }
  }

  /**
   * Every fragment of {@code d} with its new data file (none when {@code files} is empty), and the
   * widened schema.
   */
  static Operation.Merge merge(Dataset d, LanceSchema added, Map<Long, DataFile> files) {
    List<DataFragment> fragments = new ArrayList<>();
    for (DataFragment f : d.snapshot().fragments()) {
      if (files.isEmpty()) {
        fragments.add(f);
        continue;
      }
      DataFile file = files.get(f.getId());
      if (file == null) {
        throw new IllegalArgumentException(
            "No data file of the added columns for fragment "
                + f.getId()
                + " of "
                + d.location()
                + " version "
                + d.version());
      }
      fragments.add(f.toBuilder().addFiles(file).build());
    }
    if (!files.isEmpty() && files.size() != fragments.size()) {
      throw new IllegalArgumentException(
          "Data files of the added columns given for "
              + files.size()
              + " fragments, but version "
              + d.version()
              + " of "
              + d.location()
              + " has "
              + fragments.size());
    }
    List<LanceField> all = new ArrayList<>(d.lanceSchema().fields());
    all.addAll(added.fields());
    LanceSchema widened = LanceSchema.of(all, d.lanceSchema().metadata());
    return new Operation.Merge(
        fragments, SchemaProtos.toProtos(widened), SchemaProtos.metadataProto(widened));
  }

  static Operation.Project drop(Dataset d, List<String> names) {
    String action = "Cannot drop columns " + names + " of " + d.location();
    Set<String> dropped = new HashSet<>();
    for (String name : names) {
      if (d.lanceSchema().field(name).isEmpty()) {
        throw new LancelotException(
            action
                + ": there is no column \""
                + name
                + "\". The dataset's columns are "
                + d.lanceSchema().names()
                + ".");
      }
      dropped.add(name);
    }
    if (dropped.isEmpty()) {
      throw new LancelotException(action + ": no column given.");
    }
    List<LanceField> kept = new ArrayList<>();
    for (LanceField f : d.lanceSchema().fields()) {
      if (!dropped.contains(f.name())) {
        kept.add(f);
      }
    }
    if (kept.isEmpty()) {
      throw new LancelotException(
          action + ": a dataset keeps at least one column. Drop the dataset instead.");
    }
    return new Operation.Project(
        SchemaProtos.toProtos(LanceSchema.of(kept, d.lanceSchema().metadata())));
  }

  static Operation.Project rename(Dataset d, String from, String to) {
    String action =
        "Cannot rename column \"" + from + "\" of " + d.location() + " to \"" + to + "\"";
    if (d.lanceSchema().field(from).isEmpty()) {
      throw new LancelotException(
          action
              + ": there is no such column. The dataset's columns are "
              + d.lanceSchema().names()
              + ".");
    }
    if (to == null || to.isBlank()) {
      throw new LancelotException(action + ": the new name is empty.");
    }
    if (d.lanceSchema().field(to).isPresent()) {
      throw new LancelotException(action + ": a column \"" + to + "\" already exists.");
    }
    List<LanceField> fields = new ArrayList<>();
    for (LanceField f : d.lanceSchema().fields()) {
      fields.add(
          f.name().equals(from)
              ? new LanceField(
                  f.id(),
                  f.parentId(),
                  to,
                  f.logicalType(),
                  f.nullable(),
                  f.metadata(),
                  f.children(),
                  f.legacyEncoding(),
                  f.unenforcedPrimaryKey())
              : f);
    }
    return new Operation.Project(
        SchemaProtos.toProtos(LanceSchema.of(fields, d.lanceSchema().metadata())));
  }

  /** {@link Dataset#addColumns(List, List, ColumnBackfill)}. */
  static Dataset addComputed(
      Dataset dataset,
      List<org.apache.arrow.vector.types.pojo.Field> columns,
      List<String> inputs,
      ColumnBackfill backfill,
      String targetBase) {
    dev.lancelot.engine.schema.LanceSchema added = addedFields(dataset, columns, true);
    target(dataset, targetBase); // an unknown base is refused before anything is written
    Map<Long, dev.lancelot.engine.internal.format.proto.TableProtos.DataFile> files =
        new java.util.LinkedHashMap<>();
    try {
      for (DataFragment f : dataset.snapshot().fragments()) {
        files.put(f.getId(), writeFragmentColumns(dataset, f, added, inputs, backfill, targetBase));
      }
      if (files.isEmpty()) { // no rows: the columns only change the schema
        return dataset.addColumns(columns);
      }
      return new Dataset(
          dataset.context(),
          dataset.committer().commit(dataset.snapshot(), merge(dataset, added, files)),
          false);
    } catch (CommitOutcomeUnknownException e) {
      throw e; // the version may exist and refer to the files: keep them
    } catch (RuntimeException e) {
      for (var file : files.values()) {
        try {
          dataset.context().io().delete(dataset.snapshot().bases().dataFile(file));
        } catch (RuntimeException suppressed) {
          e.addSuppressed(suppressed);
        }
      }
      throw e;
    }
  }

  /** {@link Dataset#commitAddedColumns}. */
  static Dataset commitAdded(
      Dataset dataset, dev.lancelot.engine.schema.LanceSchema added, List<FragmentMetadata> files) {
    Map<Long, dev.lancelot.engine.internal.format.proto.TableProtos.DataFile> byFragment =
        new java.util.HashMap<>();
    for (FragmentMetadata f : files) {
      DataFragment proto = f.toProto();
      if (proto.getFilesCount() != 1 || byFragment.put(proto.getId(), proto.getFiles(0)) != null) {
        throw new IllegalArgumentException("Expected one data file per fragment, got " + files);
      }
    }
    if (byFragment.isEmpty()) {
      return dataset.addColumns(added.toArrow().getFields());
    }
    return new Dataset(
        dataset.context(),
        dataset.committer().commit(dataset.snapshot(), merge(dataset, added, byFragment)),
        false);
  }
}
