package dev.lancelot.engine.internal.index.vector.build;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.index.vector.VectorIndexSpec;
import dev.lancelot.engine.internal.DatasetInternals;
import dev.lancelot.engine.internal.format.FragmentBitmaps;
import dev.lancelot.engine.internal.format.IndexUuids;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFragment;
import dev.lancelot.engine.internal.format.proto.TableProtos.IndexFile;
import dev.lancelot.engine.internal.format.proto.TableProtos.IndexMetadata;
import dev.lancelot.engine.internal.format.proto.TableProtos.UUID;
import dev.lancelot.engine.internal.index.vector.VectorStorage;
import dev.lancelot.engine.internal.index.vector.flat.FlatStorage;
import dev.lancelot.engine.internal.index.vector.hnsw.HnswBuildParams;
import dev.lancelot.engine.internal.index.vector.hnsw.HnswBuilder;
import dev.lancelot.engine.internal.index.vector.hnsw.HnswGraph;
import dev.lancelot.engine.internal.index.vector.pq.PqStorage;
import dev.lancelot.engine.internal.index.vector.sq.SqStorage;
import dev.lancelot.engine.internal.index.vector.store.IndexFileLayout;
import dev.lancelot.engine.internal.index.vector.store.IndexSegmentWriter;
import dev.lancelot.engine.io.FileIO;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.roaringbitmap.RoaringBitmap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds one vector index segment over some fragments of a dataset version and writes it in Lance
 * 7's layout under {@code _indices/<uuid>/}; committing is the caller's step ({@code
 * VectorIndexes}). Pipeline: train (or reuse) the model on a sample → stream the column again,
 * assigning and encoding (only codes are kept) → build HNSW graphs per partition when the type has
 * them → write {@code auxiliary.idx} and {@code index.idx}. Progress is logged per phase.
 */
public final class VectorIndexBuilder {
  private static final Logger LOG = LoggerFactory.getLogger(VectorIndexBuilder.class);

  private VectorIndexBuilder() {}

  /** A written, not yet committed segment: its manifest entry and the model it used. */
  public record BuiltSegment(
      IndexMetadata metadata, TrainedModel model, long rows, long buildMillis) {}

  /**
   * Builds a segment of index {@code spec.nameFor(column)} over {@code fragments} of {@code
   * dataset}, training a model, or encoding with {@code reuse} (a delta segment) when given.
   */
  public static BuiltSegment build(
      Dataset dataset,
      String column,
      VectorIndexSpec spec,
      List<DataFragment> fragments,
      TrainedModel reuse) {
    long started = System.nanoTime();
    TrainedModel model = reuse != null ? reuse : train(dataset, column, spec, fragments);
    EncodedShard shard = encode(dataset, column, model, fragments);
    return assemble(dataset, column, spec, model, fragments, List.of(shard), started);
  }

  /**
   * Writes the segments of an index over some fragments with a model trained once (by the caller):
   * one segment here ({@link #LOCAL_SEGMENTS}), or one per group of fragments wherever the data is
   * (the Spark connector writes each group's segment in an executor). Returns the segments'
   * manifest entries, written but not committed.
   */
  @FunctionalInterface
  public interface SegmentWriter {
    List<IndexMetadata> write(
        Dataset dataset,
        String column,
        VectorIndexSpec spec,
        TrainedModel model,
        List<DataFragment> fragments);
  }

  /** One segment over all the fragments, written here. */
  public static final SegmentWriter LOCAL_SEGMENTS =
      (dataset, column, spec, model, fragments) ->
          List.of(build(dataset, column, spec, fragments, model).metadata());

  /**
   * Trains a model for a segment of {@code spec} over {@code fragments} (on a sample of their
   * rows).
   */
  public static TrainedModel train(
      Dataset dataset, String column, VectorIndexSpec spec, List<DataFragment> fragments) {
    String action = action(dataset, column, spec, false);
    VectorColumn col = VectorColumn.resolve(dataset, column, action);
    LOG.info(
        "Building {} index \"{}\" ({}) on {}: {} fragments, {} rows",
        spec.type(),
        spec.nameFor(column),
        spec.metric().lanceName(),
        column,
        fragments.size(),
        VectorScan.liveRows(fragments));
    return ModelTrainer.train(dataset, col, spec, fragments, action);
  }

