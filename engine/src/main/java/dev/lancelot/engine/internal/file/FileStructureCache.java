package dev.lancelot.engine.internal.file;

import dev.lancelot.engine.io.InputFile;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The opened structure (footer, schema, column and page metadata, page readers) of recently used
 * Lance files, so that repeated scans and takes of the same data file (every query of a vector
 * search takes its result rows) do not re-read and re-parse the file's metadata. Keyed by location
 * and length; least recently used entries are dropped beyond the capacity. Thread-safe.
 */
public final class FileStructureCache {
  /** Files kept by {@link #FileStructureCache()}. */
  public static final int DEFAULT_CAPACITY = 256;

  private record Key(String location, long length) {}

  private final int capacity;
  private final Map<Key, LanceFileReader.Structure> entries;

  public FileStructureCache() {
    this(DEFAULT_CAPACITY);
  }

  public FileStructureCache(int capacity) {
    if (capacity < 0) {
      throw new IllegalArgumentException(
          "Cache capacity must be zero or positive, got " + capacity);
    }
    this.capacity = capacity;
    this.entries =
        new LinkedHashMap<>(16, 0.75f, true) {
          @Override
          protected boolean removeEldestEntry(Map.Entry<Key, LanceFileReader.Structure> eldest) {
            return size() > FileStructureCache.this.capacity;
          }
        };
  }

  LanceFileReader.Structure get(InputFile file, Supplier<LanceFileReader.Structure> open) {
    Key key = new Key(file.location(), file.length());
    synchronized (this) {
      LanceFileReader.Structure s = entries.get(key);
      if (s != null) {
        return s;
      }
    }
    // opened outside the lock: two threads may both open a new file; the first stored wins
    LanceFileReader.Structure opened = open.get();
    synchronized (this) {
      LanceFileReader.Structure s = entries.putIfAbsent(key, opened);
      return s != null ? s : opened;
    }
  }

  /** Number of files held. */
  public synchronized int size() {
    return entries.size();
  }

  public synchronized void clear() {
    entries.clear();
  }
}
