package dev.lancelot.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.index.IndexSegment;
import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.index.scalar.BTreeBuildParams;
import dev.lancelot.engine.index.scalar.BTreeIndexBuilder;
import dev.lancelot.engine.index.scalar.ScalarIndexQuery;
import dev.lancelot.engine.index.vector.VectorIndexCache;
import dev.lancelot.engine.index.vector.VectorIndexSpec;
import dev.lancelot.engine.index.vector.VectorIndexes;
import dev.lancelot.engine.internal.file.FileStructureCache;
import dev.lancelot.engine.internal.index.vector.VectorSegmentSearcher;
import dev.lancelot.engine.io.ReadCounters;
import dev.lancelot.engine.query.VectorQuery;
import dev.lancelot.engine.testing.ClusteredData;
import dev.lancelot.engine.vector.DistanceMetric;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@link Session}: one byte budget over opened versions, data files' metadata and index segments,
 * its settings and statistics, concurrent lookups, and sessions kept apart.
 */
class SessionTest {
  /** Version 1: 2000 rows; version 2: an IVF_FLAT index on "vector"; version 3: a BTree on "id". */
  @TempDir static Path dir;

  static String location;
  static final Configuration CONF = new Configuration(false);
  static final VectorQuery QUERY =
      VectorQuery.builder("vector")
          .vector(ClusteredData.queries(1, 8, 10, 3, 4)[0])
          .k(3)
          .nprobes(2)
          .build();

  @BeforeAll
  static void writeDataset() throws Exception {
    location = dir.resolve("ds").toString();
    try (BufferAllocator a = new RootAllocator()) {
      DatasetCacheTest.write(a, dir.resolve("ds"), 0, 2000, WriteMode.CREATE);
    }
    try (Dataset ds = Dataset.open(location)) {
      VectorIndexes.create(
              ds,
              "vector",
              VectorIndexSpec.of(IndexType.IVF_FLAT, DistanceMetric.L2).withNumPartitions(4))
          .close();
    }
    try (Dataset ds = Dataset.open(location)) {
      BTreeIndexBuilder.build(ds, BTreeBuildParams.of("id")).close();
    }
  }

  static Session session(long maxBytes) {
    return new Session(SessionOptions.defaults().withMaxBytes(maxBytes));
  }

  /** Opens versions 1 and 2 (in that order), then searches version 2. */
  static void openTwoVersionsAndSearch(Session s) {
    s.openCached(location, 1, CONF);
    Dataset v2 = s.openCached(location, 2, CONF);
    DatasetCacheTest.search(v2, QUERY);
  }

  @Test
  void fillingOneKindEvictsTheLeastRecentlyUsedEntriesOfAnyKind() {
    Session measuring = session(Long.MAX_VALUE);
    openTwoVersionsAndSearch(measuring);
    long all = measuring.usedBytes();
    assertThat(measuring.stats(CacheKind.VECTOR_INDEX).bytes()).isPositive();
    assertThat(measuring.stats(CacheKind.FILE_METADATA).bytes()).isPositive(); // result columns
    assertThat(measuring.stats(CacheKind.DATASET_VERSIONS).entries()).isEqualTo(2);
    assertThat(all)
        .isEqualTo(
            measuring.stats().values().stream().mapToLong(CacheStats::bytes).sum()); // by kind

    // One byte short: the search's index segment and file metadata push out the version opened
    // first, the least recently used entry.
    Session tight = session(all - 1);
    Dataset v1 = tight.openCached(location, 1, CONF);
    Dataset v2 = tight.openCached(location, 2, CONF);
    DatasetCacheTest.search(v2, QUERY);
    assertThat(tight.usedBytes()).isLessThanOrEqualTo(all - 1);
    assertThat(tight.stats(CacheKind.DATASET_VERSIONS).evictions()).isEqualTo(1);
    assertThat(tight.stats(CacheKind.DATASET_VERSIONS).entries()).isEqualTo(1);
    assertThat(tight.stats(CacheKind.VECTOR_INDEX).entries()).isEqualTo(1);
    assertThat(tight.stats(CacheKind.VECTOR_INDEX).evictions()).isZero();
    assertThat(tight.openCached(location, 2, CONF)).isSameAs(v2);
    assertThat(tight.openCached(location, 1, CONF)).isNotSameAs(v1); // read again

    // A smaller budget evicts oldest first, whatever the kind; 0 keeps nothing.
    tight.setMaxBytes(0);
    assertThat(tight.usedBytes()).isZero();
    assertThat(tight.stats().values()).allMatch(st -> st.entries() == 0 && st.bytes() == 0);
    assertThat(tight.openCached(location, 2, CONF)).isNotSameAs(v2);
  }

