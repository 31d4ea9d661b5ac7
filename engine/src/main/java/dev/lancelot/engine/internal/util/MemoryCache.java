package dev.lancelot.engine.internal.util;

import dev.lancelot.engine.CacheKind;
import dev.lancelot.engine.CacheStats;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.ToLongFunction;

/**
 * The storage behind a {@code Session}: values of several kinds (opened versions, file metadata,
 * index segments) in one least-recently-used order under one byte budget, so that filling the cache
 * with one kind evicts the least recently used entries of any kind. Each layer declares the kinds
 * it caches ({@link Kind}: the statistics they count in, and how to weigh a value) and reaches the
 * cache through the {@code DatasetContext} of the dataset it works on; nothing here knows the
 * layers' types.
 *
 * <p>Weights are the values' own estimates of the heap they hold. A value that grows after it was
 * cached (a vector segment loading partitions) reports it with {@link #resized}, which may evict
 * others. Entries are dropped, never closed: a value handed out stays usable by whoever holds it.
 *
 * <p>Loads are single-flight: concurrent lookups of a missing entry run its loader once, on the
 * first caller's thread; the others wait for that load and get its value (or its exception). A load
 * that fails caches nothing. Loaders run outside the cache's lock and may look up other entries,
 * but not the entry they are loading.
 *
 * <p>Thread-safe.
 */
public final class MemoryCache {
  /**
   * One kind of cached value. Kinds are compared by identity: declare each once, as a constant. The
   * weigher must be cheap and must not take locks that a thread holding this cache's lock may wait
   * for (it is called outside the cache's lock).
   *
   * @param <K> the type of the keys (only checked at compile time, where the kind is used)
   * @param <V> the type of the values
   */
  @SuppressWarnings("UnusedTypeParameter") // K: the keys' type, checked where a kind is used
  public static final class Kind<K, V> {
    private final CacheKind stats;
    private final ToLongFunction<? super V> weigher;

    public Kind(CacheKind stats, ToLongFunction<? super V> weigher) {
      this.stats = Objects.requireNonNull(stats);
      this.weigher = Objects.requireNonNull(weigher);
    }

    /** The statistics this kind counts in. */
    public CacheKind stats() {
      return stats;
    }

    /** A value cached under this kind, as the type it holds. */
    @SuppressWarnings("unchecked")
    V cast(Object value) {
      return (V) value;
    }

    long weigh(Object value) {
      return Math.max(0, weigher.applyAsLong(cast(value)));
    }

    @Override
    public String toString() {
      return "Kind[" + stats + "]";
    }
  }

  private record Slot(Kind<?, ?> kind, Object key) {}

  private static final class Entry {
    final Object value;
    long weight;

    Entry(Object value, long weight) {
      this.value = value;
      this.weight = weight;
    }
  }

  /** A load in progress: its thread (a load may not wait for itself) and its outcome. */
  private static final class Loading {
    final Thread thread = Thread.currentThread();
    final CompletableFuture<Object> outcome = new CompletableFuture<>();
  }

  private static final class Counters {
    long hits;
    long misses;
    long evictions;
    long entries;
    long bytes;
  }

  /** Least recently used first. Guarded by {@code this}, as is everything below. */
  private final LinkedHashMap<Slot, Entry> entries = new LinkedHashMap<>(64, 0.75f, true);

  private final Map<Slot, Loading> loading = new HashMap<>();
  private final EnumMap<CacheKind, Counters> counters = new EnumMap<>(CacheKind.class);
  private long maxBytes;
  private long usedBytes;

  public MemoryCache(long maxBytes) {
    this.maxBytes = checkBudget(maxBytes);
    for (CacheKind k : CacheKind.values()) {
      counters.put(k, new Counters());
    }
  }

  private static long checkBudget(long bytes) {
    if (bytes < 0) {
      throw new IllegalArgumentException("A cache budget must not be negative: " + bytes);
    }
    return bytes;
  }

  /**
   * The value of {@code key}, loaded with {@code load} (and cached) when absent. The value is
   * returned even when it does not fit in the budget (it is then not kept).
   */
  public <K, V> V get(Kind<K, V> kind, K key, Function<? super K, ? extends V> load) {
    Slot slot = new Slot(kind, Objects.requireNonNull(key));
    Loading pending;
    boolean mine = false;
    synchronized (this) {
      Counters c = counters.get(kind.stats);
      Entry e = entries.get(slot);
      if (e != null) {
        c.hits++;
        return kind.cast(e.value);
      }
      pending = loading.get(slot);
      if (pending == null) {
        pending = new Loading();
        loading.put(slot, pending);
        c.misses++;
        mine = true;
      } else if (pending.thread == Thread.currentThread()) {
        // keys are not printed: some hold settings that may carry credentials
        throw new IllegalStateException("A cache load looked up its own entry, of " + kind);
      } else {
        c.hits++;
      }
    }
    return mine ? load(slot, pending, key, load) : await(kind, pending);
  }

