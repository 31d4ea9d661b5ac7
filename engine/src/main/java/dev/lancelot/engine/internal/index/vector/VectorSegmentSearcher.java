package dev.lancelot.engine.internal.index.vector;

import dev.lancelot.engine.CacheKind;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.LancelotException;
import dev.lancelot.engine.index.IndexSegment;
import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.internal.DatasetInternals;
import dev.lancelot.engine.internal.index.IndexInternals;
import dev.lancelot.engine.internal.index.vector.flat.FlatSearch;
import dev.lancelot.engine.internal.index.vector.hnsw.HnswSearcher;
import dev.lancelot.engine.internal.index.vector.ivf.IvfModel;
import dev.lancelot.engine.internal.index.vector.ivf.PartitionRanking;
import dev.lancelot.engine.internal.index.vector.pq.PqCodebook;
import dev.lancelot.engine.internal.index.vector.store.IndexSegmentReader;
import dev.lancelot.engine.internal.index.vector.store.PartitionData;
import dev.lancelot.engine.internal.table.DatasetPaths;
import dev.lancelot.engine.internal.util.MemoryCache;
import dev.lancelot.engine.io.FileIO;
import dev.lancelot.engine.io.ReadCounters;
import dev.lancelot.engine.vector.DistanceMetric;
import dev.lancelot.engine.vector.VectorException;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.LongPredicate;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/**
 * Searches one vector index segment (one {@code _indices/<uuid>} of Lance 7's layout, built by
 * Lance or by lancelot): the query layer ranks partitions with {@link #rankPartitions}, picks how
 * many to probe (SPEC Q4), and asks {@link #search} for the best {@code k} candidates among rows it
 * accepts, by approximate distance as Lance computes it for the index type (flat: the metric;
 * SQ/PQ: distances on codes; cosine indexes compare unit vectors, PQ and SQ with l2). Ties are
 * broken by row address (SPEC Q14).
 *
 * <pre>{@code
 * IndexSegment seg = dataset.indexes().segments("vector_idx").get(0);
 * VectorSegmentSearcher s = VectorSegmentSearcher.cached(dataset, seg);
 * PartitionRanking r = s.rankPartitions(q);
 * int[] probe = Arrays.copyOf(r.partitions(), 4);
 * SearchResult hits = s.search(q, probe, 20, 30, LiveRows.of(dataset), new SearchStats());
 * }</pre>
 *
 * <p>Thread-safety: a searcher is immutable apart from its partition cache (a concurrent map) and
 * may be shared by any number of threads; each call uses its own scratch. It holds no open files
 * (partitions are read on first use, then kept on the heap), so it needs no closing; drop it to
 * free the cached partitions. Segment files never change once written, so a searcher stays valid
 * for every dataset version that lists the segment.
 */
public final class VectorSegmentSearcher {
  /** Transient Arrow memory for partition reads; every read frees its buffers before returning. */
  private static final BufferAllocator READ_ALLOCATOR = new RootAllocator();

  /** A segment cached in a session: dataset location and segment id. */
  private record CacheKey(String location, UUID segment) {}

  /** Searchers in a session's cache, weighed by {@link #estimatedBytes()}. */
  private static final MemoryCache.Kind<CacheKey, VectorSegmentSearcher> SEGMENTS =
      new MemoryCache.Kind<>(CacheKind.VECTOR_INDEX, VectorSegmentSearcher::estimatedBytes);

  private final IndexSegment segment;
  private final IndexSegmentReader reader;
  private final IvfModel ivf;
  private final boolean residual;
  private final ConcurrentHashMap<Integer, PartitionData> partitions = new ConcurrentHashMap<>();

  /** Told when a partition was loaded (the cache holding this searcher weighs it again). */
  private final Consumer<VectorSegmentSearcher> grown;

  private VectorSegmentSearcher(
      IndexSegment segment, IndexSegmentReader reader, Consumer<VectorSegmentSearcher> grown) {
    this.segment = segment;
    this.reader = reader;
    this.ivf = reader.ivf();
    this.residual = reader.codebook() != null && PqCodebook.usesResidual(reader.metric());
    this.grown = grown;
  }

  /** Opens a segment of {@code dataset}: reads both files' metadata (not the partitions). */
  public static VectorSegmentSearcher open(Dataset dataset, IndexSegment segment) {
    return open(DatasetInternals.context(dataset).io(), dataset.location(), segment);
  }

  /**
   * Opens a segment of the dataset at {@code datasetLocation} (fully qualified) through {@code io}.
   */
  public static VectorSegmentSearcher open(
      FileIO io, String datasetLocation, IndexSegment segment) {
    return open(io, datasetLocation, segment, s -> {});
  }

