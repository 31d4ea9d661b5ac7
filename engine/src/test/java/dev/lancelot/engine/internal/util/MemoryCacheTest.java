package dev.lancelot.engine.internal.util;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.CacheKind;
import dev.lancelot.engine.CacheStats;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** One least-recently-used order and one byte budget over every kind of entry. */
class MemoryCacheTest {
  /** A value whose size can change after it was cached, as a vector segment's does. */
  static final class Blob {
    final AtomicLong bytes;

    Blob(long bytes) {
      this.bytes = new AtomicLong(bytes);
    }
  }

  static final MemoryCache.Kind<String, Blob> VECTORS =
      new MemoryCache.Kind<>(CacheKind.VECTOR_INDEX, b -> b.bytes.get());
  static final MemoryCache.Kind<String, Blob> VERSIONS =
      new MemoryCache.Kind<>(CacheKind.DATASET_VERSIONS, b -> b.bytes.get());

  @Test
  void fillingOneKindEvictsTheLeastRecentlyUsedEntriesOfAnyKind() {
    MemoryCache cache = new MemoryCache(100);
    Blob v1 = cache.get(VERSIONS, "v1", k -> new Blob(30));
    cache.get(VERSIONS, "v2", k -> new Blob(30));
    cache.get(VECTORS, "s1", k -> new Blob(30));
    assertThat(cache.get(VERSIONS, "v1", k -> new Blob(30))).isSameAs(v1); // v2 is now the oldest
    cache.get(VECTORS, "s2", k -> new Blob(30));

    assertThat(cache.usedBytes()).isEqualTo(90);
    assertThat(cache.stats(CacheKind.DATASET_VERSIONS)).isEqualTo(new CacheStats(1, 2, 1, 1, 30));
    assertThat(cache.stats(CacheKind.VECTOR_INDEX)).isEqualTo(new CacheStats(0, 2, 0, 2, 60));
    assertThat(cache.count(VERSIONS, k -> true)).isEqualTo(1);
    assertThat(cache.get(VERSIONS, "v1", k -> new Blob(30))).isSameAs(v1);
    AtomicInteger loads = new AtomicInteger();
    cache.get(
        VERSIONS,
        "v2",
        k -> {
          loads.incrementAndGet();
          return new Blob(30);
        });
    assertThat(loads).hasValue(1); // v2 had left: loaded again, and s1 (now the oldest) goes
    assertThat(cache.stats(CacheKind.VECTOR_INDEX).evictions()).isEqualTo(1);
    assertThat(cache.usedBytes()).isEqualTo(90);
  }

  @Test
  void kindsWithTheSameKeysAreApart() {
    MemoryCache cache = new MemoryCache(1000);
    Blob a = cache.get(VERSIONS, "k", k -> new Blob(1));
    Blob b = cache.get(VECTORS, "k", k -> new Blob(2));
    assertThat(b).isNotSameAs(a);
    assertThat(cache.get(VERSIONS, "k", k -> new Blob(3))).isSameAs(a);
  }

  @Test
  void aValueThatGrowsIsWeighedAgainAndMayEvictOthers() {
    MemoryCache cache = new MemoryCache(100);
    cache.get(VERSIONS, "v", k -> new Blob(40));
    Blob s = cache.get(VECTORS, "s", k -> new Blob(40));
    s.bytes.set(70);
    cache.resized(VECTORS, "s", s);
    assertThat(cache.usedBytes()).isEqualTo(70);
    assertThat(cache.count(VERSIONS, k -> true)).isZero();
    assertThat(cache.stats(CacheKind.VECTOR_INDEX).bytes()).isEqualTo(70);

    // a value no longer cached (or another value under the key) is not weighed in
    Blob stray = new Blob(500);
    cache.resized(VECTORS, "s", stray);
    cache.resized(VECTORS, "absent", stray);
    assertThat(cache.usedBytes()).isEqualTo(70);

    s.bytes.set(150); // larger than the whole budget: it goes too
    cache.resized(VECTORS, "s", s);
    assertThat(cache.usedBytes()).isZero();
    assertThat(cache.stats(CacheKind.VECTOR_INDEX)).isEqualTo(new CacheStats(0, 1, 1, 0, 0));
  }

  @Test
  void aZeroBudgetKeepsNothingButStillAnswers() {
    MemoryCache cache = new MemoryCache(0);
    Blob first = cache.get(VECTORS, "s", k -> new Blob(10));
    assertThat(first).isNotNull();
    assertThat(cache.get(VECTORS, "s", k -> new Blob(10))).isNotSameAs(first);
    assertThat(cache.stats(CacheKind.VECTOR_INDEX)).isEqualTo(new CacheStats(0, 2, 2, 0, 0));
  }

  @Test
  void loweringTheBudgetEvictsOldestFirst() {
    MemoryCache cache = new MemoryCache(1000);
    cache.get(VERSIONS, "old", k -> new Blob(100));
    cache.get(VECTORS, "new", k -> new Blob(100));
    cache.setMaxBytes(150);
    assertThat(cache.maxBytes()).isEqualTo(150);
    assertThat(cache.count(VERSIONS, k -> true)).isZero();
    assertThat(cache.count(VECTORS, k -> true)).isEqualTo(1);
    assertThatThrownBy(() -> cache.setMaxBytes(-1)).hasMessageContaining("negative");
    assertThatThrownBy(() -> new MemoryCache(-1)).hasMessageContaining("negative");
  }