  @Test
  void settingsAreOneBudgetReadFromTheSystemPropertyAndChangeable() {
    String property = SessionOptions.MAX_BYTES_PROPERTY;
    assertThat(property).isEqualTo("lancelot.cache.maxBytes");
    assertThat(VectorIndexCache.MAX_BYTES_PROPERTY).isEqualTo(property);
    String before = System.getProperty(property);
    try {
      System.setProperty(property, " 12345 ");
      assertThat(SessionOptions.defaults().maxBytes()).isEqualTo(12345);
      System.setProperty(property, "1g");
      assertThatThrownBy(SessionOptions::defaults)
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("lancelot.cache.maxBytes=\"1g\"")
          .hasMessageContaining("not a whole number of bytes");
      System.setProperty(property, "-5");
      assertThatThrownBy(SessionOptions::defaults)
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("must not be negative");
      System.clearProperty(property);
      assertThat(SessionOptions.defaults().maxBytes())
          .isEqualTo(
              Math.min(SessionOptions.DEFAULT_MAX_BYTES, Runtime.getRuntime().maxMemory() / 4));
    } finally {
      if (before == null) {
        System.clearProperty(property);
      } else {
        System.setProperty(property, before);
      }
    }

    SessionOptions options = SessionOptions.defaults().withMaxBytes(1000);
    assertThat(options).isEqualTo(SessionOptions.defaults().withMaxBytes(1000));
    assertThat(options).hasSameHashCodeAs(SessionOptions.defaults().withMaxBytes(1000));
    assertThat(options.toString()).isEqualTo("SessionOptions[maxBytes=1000]");
    assertThatThrownBy(() -> options.withMaxBytes(-1))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("-1 bytes");

    Session s = new Session(options);
    assertThat(s.options()).isEqualTo(options);
    s.setMaxBytes(2000);
    assertThat(s.maxBytes()).isEqualTo(2000);
    assertThat(s.options().maxBytes()).isEqualTo(2000);
    assertThatThrownBy(() -> s.setMaxBytes(-1)).isInstanceOf(InvalidInputException.class);
    assertThat(s.maxBytes()).isEqualTo(2000);
    assertThatThrownBy(() -> OpenOptions.defaults().withSession(null))
        .isInstanceOf(InvalidInputException.class);
    assertThat(OpenOptions.defaults().session()).isSameAs(Session.shared());
    assertThat(OpenOptions.defaults().withSession(s).session()).isSameAs(s);
  }

  @Test
  void theVectorIndexCacheBudgetIsTheSharedSessionsBudget() {
    Session shared = Session.shared();
    assertThat(Session.shared()).isSameAs(shared);
    long before = shared.maxBytes();
    try {
      assertThat(VectorIndexCache.maxBytes()).isEqualTo(before);
      VectorIndexCache.setMaxBytes(before + 1);
      assertThat(shared.maxBytes()).isEqualTo(before + 1);
      shared.setMaxBytes(before + 2);
      assertThat(VectorIndexCache.maxBytes()).isEqualTo(before + 2);
    } finally {
      shared.setMaxBytes(before);
    }
  }