  private static VectorSegmentSearcher open(
      FileIO io,
      String datasetLocation,
      IndexSegment segment,
      Consumer<VectorSegmentSearcher> grown) {
    if (!segment.type().isVector()) {
      throw new LancelotException(
          "Cannot search index "
              + segment.name()
              + " ("
              + segment.uuid()
              + "): it is a "
              + segment.type()
              + " index, not a vector index. Pick a vector index of the column.");
    }
    IndexSegmentReader reader;
    try {
      reader =
          IndexSegmentReader.open(
              io, IndexInternals.directory(segment, DatasetPaths.of(datasetLocation).root()));
    } catch (LancelotException e) {
      throw segment.inContext(e);
    }
    if (segment.metric().isPresent() && segment.metric().get() != reader.metric()) {
      throw segment.inContext(
          new dev.lancelot.engine.internal.format.CorruptFileException(
              reader.indexLocation(),
              "its metric "
                  + reader.metric().lanceName()
                  + " differs from the manifest's "
                  + segment.metric().get().lanceName()));
    }
    return new VectorSegmentSearcher(segment, reader, grown);
  }

  /**
   * A shared searcher for the segment, from the cache of the session {@code dataset} was opened in,
   * keyed by dataset location and segment uuid (segment files never change, so a key never goes
   * stale, whatever the version), so repeated queries reuse the segment's model and loaded
   * partitions. The searcher is weighed by {@link #estimatedBytes()}, again each time it loads a
   * partition, and leaves the cache when the session needs room (least recently used first, with
   * every other kind of entry). Lookups count as index cache hits or misses in {@link
   * ReadCounters}.
   */
  public static VectorSegmentSearcher cached(Dataset dataset, IndexSegment segment) {
    MemoryCache cache = DatasetInternals.context(dataset).cache();
    boolean[] loaded = {false};
    VectorSegmentSearcher s =
        cache.get(
            SEGMENTS,
            new CacheKey(dataset.location(), segment.uuid()),
            key -> {
              loaded[0] = true;
              ReadCounters.indexCacheMiss();
              return open(
                  DatasetInternals.context(dataset).io(),
                  dataset.location(),
                  segment,
                  searcher -> cache.resized(SEGMENTS, key, searcher));
            });
    if (!loaded[0]) {
      ReadCounters.indexCacheHit();
    }
    return s;
  }

  /** Heap held by this searcher: the IVF model and the partitions loaded so far (estimate). */
  public long estimatedBytes() {
    long bytes = 4L * ivf.numPartitions() * ivf.dimension();
    for (PartitionData d : partitions.values()) {
      bytes += d.estimatedBytes();
    }
    return bytes;
  }

  public IndexSegment segment() {
    return segment;
  }

  public IndexType type() {
    return reader.type();
  }

  /** The index metric, fixed at build time (SPEC Q3). */
  public DistanceMetric metric() {
    return reader.metric();
  }

  public int dimension() {
    return reader.dimension();
  }

  public int numPartitions() {
    return reader.numPartitions();
  }

  /** Vectors stored in partition {@code p} (deleted rows included until the index is rebuilt). */
  public int partitionSize(int p) {
    return reader.partitionSize(p);
  }

  /** Vectors this segment holds. */
  public long numRows() {
    return reader.numRows();
  }

  /** The file-level reader (centroids, quantizer), for inspection. */
  public IndexSegmentReader reader() {
    return reader;
  }

  /**
   * All partitions, nearest centroid first (ties by partition id), with the query-centroid
   * distances; the query is normalized first for cosine indexes, as Lance does.
   */
  public PartitionRanking rankPartitions(float[] query) {
    checkQuery(query);
    return ivf.rankPartitions(query, ivf.numPartitions());
  }

  /**
   * The best {@code k} rows among {@code partitions} accepted by {@code accept} (row addresses;
   * {@code null} accepts all), best first by approximate distance then row address.
   *
   * @param k candidate budget ({@code k × refine_factor} of the query)
   * @param ef HNSW search width, at least {@code k} (ignored by IVF_FLAT/PQ/SQ)
   * @param stats counters to add to (partitions probed, rows visited, distances computed), or null
   */
  public SearchResult search(
      float[] query, int[] partitions, int k, int ef, LongPredicate accept, SearchStats stats) {
    TopKCollector collector = new TopKCollector(checkK(k));
    search(query, partitions, ef, accept, collector, stats);
    return collector.result();
  }

  /**
   * As {@link #search(float[], int[], int, int, LongPredicate, SearchStats)}, offering candidates
   * to {@code collector} (its {@code k} is the budget), so several segments can share one.
   */
  public void search(
      float[] query,
      int[] partitions,
      int ef,
      LongPredicate accept,
      TopKCollector collector,
      SearchStats stats) {
    search(query, partitions, ef, accept, collector, stats, false);
  }

  /**
   * As above; {@code prefiltered} says that {@code accept} is a query's prefilter (not only deleted
   * rows). Then, as Lance does, an HNSW partition where the filter admits fewer than {@value
   * #FLAT_FRACTION_PERCENT}% of the nodes is scanned (admitted nodes only, on the index's storage)
   * instead of walked: a graph walk under so selective a mask visits mostly rejected nodes.
   */
  public void search(
      float[] query,
      int[] partitions,
      int ef,
      LongPredicate accept,
      TopKCollector collector,
      SearchStats stats,
      boolean prefiltered) {
    checkQuery(query);
    int k = collector.k();
    checkEf(k, ef);
    float[] q = ivf.prepareQuery(query);
    float[] scratch = residual ? new float[q.length] : null;
    HnswSearcher hnsw = type().isHnsw() ? new HnswSearcher() : null;
    for (int p : partitions) {
      PartitionData data = partition(p);
      AcceptMask mask = mask(data, accept);
      boolean flat =
          hnsw != null
              && prefiltered
              && mask != null
              && (long) mask.cardinality() * 100 < (long) data.size() * FLAT_FRACTION_PERCENT;
      searchPartition(p, data, q, scratch, k, ef, mask, flat ? null : hnsw, flat, collector, stats);
    }
  }