  @Test
  void concurrentLookupsOfAMissingEntryLoadItOnce() throws Exception {
    MemoryCache cache = new MemoryCache(1000);
    int threads = 8;
    CountDownLatch loading = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger loads = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<Blob>> results = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        results.add(
            pool.submit(
                () ->
                    cache.get(
                        VECTORS,
                        "s",
                        k -> {
                          loads.incrementAndGet();
                          loading.countDown();
                          await(release);
                          return new Blob(10);
                        })));
      }
      assertThat(loading.await(10, TimeUnit.SECONDS)).isTrue();
      // the other threads wait for that load, or find its value if they come after it
      release.countDown();
      Blob first = results.get(0).get(10, TimeUnit.SECONDS);
      for (Future<Blob> f : results) {
        assertThat(f.get(10, TimeUnit.SECONDS)).isSameAs(first);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(loads).hasValue(1);
    CacheStats stats = cache.stats(CacheKind.VECTOR_INDEX);
    assertThat(stats.misses()).isEqualTo(1);
    assertThat(stats.hits()).isEqualTo(threads - 1);
  }

  @Test
  void aFailedLoadIsSeenByItsWaitersAndCachesNothing() throws Exception {
    MemoryCache cache = new MemoryCache(1000);
    CountDownLatch loading = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    IllegalStateException failure = new IllegalStateException("unreadable segment");
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      Future<Blob> loader =
          pool.submit(
              () ->
                  cache.get(
                      VECTORS,
                      "s",
                      k -> {
                        loading.countDown();
                        await(release);
                        throw failure;
                      }));
      assertThat(loading.await(10, TimeUnit.SECONDS)).isTrue();
      Thread waiter =
          new Thread(
              () ->
                  assertThatThrownBy(() -> cache.get(VECTORS, "s", k -> new Blob(1)))
                      .isSameAs(failure));
      AtomicLong waiterFailed = new AtomicLong();
      waiter.setUncaughtExceptionHandler((t, e) -> waiterFailed.incrementAndGet());
      waiter.start();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (waiter.getState() != Thread.State.WAITING && System.nanoTime() < deadline) {
        Thread.sleep(1); // until the waiter waits for the load
      }
      assertThat(waiter.getState()).isEqualTo(Thread.State.WAITING);
      release.countDown();
      assertThatThrownBy(() -> loader.get(10, TimeUnit.SECONDS)).hasCause(failure);
      waiter.join(10_000);
      assertThat(waiterFailed).hasValue(0);
    } finally {
      pool.shutdownNow();
    }
    assertThat(cache.count(VECTORS, k -> true)).isZero();
    Blob later = cache.get(VECTORS, "s", k -> new Blob(5));
    assertThat(cache.get(VECTORS, "s", k -> new Blob(5))).isSameAs(later);
  }

  @Test
  void anEntryInvalidatedWhileItLoadsIsReturnedButNotKept() {
    MemoryCache cache = new MemoryCache(1000);
    Blob loaded =
        cache.get(
            VERSIONS,
            "v",
            k -> {
              cache.invalidateIf(VERSIONS, key -> key.equals("v"));
              return new Blob(10);
            });
    assertThat(loaded).isNotNull();
    assertThat(cache.count(VERSIONS, k -> true)).isZero();
    assertThat(cache.usedBytes()).isZero();
  }

  @Test
  void aLoadMayLookUpOtherEntriesButNotItsOwn() {
    MemoryCache cache = new MemoryCache(1000);
    Blob outer =
        cache.get(
            VERSIONS,
            "v",
            k -> {
              Blob inner = cache.get(VECTORS, "s", x -> new Blob(3));
              return new Blob(inner.bytes.get() + 1);
            });
    assertThat(outer.bytes.get()).isEqualTo(4);
    assertThat(cache.usedBytes()).isEqualTo(7);
    assertThatThrownBy(
            () -> cache.get(VERSIONS, "w", k -> cache.get(VERSIONS, "w", x -> new Blob(1))))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("its own entry");
    assertThat(cache.count(VERSIONS, k -> k.equals("w"))).isZero();
  }

  @Test
  void clearingDropsEntriesAndKeepsCounts() {
    MemoryCache cache = new MemoryCache(1000);
    cache.get(VERSIONS, "v", k -> new Blob(10));
    cache.get(VECTORS, "s", k -> new Blob(20));
    cache.clear(CacheKind.VECTOR_INDEX);
    assertThat(cache.usedBytes()).isEqualTo(10);
    assertThat(cache.stats(CacheKind.VECTOR_INDEX)).isEqualTo(new CacheStats(0, 1, 0, 0, 0));
    cache.clear();
    assertThat(cache.usedBytes()).isZero();
    assertThat(cache.stats(CacheKind.DATASET_VERSIONS)).isEqualTo(new CacheStats(0, 1, 0, 0, 0));
  }

  private static void await(CountDownLatch latch) {
    try {
      if (!latch.await(10, TimeUnit.SECONDS)) {
        throw new IllegalStateException("not released");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
