package dev.lancelot.engine.faults;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.OpenOptions;
import dev.lancelot.engine.WriteMode;
import dev.lancelot.engine.WriteOptions;
import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.index.scalar.BTreeBuildParams;
import dev.lancelot.engine.index.scalar.BTreeIndexBuilder;
import dev.lancelot.engine.index.vector.VectorIndexSpec;
import dev.lancelot.engine.index.vector.VectorIndexes;
import dev.lancelot.engine.testing.ArrowStreams;
import dev.lancelot.engine.testing.StandardData;
import dev.lancelot.engine.vector.DistanceMetric;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.hadoop.conf.Configuration;

/**
 * The operations of the fault matrix. Each has a starting state ({@link #prepare}, written without
 * faults) and one call that commits at most one version ({@link #run}), made through the store
 * under test. Small data: the matrix repeats each operation once per storage call it makes.
 */
public enum FaultedOperation {
  /** Creates the dataset: 300 rows in 2 fragments. */
  WRITE("write (create)") {
    @Override
    public void prepare(String location, Configuration conf, BufferAllocator allocator) {
      // nothing: the dataset does not exist yet
    }

    @Override
    public void run(String location, Configuration conf, BufferAllocator allocator) {
      write(location, conf, allocator, 0, 300, WriteMode.CREATE).close();
    }
  },
  /** Appends 60 rows to a dataset of 300. */
  APPEND("append") {
    @Override
    public void run(String location, Configuration conf, BufferAllocator allocator) {
      try (Dataset ds = open(location, conf, allocator);
          ArrowReader data = rows(allocator, 1000, 60)) {
        ds.append(data).close();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  },
  /** Deletes rows from both fragments (deletion files for each). */
  DELETE("delete") {
    @Override
    public void run(String location, Configuration conf, BufferAllocator allocator) {
      try (Dataset ds = open(location, conf, allocator)) {
        ds.delete("id < 15 OR id >= 280").close();
      }
    }
  },
  /** Builds an IVF_PQ index (2 partitions, 2 sub-vectors of the 8-dimensional vectors). */
  VECTOR_INDEX("build IVF_PQ index") {
    @Override
    public void run(String location, Configuration conf, BufferAllocator allocator) {
      try (Dataset ds = open(location, conf, allocator)) {
        VectorIndexes.create(ds, "vector", PQ).close();
      }
    }
  },
  /** Builds a BTree index on {@code id}. */
  SCALAR_INDEX("build BTree index") {
    @Override
    public void run(String location, Configuration conf, BufferAllocator allocator) {
      try (Dataset ds = open(location, conf, allocator)) {
        BTreeIndexBuilder.build(ds, BTreeBuildParams.of("id").withPageSize(32)).close();
      }
    }
  },
  /** Adds a delta segment over a fragment appended after the IVF_PQ index was built. */
  OPTIMIZE_INDEX("optimize index") {
    @Override
    public void prepare(String location, Configuration conf, BufferAllocator allocator) {
      super.prepare(location, conf, allocator);
      try (Dataset ds = open(location, conf, allocator)) {
        VectorIndexes.create(ds, "vector", PQ).close();
      }
      write(location, conf, allocator, 500, 40, WriteMode.APPEND).close();
    }

    @Override
    public void run(String location, Configuration conf, BufferAllocator allocator) {
      try (Dataset ds = open(location, conf, allocator)) {
        VectorIndexes.optimize(ds, "vector_idx", false).close();
      }
    }
  };

  static final int DIM = 8;
  static final VectorIndexSpec PQ =
      VectorIndexSpec.of(IndexType.IVF_PQ, DistanceMetric.L2)
          .withNumPartitions(2)
          .withNumSubVectors(2)
          .withSampleRate(64)
          .withMaxIters(5);

  private final String displayName;

  FaultedOperation(String displayName) {
    this.displayName = displayName;
  }

  /** Makes the state the operation starts from: by default a dataset of 300 rows in 2 fragments. */
  public void prepare(String location, Configuration conf, BufferAllocator allocator) {
    write(location, conf, allocator, 0, 300, WriteMode.CREATE).close();
  }

  public abstract void run(String location, Configuration conf, BufferAllocator allocator);

  @Override
  public String toString() {
    return displayName;
  }

  static Dataset open(String location, Configuration conf, BufferAllocator allocator) {
    return Dataset.open(
        location, OpenOptions.defaults().withHadoopConf(conf).withAllocator(allocator));
  }

  static Dataset write(
      String location,
      Configuration conf,
      BufferAllocator allocator,
      long firstId,
      int rows,
      WriteMode mode) {
    try (ArrowReader data = rows(allocator, firstId, rows)) {
      return Dataset.write(
          location,
          data,
          WriteOptions.of(mode).withMaxRowsPerFile(200),
          OpenOptions.defaults().withHadoopConf(conf).withAllocator(allocator));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static ArrowReader rows(BufferAllocator allocator, long firstId, int rows) {
    try (VectorSchemaRoot batch = StandardData.generate(allocator, firstId, rows, DIM, 11)) {
      return ArrowStreams.readerOf(allocator, List.of(batch));
    }
  }
}