  @Test
  void statisticsCountHitsMissesAndBytesPerKind() {
    Session s = session(Long.MAX_VALUE);
    Dataset v3 = s.openCached(location, 3, CONF);
    assertThat(s.openCached(location, 3, CONF)).isSameAs(v3);
    assertThat(s.openLatestCached(location, CONF)).isSameAs(v3);
    assertThat(s.stats(CacheKind.DATASET_VERSIONS)).isEqualTo(stats(s, 2, 1, 1));
    assertThat(s.stats(CacheKind.DATASET_CONTEXTS))
        .isEqualTo(new CacheStats(1, 1, 0, 1, DatasetCache.CONTEXT_BYTES));

    ReadCounters.Reading cold = DatasetCacheTest.search(v3, QUERY);
    ReadCounters.Reading warm = DatasetCacheTest.search(v3, QUERY);
    CacheStats vectors = s.stats(CacheKind.VECTOR_INDEX);
    assertThat(vectors.misses()).isEqualTo(1);
    assertThat(vectors.hits()).isEqualTo(1);
    assertThat(vectors.entries()).isEqualTo(1);
    // the session's segment lookups are the ones ReadCounters counts (with partitions besides)
    assertThat(cold.indexCacheMisses()).isGreaterThan(warm.indexCacheMisses());
    assertThat(warm.indexCacheMisses()).isZero();
    // the searcher is weighed again as it loads partitions: its model and two partitions
    IndexSegment segment = v3.indexes().segments("vector_idx").get(0);
    assertThat(vectors.bytes())
        .isEqualTo(VectorSegmentSearcher.cached(v3, segment).estimatedBytes())
        .isGreaterThan(4L * 4 * 8); // more than the 4 centroids of 8 floats

    CacheStats files = s.stats(CacheKind.FILE_METADATA);
    assertThat(files.misses()).isEqualTo(1); // one data file, parsed once
    assertThat(files.hits()).isPositive();

    ScalarIndexQuery.plan(v3, "id < 100").evaluate();
    ScalarIndexQuery.plan(v3, "id < 100").evaluate();
    CacheStats btree = s.stats(CacheKind.SCALAR_INDEX);
    assertThat(btree.misses()).isEqualTo(1);
    assertThat(btree.hits()).isEqualTo(1);
    assertThat(btree.bytes()).isPositive();

    assertThat(s.usedBytes())
        .isEqualTo(s.stats().values().stream().mapToLong(CacheStats::bytes).sum());
    s.clear(CacheKind.SCALAR_INDEX);
    assertThat(s.stats(CacheKind.SCALAR_INDEX).entries()).isZero();
    assertThat(s.stats(CacheKind.VECTOR_INDEX).entries()).isEqualTo(1);
    s.clear();
    assertThat(s.usedBytes()).isZero();
    assertThat(s.stats(CacheKind.VECTOR_INDEX).misses()).isEqualTo(1); // counts are kept
    assertThat(s.toString()).isEqualTo("Session[0 of " + Long.MAX_VALUE + " bytes]");
  }

  private static CacheStats stats(Session s, long hits, long misses, long entries) {
    CacheStats st = s.stats(CacheKind.DATASET_VERSIONS);
    return new CacheStats(hits, misses, 0, entries, st.bytes());
  }

  @Test
  void twoSessionsShareNoEntry() {
    Session a = session(Long.MAX_VALUE);
    Session b = session(Long.MAX_VALUE);
    CacheStats sharedBefore = Session.shared().stats(CacheKind.VECTOR_INDEX);
    assertThat(a.openCached(location, 2, CONF)).isNotSameAs(b.openCached(location, 2, CONF));

    try (Dataset inA = Dataset.open(location, OpenOptions.defaults().withSession(a));
        Dataset inB = Dataset.open(location, OpenOptions.defaults().withSession(b))) {
      assertThat(DatasetCacheTest.search(inA, QUERY).indexCacheMisses()).isPositive();
      assertThat(DatasetCacheTest.search(inA, QUERY).indexCacheMisses()).isZero();
      // b has its own copy of the segment: a's does not serve it
      assertThat(DatasetCacheTest.search(inB, QUERY).indexCacheMisses()).isPositive();
      IndexSegment segment = inA.indexes().segments("vector_idx").get(0);
      assertThat(VectorSegmentSearcher.cached(inA, segment))
          .isNotSameAs(VectorSegmentSearcher.cached(inB, segment));
    }
    assertThat(a.stats(CacheKind.VECTOR_INDEX).misses()).isEqualTo(1);
    assertThat(b.stats(CacheKind.VECTOR_INDEX).misses()).isEqualTo(1);
    assertThat(Session.shared().stats(CacheKind.VECTOR_INDEX)).isEqualTo(sharedBefore);

    a.evict(location);
    assertThat(a.stats(CacheKind.DATASET_VERSIONS).entries()).isZero();
    assertThat(a.stats(CacheKind.DATASET_CONTEXTS).entries()).isZero();
    assertThat(b.stats(CacheKind.DATASET_VERSIONS).entries()).isEqualTo(1);
  }

