package dev.lancelot.engine;

import dev.lancelot.engine.internal.DatasetInternals;
import dev.lancelot.engine.internal.format.ManifestNaming;
import dev.lancelot.engine.internal.format.SchemaProtos;
import dev.lancelot.engine.internal.format.proto.TableProtos.BasePath;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFile;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFragment;
import dev.lancelot.engine.internal.table.Committer;
import dev.lancelot.engine.internal.table.DatasetContext;
import dev.lancelot.engine.internal.table.NewBases;
import dev.lancelot.engine.internal.table.Operation;
import dev.lancelot.engine.internal.table.OperationKind;
import dev.lancelot.engine.internal.table.RowIds;
import dev.lancelot.engine.internal.table.Snapshot;
import dev.lancelot.engine.internal.table.VersionLog;
import dev.lancelot.engine.internal.table.WriteChecks;
import dev.lancelot.engine.internal.write.FragmentWriter;
import dev.lancelot.engine.internal.write.TargetBases;
import dev.lancelot.engine.schema.LanceSchema;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.hadoop.conf.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes that create versions from new data files: a whole write ({@link Dataset#write}), and the
 * steps of a distributed one — data files written by tasks without a commit, the commit of all of
 * them as one version, the clean-up of an aborted job, and the files of a distributed column
 * backfill. The public entry points of the distributed steps are in {@code
 * dev.lancelot.engine.distributed.DistributedWrite}. Package-private.
 */
final class DatasetWrites {
  private static final Logger LOG = LoggerFactory.getLogger(Dataset.class);

  private DatasetWrites() {}

  static Dataset write(
      DatasetStorage.ContextAndOwnership c,
      String location,
      ArrowReader data,
      WriteOptions options) {
    try {
      Schema arrowSchema = data.getVectorSchemaRoot().getSchema();
      Iterator<VectorSchemaRoot> batches = FragmentWriter.batchesOf(data);
      Optional<Snapshot> latest = DatasetStorage.loadLatest(c.ctx());
      WriteOptions resolved = options.resolvedFor(latest.map(DatasetWrites::version).orElse(null));
      LanceSchema target =
          targetSchema(c.ctx(), latest, arrowSchema, options.mode())
              .withBlobEncodingFor(resolved.dataStorageVersion());
      List<BasePath> initial = initialBases(c.ctx(), latest, options);
      FragmentWriter.Target where =
          latest.isEmpty() && !initial.isEmpty()
              ? TargetBases.resolve(
                  c.ctx().paths().root(),
                  NewBases.infos(c.ctx().paths(), initial),
                  false,
                  options.targetBase(),
                  "Cannot write")
              : targetBase(c.ctx(), latest, options);
      List<FragmentMetadata> fragments =
          FragmentWriter.write(c.ctx(), target, batches, resolved, where);
      Snapshot s = commitWrite(c.ctx(), latest, target, fragments, resolved);
      return new Dataset(c.ctx(), s, c.owns());
    } catch (RuntimeException e) {
      if (c.owns()) {
        c.ctx().allocator().close();
      }
      throw e;
    } catch (java.io.IOException e) {
      if (c.owns()) {
        c.ctx().allocator().close();
      }
      throw new LancelotException(
          "Cannot write to " + location + ": reading the input data failed: " + e.getMessage(), e);
    }
  }

  /**
   * Writes data files for {@code batches} without committing them (one step of a distributed
   * write). The schema must be the dataset's ({@link Dataset#lanceSchema()}) for appends, or a new
   * one made by {@link LanceSchema#fromArrow} for creates and overwrites. Nothing becomes visible
   * until {@link #commitFragments} commits the returned fragments.
   */
  static List<FragmentMetadata> writeFragments(
      String location,
      Configuration conf,
      LanceSchema schema,
      Iterator<VectorSchemaRoot> batches,
      WriteOptions options) {
    DatasetStorage.ContextAndOwnership c = DatasetStorage.context(location, conf, null);
    try {
      return FragmentWriter.write(
          c.ctx(), schema, batches, resolve(c.ctx(), options), taskTarget(c.ctx(), options));
    } finally {
      c.ctx().allocator().close();
    }
  }

  /** See {@link DatasetInternals#newFragmentWriter}. */
  static FragmentWriter newFragmentWriter(
      String location, Configuration conf, LanceSchema schema, WriteOptions options) {
    DatasetStorage.ContextAndOwnership c = DatasetStorage.context(location, conf, null);
    try {
      return FragmentWriter.open(
          c.ctx(),
          schema,
          resolve(c.ctx(), options),
          taskTarget(c.ctx(), options),
          () -> c.ctx().allocator().close());
    } catch (RuntimeException e) {
      c.ctx().allocator().close();
      throw e;
    }
  }

  /**
   * Where {@code options.targetBase()} puts new data files: a base the latest version registers, by
   * name or path; refused (naming the bases there are) when there is none of that name.
   */
  static FragmentWriter.Target targetBase(
      DatasetContext ctx, Optional<Snapshot> latest, WriteOptions options) {
    return TargetBases.resolve(ctx.paths().root(), latest, options.targetBase(), "Cannot write");
  }

  /**
   * The base paths {@code options} register, checked (decision D68): only a write in mode CREATE
   * registers bases, as in Lance 7.
   */
  static List<BasePath> initialBases(
      DatasetContext ctx, Optional<Snapshot> latest, WriteOptions options) {
    if (options.initialBases().isEmpty()) {
      return List.of();
    }
    if (options.mode() != WriteMode.CREATE) {
      throw new InvalidInputException(
          "Cannot register base paths on "
              + ctx.paths().root()
              + " in mode "
              + options.mode()
              + ": bases are registered only when a dataset is created (mode CREATE), as in"
              + " Lance. Write without initial bases, or create a new dataset with them.");
    }
    return NewBases.check(ctx.io(), ctx.paths(), options.initialBases());
  }

  /**
   * The target of a distributed write's task: {@link #targetBase} against the latest version (the
   * bases a dataset registers never change after its creation, so every task finds the one the
   * coordinator checked).
   */
  private static FragmentWriter.Target taskTarget(DatasetContext ctx, WriteOptions options) {
    return options.targetBase() == null
        ? FragmentWriter.Target.ROOT
        : targetBase(ctx, DatasetStorage.loadLatest(ctx), options);
  }

  /** The data storage version of a snapshot's manifest. */
  static String version(Snapshot s) {
    return s.manifest().getDataFormat().getVersion();
  }

  /**
   * {@code options} as they are, when the coordinator resolved their file version; else resolved
   * against the latest version of the dataset (a task of a distributed write left to decide).
   */
  private static WriteOptions resolve(DatasetContext ctx, WriteOptions options) {
    if (options.dataStorageVersion() != null) {
      return options; // the commit checks that an append's files have the dataset's version
    }
    return options.resolvedFor(
        DatasetStorage.loadLatest(ctx).map(DatasetWrites::version).orElse(null));
  }

  /**
   * Commits fragments written by {@link #writeFragments} as one new version. {@code readVersion} is
   * the version the writer planned against (0 when the dataset did not exist).
   */
  static Dataset commitFragments(
      String location,
      Configuration conf,
      LanceSchema schema,
      List<FragmentMetadata> fragments,
      WriteOptions options,
      long readVersion,
      Map<String, String> properties) {
    WriteMode mode = options.mode();
    DatasetStorage.ContextAndOwnership c = DatasetStorage.context(location, conf, null);
    try {
      Optional<Snapshot> base =
          readVersion > 0
              ? Optional.of(DatasetStorage.loadVersion(c.ctx(), readVersion))
              : DatasetStorage.loadLatest(c.ctx());
      if (readVersion == 0 && base.isPresent() && mode == WriteMode.CREATE) {
        throw new DatasetAlreadyExistsException(
            "Cannot create dataset "
                + c.ctx().paths().root()
                + ": a dataset was created there concurrently (version "
                + base.get().version()
                + ").");
      }
      Snapshot s =
          commitWrite(
              c.ctx(),
              base,
              schema,
              fragments,
              options.resolvedFor(base.map(DatasetWrites::version).orElse(null)),
              properties);
      return new Dataset(c.ctx(), s, c.owns());
    } catch (RuntimeException e) {
      c.ctx().allocator().close();
      throw e;
    }
  }

  /**
   * Deletes what {@link #writeFragments} wrote, after a failed or aborted distributed write. Files
   * the latest version refers to are kept: a commit reported as failed may have been published (its
   * outcome unknown after storage errors), and deleting them would break that version. When the
   * latest version cannot be read, nothing is deleted: files no version refers to are harmless.
   */
  static void abortFragments(
      String location, Configuration conf, List<FragmentMetadata> fragments) {
    DatasetStorage.ContextAndOwnership c = DatasetStorage.context(location, conf, null);
    try {
      java.util.Set<String> referenced = new java.util.HashSet<>();
      Optional<Snapshot> latest;
      try {
        latest = DatasetStorage.loadLatest(c.ctx());
        latest.ifPresent(
            s ->
                s.fragments()
                    .forEach(
                        f -> f.getFilesList().forEach(file -> referenced.add(file.getPath()))));
      } catch (RuntimeException e) {
        LOG.warn(
            "Not deleting the files of an aborted write to {}: cannot read its latest version to check that "
                + "none of them was committed: {}",
            location,
            e.getMessage());
        return;
      }
      for (FragmentMetadata f : fragments) {
        for (DataFile file : f.toProto().getFilesList()) {
          String path = file.getPath();
          if (referenced.contains(path)) {
            LOG.warn(
                "Keeping {} of an aborted write to {}: the latest version refers to it",
                path,
                location);
          } else if (!file.hasBaseId()) {
            c.ctx().io().delete(c.ctx().paths().dataFile(path));
          } else if (latest.isPresent()) { // a file a task wrote to a target base
            c.ctx().io().delete(latest.get().bases().dataFile(file));
          }
        }
      }
    } finally {
      c.ctx().allocator().close();
    }
  }

  /**
   * One task of a distributed backfill: writes the values of {@code added} (from {@link
   * Dataset#planAddedColumns}) for every physical row of fragment {@code fragmentId} of version
   * {@code version}, computed by {@code backfill} (which gets batches without input columns, in row
   * order), into one new data file. Returns it as the fragment with that id and only the new file,
   * for {@link Dataset#commitAddedColumns}; {@link #abortFragments} deletes it.
   */
  static FragmentMetadata writeAddedColumns(
      String location,
      Configuration conf,
      long version,
      dev.lancelot.engine.schema.LanceSchema added,
      long fragmentId,
      ColumnBackfill backfill,
      String targetBase) {
    try (Dataset d =
        Dataset.open(location, OpenOptions.defaults().withHadoopConf(conf).withVersion(version))) {
      DataFragment fragment =
          d.snapshot()
              .fragment(fragmentId)
              .orElseThrow(
                  () ->
                      new LancelotException(
                          "Cannot add columns to fragment "
                              + fragmentId
                              + " of "
                              + location
                              + " version "
                              + version
                              + ": no such fragment"));
      var file =
          ColumnChanges.writeFragmentColumns(d, fragment, added, List.of(), backfill, targetBase);
      return new FragmentMetadata(
          DataFragment.newBuilder()
              .setId(fragmentId)
              .addFiles(file)
              .setPhysicalRows(fragment.getPhysicalRows())
              .build());
    }
  }

  static LanceSchema targetSchema(
      DatasetContext ctx, Optional<Snapshot> latest, Schema arrow, WriteMode mode) {
    if (latest.isPresent() && mode == WriteMode.CREATE) {
      throw new DatasetAlreadyExistsException(
          "Cannot create dataset "
              + ctx.paths().root()
              + ": it already exists "
              + "(version "
              + latest.get().version()
              + "). Use mode APPEND or OVERWRITE.");
    }
    if (latest.isPresent() && mode == WriteMode.APPEND) {
      Snapshot s = latest.get();
      WriteChecks.check(ctx.paths().root(), s.manifest(), OperationKind.APPEND);
      LanceSchema existing =
          SchemaProtos.fromProtos(
              s.manifest().getFieldsList(), s.manifest().getSchemaMetadataMap());
      return SchemaCompatibility.forAppend(ctx.paths().root(), existing, arrow);
    }
    return LanceSchema.fromArrow(arrow);
  }

  static Snapshot commitWrite(
      DatasetContext ctx,
      Optional<Snapshot> latest,
      LanceSchema schema,
      List<FragmentMetadata> fragments,
      WriteOptions options) {
    return commitWrite(ctx, latest, schema, fragments, options, Map.of());
  }

  static Snapshot commitWrite(
      DatasetContext ctx,
      Optional<Snapshot> latest,
      LanceSchema schema,
      List<FragmentMetadata> fragments,
      WriteOptions options,
      Map<String, String> properties) {
    WriteMode mode = options.mode();
    List<DataFragment> protos = fragments.stream().map(FragmentMetadata::toProto).toList();
    Snapshot base = latest.orElse(null);
    List<BasePath> initial = initialBases(ctx, latest, options);
    if (options.enableStableRowIds()
        && base != null
        && !RowIds.usesStableRowIds(base.manifest().getReaderFeatureFlags())) {
      throw new InvalidInputException(
          "Cannot enable stable row ids on "
              + ctx.paths().root()
              + ": the dataset exists (version "
              + base.version()
              + ") without them, and they can only be enabled when a dataset is created. Write"
              + " without the option, or create a new dataset with it.");
    }
    ManifestNaming naming = base == null ? ManifestNaming.V2 : base.entry().naming();
    Committer committer = new Committer(ctx.io(), ctx.paths(), naming).withProperties(properties);
    Operation op =
        base != null && mode == WriteMode.APPEND
            ? new Operation.Append(protos)
            : new Operation.Overwrite(
                SchemaProtos.toProtos(schema),
                SchemaProtos.metadataProto(schema),
                protos,
                options.dataStorageVersion(),
                base == null && options.enableStableRowIds(),
                initial);
    return committer.commit(base, op);
  }

  /**
   * The transaction properties of the newest version, {@code dataset}'s own or an earlier one of
   * its branch, whose transaction records {@code key = value}; empty when no version still present
   * does. Reads one manifest per version, newest first, and stops at the first match.
   */
  static Optional<Map<String, String>> newestCommitWith(Dataset dataset, String key, String value) {
    DatasetContext ctx = dataset.context();
    for (long v = dataset.version(); v >= 1; v--) {
      Snapshot s;
      if (v == dataset.version()) {
        s = dataset.snapshot();
      } else {
        Optional<VersionLog.Entry> entry = VersionLog.find(ctx.io(), ctx.paths(), v);
        if (entry.isEmpty()) {
          return Optional.empty(); // older versions were removed by cleanup
        }
        s = DatasetStorage.readSnapshot(ctx, entry.get());
      }
      Optional<Map<String, String>> props =
          s.file().transaction().map(t -> t.getTransactionPropertiesMap());
      if (props.isPresent() && value.equals(props.get().get(key))) {
        return props;
      }
      if ((dataset.version() - v) % 100 == 99) {
        LOG.info(
            "Looking for the newest commit with {} = {} in {}: {} versions read",
            key,
            value,
            ctx.paths().root(),
            dataset.version() - v + 1);
      }
    }
    return Optional.empty();
  }
}