  /**
   * Assigns and encodes the live rows of {@code fragments} with {@code model}: the part of a build
   * that runs where the data is. Shards of disjoint fragments, passed to {@link #assemble} in
   * fragment order, give the same segment as one shard of all of them.
   */
  public static EncodedShard encode(
      Dataset dataset, String column, TrainedModel model, List<DataFragment> fragments) {
    String action =
        "encode fragments "
            + fragments.stream().map(DataFragment::getId).toList()
            + " of column \""
            + column
            + "\" of "
            + dataset.location()
            + " for a "
            + model.type()
            + " index";
    VectorColumn col = VectorColumn.resolve(dataset, column, action);
    if (model.dimension() != col.dimension()) {
      throw new IllegalStateException(
          "model of dimension " + model.dimension() + " for column of " + col.dimension());
    }
    long t = System.nanoTime();
    SegmentEncoder encoder = new SegmentEncoder(model);
    VectorScan.scan(dataset, col, fragments, action, encoder::add);
    if (encoder.skipped() > 0) {
      LOG.info(
          "Left {} zero vectors out of the cosine index (they have no direction)",
          encoder.skipped());
    }
    EncodedShard shard = encoder.accumulator().shard(encoder.loss(), encoder.skipped());
    LOG.info(
        "Assigned and encoded {} rows of {} fragments into {} partitions, {} ms",
        shard.rows(),
        fragments.size(),
        model.ivf().numPartitions(),
        (System.nanoTime() - t) / 1_000_000);
    return shard;
  }

  /**
   * Writes one segment over {@code fragments} from the shards that encoded them (in fragment
   * order): HNSW graphs when the type has them, then the index files under {@code
   * _indices/<uuid>/}. Not committed.
   */
  public static BuiltSegment assemble(
      Dataset dataset,
      String column,
      VectorIndexSpec spec,
      TrainedModel model,
      List<DataFragment> fragments,
      List<EncodedShard> shards,
      long startedNanos) {
    String name = spec.nameFor(column);
    VectorColumn col = VectorColumn.resolve(dataset, column, action(dataset, column, spec, true));
    EncodedShard all =
        EncodedShard.concat(shards, model.ivf().numPartitions(), model.codeWidth(), model.flat());
    long rows = all.rows();
    double loss = all.loss();
    List<IndexSegmentWriter.Partition> partitions = all.partitions(model.codebook() != null);
    long t;
    if (spec.type().isHnsw()) {
      t = System.nanoTime();
      partitions = withGraphs(model, partitions, HnswBuildParams.of(spec));
      LOG.info(
          "Built HNSW graphs of {} partitions (m={}, ef_construction={}, max_level={}), {} ms",
          partitions.size(),
          spec.m(),
          spec.efConstruction(),
          spec.maxLevel(),
          (System.nanoTime() - t) / 1_000_000);
    }

    t = System.nanoTime();
    java.util.UUID uuid = java.util.UUID.randomUUID();
    FileIO io = DatasetInternals.context(dataset).io();
    String dir = DatasetInternals.context(dataset).paths().indexDir(uuid.toString());
    List<IndexSegmentWriter.WrittenFile> files;
    try {
      files =
          IndexSegmentWriter.write(
              io,
              dir,
              new IndexSegmentWriter.Content(
                  spec.type(),
                  spec.metric(),
                  model.ivf(),
                  model.codebook(),
                  model.quantizer(),
                  model.rabit(),
                  partitions,
                  loss),
              DatasetInternals.context(dataset).allocator());
    } catch (RuntimeException e) {
      io.deleteRecursively(dir);
      throw e;
    }
    LOG.info(
        "Wrote index segment {} ({} bytes), {} ms",
        dir,
        files.stream().mapToLong(IndexSegmentWriter.WrittenFile::sizeBytes).sum(),
        (System.nanoTime() - t) / 1_000_000);

    RoaringBitmap covered = new RoaringBitmap();
    fragments.forEach(f -> covered.add(Math.toIntExact(f.getId())));
    IndexMetadata.Builder meta =
        IndexMetadata.newBuilder()
            .setUuid(UUID.newBuilder().setUuid(IndexUuids.uuidBytes(uuid)))
            .addFields(col.fieldId())
            .setName(name)
            .setDatasetVersion(dataset.version())
            .setFragmentBitmap(FragmentBitmaps.bytes(covered))
            .setIndexDetails(IndexDetails.of(spec))
            .setIndexVersion(IndexFileLayout.indexVersion(spec.type()))
            .setCreatedAt(System.currentTimeMillis());
    for (IndexSegmentWriter.WrittenFile f : files) {
      meta.addFiles(IndexFile.newBuilder().setPath(f.name()).setSizeBytes(f.sizeBytes()));
    }
    long millis = (System.nanoTime() - startedNanos) / 1_000_000;
    LOG.info(
        "Built {} index \"{}\" segment {}: {} rows in {} ms",
        spec.type(),
        name,
        uuid,
        rows,
        millis);
    return new BuiltSegment(meta.build(), model, rows, millis);
  }