  @Test
  void theFileMetadataOfDatasetsThatAreGoneIsReleased() throws Exception {
    Session s = session(Long.MAX_VALUE);
    scanVersionOneAndDropIt(s);
    assertThat(s.stats(CacheKind.FILE_METADATA).entries()).isEqualTo(1);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (s.stats(CacheKind.FILE_METADATA).entries() > 0 && System.nanoTime() < deadline) {
      System.gc(); // the dataset's context, and with it the scope of its files, is unreachable
      Thread.sleep(10);
      FileStructureCache.releaseUnreachable(); // as the next lookup of any dataset does
    }
    assertThat(s.stats(CacheKind.FILE_METADATA)).isEqualTo(new CacheStats(0, 1, 0, 0, 0));
    assertThat(s.usedBytes()).isZero();
  }

  /** Counts rows of version 1 (no index: a scan of its data file) in a dataset then forgotten. */
  private static void scanVersionOneAndDropIt(Session s) {
    try (Dataset v1 =
        Dataset.open(location, OpenOptions.defaults().withVersion(1).withSession(s))) {
      assertThat(v1.countRows("id >= 0")).isEqualTo(2000);
    }
  }

  @Test
  void concurrentLookupsLoadEachEntryOnce() throws Exception {
    Session s = session(Long.MAX_VALUE);
    int threads = 8;
    List<Dataset> versions = runTogether(threads, () -> s.openCached(location, 2, CONF));
    assertThat(versions).allMatch(d -> d == versions.get(0));
    assertThat(s.stats(CacheKind.DATASET_VERSIONS).misses()).isEqualTo(1);
    assertThat(s.stats(CacheKind.DATASET_VERSIONS).hits()).isEqualTo(threads - 1);
    assertThat(s.stats(CacheKind.DATASET_CONTEXTS).misses()).isEqualTo(1);

    Dataset ds = versions.get(0);
    IndexSegment segment = ds.indexes().segments("vector_idx").get(0);
    List<ReadCounters.Reading> reads =
        runTogether(
            threads,
            () -> {
              ReadCounters.Reading before = ReadCounters.now();
              VectorSegmentSearcher.cached(ds, segment);
              return before.since();
            });
    assertThat(s.stats(CacheKind.VECTOR_INDEX).misses()).isEqualTo(1);
    assertThat(s.stats(CacheKind.VECTOR_INDEX).hits()).isEqualTo(threads - 1);
    // counted per thread as before: one miss in all, a hit on every other thread
    assertThat(reads.stream().mapToLong(ReadCounters.Reading::indexCacheMisses).sum()).isEqualTo(1);
    assertThat(reads.stream().mapToLong(ReadCounters.Reading::indexCacheHits).sum())
        .isEqualTo(threads - 1);
  }

  /** Runs {@code task} on {@code threads} threads released at once; returns their results. */
  private static <T> List<T> runTogether(int threads, Callable<T> task) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      CountDownLatch ready = new CountDownLatch(threads);
      CountDownLatch go = new CountDownLatch(1);
      List<Future<T>> futures = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        futures.add(
            pool.submit(
                () -> {
                  ready.countDown();
                  go.await();
                  return task.call();
                }));
      }
      assertThat(ready.await(10, TimeUnit.SECONDS)).isTrue();
      go.countDown();
      List<T> out = new ArrayList<>();
      for (Future<T> f : futures) {
        out.add(f.get(60, TimeUnit.SECONDS));
      }
      return out;
    } finally {
      pool.shutdownNow();
    }
  }
}
