package dev.lancelot.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.index.vector.VectorIndexSpec;
import dev.lancelot.engine.index.vector.VectorIndexes;
import dev.lancelot.engine.internal.query.DistributedSearch;
import dev.lancelot.engine.io.ReadCounters;
import dev.lancelot.engine.query.VectorQuery;
import dev.lancelot.engine.query.VectorSearchResult;
import dev.lancelot.engine.testing.ArrowStreams;
import dev.lancelot.engine.testing.ClusteredData;
import dev.lancelot.engine.vector.DistanceMetric;
import java.nio.file.Path;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The shared session's caches: opened versions, and index segments bounded in bytes. */
class DatasetCacheTest {
  static void write(BufferAllocator a, Path dir, long first, int rows, WriteMode mode)
      throws Exception {
    try (VectorSchemaRoot b = ClusteredData.generate(a, first, rows, 8, 10, 3);
        ArrowReader r = ArrowStreams.readerOf(a, List.of(b))) {
      Dataset.write(dir.toString(), r, WriteOptions.of(mode)).close();
    }
  }

  @Test
  void versionsAreOpenedOnceAndNeverGoStale(@TempDir Path dir) throws Exception {
    try (BufferAllocator a = new RootAllocator()) {
      write(a, dir, 0, 100, WriteMode.CREATE);
      Configuration conf = new Configuration(false);
      Dataset v1 = Dataset.openCached(dir.toString(), 1, conf);
      assertThat(Dataset.openCached(dir.toString(), 1, new Configuration(false))).isSameAs(v1);
      v1.close(); // shared: closing releases nothing
      assertThat(v1.countRows()).isEqualTo(100);
      write(a, dir, 100, 50, WriteMode.APPEND);
      Dataset v2 = Dataset.openCached(dir.toString(), 2, conf);
      assertThat(v2).isNotSameAs(v1);
      assertThat(v2.countRows()).isEqualTo(150);
      assertThat(Dataset.openCached(dir.toString(), 1, conf).countRows()).isEqualTo(100);
      Configuration other = new Configuration(false);
      other.set("fs.file.impl.disable.cache", "true");
      assertThat(Dataset.openCached(dir.toString(), 1, other)).isNotSameAs(v1);
      assertThatThrownBy(() -> Dataset.openCached(dir.toString(), 0, conf))
          .hasMessageContaining("explicit version");
      // the latest version is found by listing every time: a new commit is seen at once
      assertThat(Dataset.openLatestCached(dir.toString(), conf)).isSameAs(v2);
      write(a, dir, 150, 10, WriteMode.APPEND);
      assertThat(Dataset.openLatestCached(dir.toString(), conf).version()).isEqualTo(3);
      assertThatThrownBy(() -> Dataset.openLatestCached(dir.resolve("missing").toString(), conf))
          .isInstanceOf(DatasetNotFoundException.class);
    }
  }

  @Test
  void anEvictedLocationIsReadAgainWhenADatasetIsCreatedThereAnew(@TempDir Path dir)
      throws Exception {
    try (BufferAllocator a = new RootAllocator()) {
      Path table = dir.resolve("t");
      write(a, table, 0, 100, WriteMode.CREATE);
      Configuration conf = new Configuration(false);
      assertThat(Dataset.openLatestCached(table.toString(), conf).countRows()).isEqualTo(100);
      try (var files = java.nio.file.Files.walk(table)) {
        files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
      }
      write(a, table, 0, 7, WriteMode.CREATE); // version 1 again, other rows
      assertThat(Dataset.openLatestCached(table.toString(), conf).countRows())
          .isEqualTo(100); // stale
      Dataset.evictCached(table.toString());
      assertThat(Dataset.openLatestCached(table.toString(), conf).countRows()).isEqualTo(7);
    }
  }

  @Test
  void segmentsAreCachedWithinTheByteBudgetAndCountedAsHitsAndMisses(@TempDir Path dir)
      throws Exception {
    Session session = Session.shared();
    long budget = session.maxBytes();
    try (BufferAllocator a = new RootAllocator()) {
      write(a, dir, 0, 2000, WriteMode.CREATE);
      try (Dataset ds = Dataset.open(dir.toString())) {
        VectorIndexes.create(
                ds,
                "vector",
                VectorIndexSpec.of(IndexType.IVF_FLAT, DistanceMetric.L2).withNumPartitions(4))
            .close();
      }
      Dataset ds = Dataset.openCached(dir.toString(), 2, null);
      VectorQuery q =
          VectorQuery.builder("vector")
              .vector(ClusteredData.queries(1, 8, 10, 3, 4)[0])
              .k(3)
              .nprobes(2)
              .build();
      ReadCounters.Reading cold = search(ds, q);
      ReadCounters.Reading warm = search(ds, q);
      assertThat(cold.indexCacheMisses())
          .isGreaterThanOrEqualTo(2); // at least the two probed partitions
      assertThat(cold.bytesRead()).isPositive();
      assertThat(warm.indexCacheMisses()).isZero();
      assertThat(warm.indexCacheHits()).isEqualTo(3); // the segment and its two partitions
      assertThat(warm.bytesRead()).isZero();
      assertThat(session.stats(CacheKind.VECTOR_INDEX).bytes())
          .isPositive()
          .isLessThanOrEqualTo(budget);

      session.setMaxBytes(0); // everything goes
      assertThat(session.stats(CacheKind.VECTOR_INDEX).bytes()).isZero();
      assertThat(search(ds, q).indexCacheMisses()).isGreaterThanOrEqualTo(1);
    } finally {
      session.setMaxBytes(budget);
    }
    assertThatThrownBy(() -> session.setMaxBytes(-1)).hasMessageContaining("negative");
  }

  /** What the search's units read (run on the calling thread so that its counters see them). */
  static ReadCounters.Reading search(Dataset ds, VectorQuery q) {
    var plan = DistributedSearch.plan(ds, q);
    ReadCounters.Reading before = ReadCounters.now();
    var results = plan.units().stream().map(u -> DistributedSearch.runUnit(ds, plan, u)).toList();
    ReadCounters.Reading units = before.since();
    try (VectorSearchResult r = DistributedSearch.finish(ds, plan, results, System.nanoTime())) {
      assertThat(r.rowCount()).isEqualTo(3);
    }
    return units;
  }
}
