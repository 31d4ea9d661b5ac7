package dev.lancelot.engine.internal.file;

import dev.lancelot.engine.CacheKind;
import dev.lancelot.engine.internal.file.container.ColumnInfo;
import dev.lancelot.engine.internal.file.container.FileMetadata;
import dev.lancelot.engine.internal.file.container.PageInfo;
import dev.lancelot.engine.internal.util.MemoryCache;
import dev.lancelot.engine.io.ByteRange;
import dev.lancelot.engine.io.InputFile;
import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The opened structure (footer, schema, column and page metadata, page readers) of recently used
 * Lance files, so that repeated scans and takes of the same data file (every query of a vector
 * search takes its result rows) do not re-read and re-parse the file's metadata. Keyed by location
 * and length. One instance per dataset context; its entries live in the session's {@link
 * MemoryCache} ({@link CacheKind#FILE_METADATA}), weighed by the metadata they hold and dropped,
 * least recently used first, when the session exceeds its budget. Instances never share entries (a
 * context reads the files as they were when it parsed them, as before sessions existed), and the
 * entries of an instance that was garbage collected (its datasets are gone) are released at the
 * next lookup of any instance, so that they do not take the room of live entries until they are the
 * least recently used. Thread-safe.
 */
public final class FileStructureCache {
  /** Scopes whose instance was garbage collected. */
  private static final ReferenceQueue<FileStructureCache> UNREACHABLE = new ReferenceQueue<>();

  /** Tells one instance's entries apart without keeping the instance alive. */
  private static final class Scope extends WeakReference<FileStructureCache> {
    final MemoryCache cache;

    Scope(FileStructureCache owner, MemoryCache cache) {
      super(owner, UNREACHABLE);
      this.cache = cache;
    }
  }

  private record Key(Scope scope, String location, long length) {}

  private static final MemoryCache.Kind<Key, LanceFileReader.Structure> FILES =
      new MemoryCache.Kind<>(CacheKind.FILE_METADATA, FileStructureCache::estimatedBytes);

  /** Heap of one parsed file apart from its metadata messages: objects, readers, names. */
  private static final long FILE_OVERHEAD_BYTES = 2048;

  /** Heap of one column's reader and descriptor. */
  private static final long COLUMN_BYTES = 512;

  /** Heap of one page's descriptor and decoded layout message. */
  private static final long PAGE_BYTES = 256;

  private final MemoryCache cache;
  private final Scope scope;

  /** A cache whose entries live in {@code cache}. */
  public FileStructureCache(MemoryCache cache) {
    this.cache = cache;
    this.scope = new Scope(this, cache);
  }

  LanceFileReader.Structure get(InputFile file, Supplier<LanceFileReader.Structure> open) {
    releaseUnreachable();
    return cache.get(FILES, new Key(scope, file.location(), file.length()), k -> open.get());
  }

  /** Drops the entries of every instance that was garbage collected. */
  public static void releaseUnreachable() {
    Map<MemoryCache, Set<Scope>> dead = new HashMap<>(); // both compared by identity
    for (Reference<? extends FileStructureCache> r = UNREACHABLE.poll();
        r != null;
        r = UNREACHABLE.poll()) {
      Scope s = (Scope) r;
      dead.computeIfAbsent(s.cache, c -> new HashSet<>()).add(s);
    }
    dead.forEach((c, scopes) -> c.invalidateIf(FILES, k -> scopes.contains(k.scope())));
  }

  /**
   * Estimated heap of a parsed file: a fixed part per file, column and page, plus the bytes of its
   * schema (global buffer 0), which the parsed schema holds again in its own objects.
   */
  static long estimatedBytes(LanceFileReader.Structure s) {
    FileMetadata m = s.metadata();
    long bytes = FILE_OVERHEAD_BYTES;
    for (ColumnInfo c : m.columns()) {
      bytes += COLUMN_BYTES;
      for (PageInfo p : c.pages()) {
        bytes += PAGE_BYTES + 16L * p.numBuffers();
        if (p.layout() != null) {
          bytes += p.layout().getSerializedSize();
        } else if (p.arrayEncoding() != null) {
          bytes += p.arrayEncoding().getSerializedSize();
        }
      }
    }
    if (!m.globalBuffers().isEmpty()) {
      ByteRange schema = m.globalBuffers().get(0);
      bytes += 2 * schema.length();
    }
    return bytes;
  }

  /** Number of files held. */
  public int size() {
    return cache.count(FILES, k -> k.scope() == scope);
  }

  /** Drops the files of this instance. */
  public void clear() {
    cache.invalidateIf(FILES, k -> k.scope() == scope);
  }
}