  /** Below this share of admitted nodes an HNSW partition is scanned rather than walked. */
  static final int FLAT_FRACTION_PERCENT = 10;

  /** Partition {@code p}, read on first use and cached. */
  public PartitionData partition(int p) {
    if (p < 0 || p >= numPartitions()) {
      throw new IllegalArgumentException(
          "Cannot probe partition "
              + p
              + " of index "
              + segment.name()
              + ": it has "
              + numPartitions()
              + " partitions (0.."
              + (numPartitions() - 1)
              + ")");
    }
    PartitionData data = partitions.get(p);
    if (data != null) {
      ReadCounters.indexCacheHit();
      return data;
    }
    ReadCounters.indexCacheMiss();
    data = partitions.computeIfAbsent(p, x -> reader.readPartition(x, READ_ALLOCATOR));
    grown.accept(this);
    return data;
  }

  /**
   * Searches one partition: an HNSW walk when {@code hnsw} is given, else a scan — of the nodes
   * {@code mask} admits only when {@code admittedOnly}, else of every node.
   */
  private void searchPartition(
      int p,
      PartitionData data,
      float[] q,
      float[] scratch,
      int k,
      int ef,
      AcceptMask mask,
      HnswSearcher hnsw,
      boolean admittedOnly,
      TopKCollector collector,
      SearchStats stats) {
    if (stats != null) {
      stats.addPartitionsProbed(1);
    }
    if (data.size() == 0 || (mask != null && !mask.atLeast(1))) {
      return;
    }
    float[] partQuery = q;
    if (residual) {
      ivf.residual(q, 0, p, scratch, 0);
      partQuery = scratch;
    }
    QueryScorer scorer = data.storage().scorer(partQuery);
    if (hnsw != null) {
      hnsw.search(data.graph(), scorer, k, ef, mask, data.rowIds(), collector);
      if (stats != null) {
        stats.add(hnsw.stats());
      }
    } else if (admittedOnly) {
      FlatSearch.searchAccepted(scorer, data.size(), mask, data.rowIds(), collector, stats);
    } else {
      FlatSearch.search(scorer, data.size(), mask, data.rowIds(), collector, stats);
    }
  }

  /**
   * The partition's nodes {@code accept} admits, tested on demand: a graph walk or a scan tests
   * only the rows that could make its top k, not every row of the partition.
   */
  private static AcceptMask mask(PartitionData data, LongPredicate accept) {
    if (accept == null) {
      return null;
    }
    if (accept instanceof SortedRowFilter rows
        && data.rowIdsAscending()
        && rows.cardinality() <= data.size()) {
      return admittedNodes(data.rowIds(), rows.rowsAscending());
    }
    return AcceptMask.lazy(data.rowIds(), accept);
  }

  /**
   * The nodes whose row address is among {@code admitted}, both ascending (unsigned): each admitted
   * row is looked up by binary search in the part of {@code rowIds} after the previous one, so a
   * selective filter costs a few steps per admitted row instead of a test per node.
   */
  static AcceptMask admittedNodes(long[] rowIds, long[] admitted) {
    AcceptMask mask = AcceptMask.none(rowIds.length);
    int from = 0;
    for (long row : admitted) {
      int lo = from;
      int hi = rowIds.length;
      while (lo < hi) {
        int mid = (lo + hi) >>> 1;
        if (Long.compareUnsigned(rowIds[mid], row) < 0) {
          lo = mid + 1;
        } else {
          hi = mid;
        }
      }
      if (lo == rowIds.length) {
        break;
      }
      if (rowIds[lo] == row) {
        mask.set(lo);
        from = lo + 1;
      } else {
        from = lo;
      }
    }
    return mask;
  }

  private void checkQuery(float[] query) {
    if (query == null || query.length != dimension()) {
      throw new VectorException(
          "Cannot search index "
              + segment.name()
              + ": the query vector has "
              + (query == null ? "no values" : query.length + " dimensions")
              + " but the index has "
              + dimension()
              + ". Pass a query of the column's dimension.");
    }
  }

  private static int checkK(int k) {
    if (k < 1) {
      throw new VectorException(
          "Cannot search with k=" + k + ": k must be at least 1. Ask for 1 or more results.");
    }
    return k;
  }

  private void checkEf(int k, int ef) {
    if (type().isHnsw() && ef < k) {
      throw new VectorException(
          "Cannot search HNSW index "
              + segment.name()
              + " with ef="
              + ef
              + ": ef must be >= k × refine_factor ("
              + k
              + "). Raise ef to at least "
              + k
              + " or leave it unset (default k + k/2).");
    }
  }
}