  private <K, V> V load(Slot slot, Loading pending, K key, Function<? super K, ? extends V> load) {
    V value;
    long weight;
    try {
      value = Objects.requireNonNull(load.apply(key), "a cache loader returned null");
      weight = slot.kind.weigh(value);
    } catch (RuntimeException | Error e) {
      synchronized (this) {
        loading.remove(slot, pending);
      }
      pending.outcome.completeExceptionally(e);
      throw e;
    }
    synchronized (this) {
      // not stored when the entry was invalidated (or the cache cleared) while it loaded
      if (loading.remove(slot, pending)) {
        entries.put(slot, new Entry(value, weight));
        Counters c = counters.get(slot.kind.stats);
        c.entries++;
        c.bytes += weight;
        usedBytes += weight;
        evictOverBudget();
      }
    }
    pending.outcome.complete(value);
    return value;
  }

  private static <V> V await(Kind<?, V> kind, Loading pending) {
    try {
      return kind.cast(pending.outcome.join());
    } catch (CompletionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof RuntimeException r) {
        throw r;
      }
      if (cause instanceof Error err) {
        throw err;
      }
      throw new IllegalStateException(cause);
    }
  }

  /**
   * Weighs {@code value} again after it grew or shrank, if it is still the cached value of {@code
   * key}, and evicts least recently used entries if the cache is now over its budget (possibly this
   * one).
   */
  public <K, V> void resized(Kind<K, V> kind, K key, V value) {
    long weight = kind.weigh(value);
    synchronized (this) {
      Entry e = entries.get(new Slot(kind, key));
      if (e == null || e.value != value) {
        return;
      }
      long delta = weight - e.weight;
      e.weight = weight;
      counters.get(kind.stats).bytes += delta;
      usedBytes += delta;
      evictOverBudget();
    }
  }

  /** Drops the entries of {@code kind} whose key {@code which} accepts, and their loads. */
  public synchronized <K> void invalidateIf(Kind<K, ?> kind, Predicate<? super K> which) {
    @SuppressWarnings("unchecked")
    Predicate<Object> test = k -> which.test((K) k);
    Iterator<Map.Entry<Slot, Entry>> it = entries.entrySet().iterator();
    while (it.hasNext()) {
      Map.Entry<Slot, Entry> e = it.next();
      if (e.getKey().kind == kind && test.test(e.getKey().key)) {
        it.remove();
        forget(kind.stats, e.getValue().weight);
      }
    }
    loading.keySet().removeIf(s -> s.kind == kind && test.test(s.key));
  }

  /** Entries of {@code kind} held now whose key {@code which} accepts. */
  public synchronized <K> int count(Kind<K, ?> kind, Predicate<? super K> which) {
    int n = 0;
    for (Slot s : entries.keySet()) {
      @SuppressWarnings("unchecked")
      K k = (K) s.key;
      if (s.kind == kind && which.test(k)) {
        n++;
      }
    }
    return n;
  }

  /** Drops every entry (statistics of past lookups are kept). */
  public synchronized void clear() {
    entries.clear();
    loading.clear();
    usedBytes = 0;
    for (Counters c : counters.values()) {
      c.entries = 0;
      c.bytes = 0;
    }
  }

  /** Drops every entry counted in {@code stats}. */
  public synchronized void clear(CacheKind stats) {
    Iterator<Map.Entry<Slot, Entry>> it = entries.entrySet().iterator();
    while (it.hasNext()) {
      Map.Entry<Slot, Entry> e = it.next();
      if (e.getKey().kind.stats == stats) {
        it.remove();
        forget(stats, e.getValue().weight);
      }
    }
    loading.keySet().removeIf(s -> s.kind.stats == stats);
  }

  public synchronized long maxBytes() {
    return maxBytes;
  }

  /** Changes the budget, evicting least recently used entries until the cache fits in it. */
  public synchronized void setMaxBytes(long bytes) {
    maxBytes = checkBudget(bytes);
    evictOverBudget();
  }

  /** Estimated bytes of every entry held now. */
  public synchronized long usedBytes() {
    return usedBytes;
  }

  public synchronized CacheStats stats(CacheKind kind) {
    Counters c = counters.get(kind);
    return new CacheStats(c.hits, c.misses, c.evictions, c.entries, c.bytes);
  }

  private void evictOverBudget() {
    Iterator<Map.Entry<Slot, Entry>> it = entries.entrySet().iterator();
    while (usedBytes > maxBytes && it.hasNext()) {
      Map.Entry<Slot, Entry> e = it.next();
      it.remove();
      CacheKind stats = e.getKey().kind.stats;
      forget(stats, e.getValue().weight);
      counters.get(stats).evictions++;
    }
  }

  private void forget(CacheKind stats, long weight) {
    Counters c = counters.get(stats);
    c.entries--;
    c.bytes -= weight;
    usedBytes -= weight;
  }

  @Override
  public synchronized String toString() {
    return "MemoryCache["
        + entries.size()
        + " entries, "
        + usedBytes
        + " of "
        + maxBytes
        + " bytes]";
  }
}