  private static String action(
      Dataset dataset, String column, VectorIndexSpec spec, boolean reuse) {
    return (reuse ? "write a segment of " : "create ")
        + spec.type()
        + " index \""
        + spec.nameFor(column)
        + "\" on column \""
        + column
        + "\" of "
        + dataset.location();
  }

  /** Adds each partition's HNSW graph (seeded per partition, built in parallel, deterministic). */
  static List<IndexSegmentWriter.Partition> withGraphs(
      TrainedModel model, List<IndexSegmentWriter.Partition> partitions, HnswBuildParams params) {
    IndexSegmentWriter.Partition[] out = new IndexSegmentWriter.Partition[partitions.size()];
    // Largest partitions first, each thread taking the next one when it is free: a graph costs
    // about n log n, so a large partition started last would leave the other threads idle.
    int[] order =
        IntStream.range(0, out.length)
            .boxed()
            .sorted((a, b) -> Integer.compare(partitions.get(b).size(), partitions.get(a).size()))
            .mapToInt(Integer::intValue)
            .toArray();
    AtomicInteger next = new AtomicInteger();
    Runnable worker =
        () -> {
          try {
            for (int i = next.getAndIncrement(); i < order.length; i = next.getAndIncrement()) {
              int p = order[i];
              out[p] = withGraph(model, partitions.get(p), params, p);
            }
          } catch (RuntimeException | Error e) {
            next.set(order.length); // the other threads stop after their current partition
            throw e;
          }
        };
    int helpers = Math.min(ForkJoinPool.getCommonPoolParallelism(), order.length - 1);
    List<ForkJoinTask<?>> tasks = new ArrayList<>();
    for (int h = 0; h < helpers; h++) {
      tasks.add(ForkJoinPool.commonPool().submit(worker));
    }
    RuntimeException failure = null;
    try {
      worker.run();
    } catch (RuntimeException e) {
      failure = e;
    }
    for (ForkJoinTask<?> task : tasks) {
      try {
        task.join();
      } catch (RuntimeException e) {
        if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
    return List.of(out);
  }

  /**
   * IVF partition {@code p} with its HNSW graph, built over its stored codes or vectors with the
   * seed {@code params.seed() + p}: the same graph wherever it is built.
   */
  public static IndexSegmentWriter.Partition withGraph(
      TrainedModel model, IndexSegmentWriter.Partition part, HnswBuildParams params, int p) {
    VectorStorage storage;
    if (model.codebook() != null) {
      storage = PqStorage.of(model.codebook(), part.codes(), part.size());
    } else if (model.quantizer() != null) {
      storage = SqStorage.of(model.quantizer(), part.codes(), part.size(), model.metric());
    } else {
      storage = FlatStorage.of(part.vectors(), model.dimension(), model.metric());
    }
    HnswGraph graph =
        part.size() == 0 ? null : HnswBuilder.build(storage, params.withSeed(params.seed() + p));
    return new IndexSegmentWriter.Partition(part.rowIds(), part.vectors(), part.codes(), graph);
  }
}
