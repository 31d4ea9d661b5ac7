package dev.lancelot.engine.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Read-only memory maps of local files, shared by every reader in the JVM, so that reading a local
 * Lance file costs neither a system call nor a heap copy per read: a read is a slice of the map
 * (docs/architecture.md §4, decision D25).
 *
 * <p>What is mapped: whole files of at least {@code minFileBytes}, in regions of {@code
 * regionBytes} (one {@code MappedByteBuffer} holds at most 2 GiB). A read that crosses a region
 * boundary is copied into a heap buffer (the only copying read). Lance data files are immutable
 * once written, so a map never goes stale in normal use; a file replaced under the same name
 * (deleted and written again, e.g. a dataset directory re-created) is told apart by its identity
 * (device and inode, size and modification time, checked each time a reader opens it) and gets a
 * new map.
 *
 * <p>When it is unmapped: Java 17 has no safe explicit unmap. A map leaves this cache when its file
 * is replaced or when the cache exceeds {@code maxBytes} of mapped files (least recently opened
 * first); the operating system unmaps it once the garbage collector finds no buffer sliced from it
 * still reachable. Until then a deleted file's disk space stays allocated (Linux keeps a deleted
 * file alive while it is mapped). Mapped pages are the operating system's page cache, not Java
 * heap; the kernel reclaims them under memory pressure.
 *
 * <p>Truncating a mapped file breaks Lance's immutability: reading the lost part then fails with an
 * {@link InternalError} from the JVM ("a fault occurred in an unsafe memory access").
 *
 * <p>Thread-safe.
 */
final class MappedFiles {
  /** Default size of one mapped region. */
  static final long DEFAULT_REGION_BYTES = 1L << 30;

  /** Default smallest file worth a map: smaller files are read whole by a few positioned reads. */
  static final long DEFAULT_MIN_FILE_BYTES = 1L << 20;

  /** Bound on the bytes of all files kept mapped by this cache (address space, not heap). */
  static final long DEFAULT_MAX_BYTES = 64L << 30;

  private static final MappedFiles SHARED = new MappedFiles(DEFAULT_MAX_BYTES);

  private final long maxBytes;

  /** Least recently opened first. Guarded by {@code this}. */
  private final LinkedHashMap<Key, MappedFile> files = new LinkedHashMap<>(16, 0.75f, true);

  private long mappedBytes;

  MappedFiles(long maxBytes) {
    this.maxBytes = maxBytes;
  }

  static MappedFiles shared() {
    return SHARED;
  }

  private record Key(String path, long regionBytes) {}

  /** The identity of a file's content: a replaced file differs in at least one of these. */
  private record Identity(Object fileKey, long size, long modifiedNanos) {
    static Identity of(Path path) throws IOException {
      BasicFileAttributes a = Files.readAttributes(path, BasicFileAttributes.class);
      return new Identity(
          a.fileKey(),
          a.size(),
          a.lastModifiedTime().to(java.util.concurrent.TimeUnit.NANOSECONDS));
    }
  }

  /**
   * The map of {@code path} (regions of {@code regionBytes}), or null when the file is smaller than
   * {@code minFileBytes}. Checks the file's identity on every call: call it once per opened reader.
   */
  MappedFile open(Path path, long regionBytes, long minFileBytes) throws IOException {
    if (regionBytes <= 0 || regionBytes > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "Mapped region size must be in (0, 2^31), got " + regionBytes);
    }
    Path absolute = path.toAbsolutePath();
    Identity id = Identity.of(absolute);
    if (id.size() < minFileBytes) {
      return null;
    }
    Key key = new Key(absolute.toString(), regionBytes);
    synchronized (this) {
      sweep(key);
      MappedFile f = files.get(key);
      if (f != null && f.identity.equals(id)) {
        return f;
      }
      if (f != null) {
        files.remove(key);
        mappedBytes -= f.length;
      }
      f = new MappedFile(absolute, id, regionBytes);
      files.put(key, f);
      mappedBytes += f.length;
      Iterator<Map.Entry<Key, MappedFile>> it = files.entrySet().iterator();
      while (mappedBytes > maxBytes && files.size() > 1 && it.hasNext()) {
        MappedFile old = it.next().getValue();
        if (old != f) {
          it.remove();
          mappedBytes -= old.length;
        }
      }
      return f;
    }
  }

  /**
   * Drops the maps of the two least recently opened files (other than {@code opening}) when those
   * files were deleted or replaced, so that a long-running process that deletes files (old
   * versions, compaction) does not keep them mapped until the bound is reached.
   */
  private void sweep(Key opening) {
    Iterator<Map.Entry<Key, MappedFile>> it = files.entrySet().iterator();
    for (int checked = 0; checked < 2 && it.hasNext(); ) {
      Map.Entry<Key, MappedFile> e = it.next();
      if (e.getKey().equals(opening)) {
        continue;
      }
      checked++;
      Identity now;
      try {
        now = Identity.of(Path.of(e.getKey().path()));
      } catch (IOException gone) {
        now = null; // deleted (or unreadable): the map can only serve readers that already hold it
      }
      if (!e.getValue().identity.equals(now)) {
        it.remove();
        mappedBytes -= e.getValue().length;
      }
    }
  }

  /** Number of files currently kept mapped (for tests). */
  synchronized int size() {
    return files.size();
  }

  /** One mapped file, all of it, in regions of at most {@code regionBytes}. */
  static final class MappedFile {
    private final Identity identity;
    private final long length;
    private final long regionBytes;
    private final ByteBuffer[] regions;

    private MappedFile(Path path, Identity identity, long regionBytes) throws IOException {
      this.identity = identity;
      this.length = identity.size();
      this.regionBytes = regionBytes;
      this.regions = new ByteBuffer[(int) Math.max(1, (length + regionBytes - 1) / regionBytes)];
      try (FileChannel c = FileChannel.open(path, StandardOpenOption.READ)) {
        for (int r = 0; r < regions.length; r++) {
          long start = r * regionBytes;
          regions[r] =
              c.map(FileChannel.MapMode.READ_ONLY, start, Math.min(regionBytes, length - start));
        }
      } catch (NoSuchFileException e) {
        throw new IOException("the file was deleted while being opened", e);
      }
      // the maps outlive the channel: make sure they are of the file whose identity was checked
      if (!Identity.of(path).equals(identity)) {
        throw new IOException("the file was replaced while being opened");
      }
    }

    long length() {
      return length;
    }

    /**
     * Bytes {@code [position, position + len)} as a little-endian buffer: a read-only slice of the
     * map, or a heap copy when the range crosses a region boundary.
     */
    ByteBuffer read(long position, int len) {
      Objects.checkFromIndexSize(position, len, length);
      int first = (int) (position / regionBytes);
      int last = len == 0 ? first : (int) ((position + len - 1) / regionBytes);
      if (first == last) {
        return regions[first]
            .slice((int) (position - first * regionBytes), len)
            .order(ByteOrder.LITTLE_ENDIAN);
      }
      byte[] out = new byte[len];
      int done = 0;
      for (int r = first; r <= last; r++) {
        long from = Math.max(position, r * regionBytes);
        long to = Math.min(position + len, (r + 1) * regionBytes);
        regions[r].get((int) (from - r * regionBytes), out, done, (int) (to - from));
        done += (int) (to - from);
      }
      return ByteBuffer.wrap(out).order(ByteOrder.LITTLE_ENDIAN);
    }
  }
}
