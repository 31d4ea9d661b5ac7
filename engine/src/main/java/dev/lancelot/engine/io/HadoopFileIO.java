package dev.lancelot.engine.io;

import dev.lancelot.engine.InvalidInputException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;

/**
 * {@link FileIO} over the Hadoop FileSystem API.
 *
 * <p>Put-if-absent, per store:
 *
 * <ul>
 *   <li>{@code file:} the content goes to a hidden temporary file, then a hard link is created
 *       under the final name. Link creation fails atomically when the name exists (POSIX {@code
 *       link(2)}), unlike {@code rename(2)}, which silently replaces.
 *   <li>{@code hdfs:} (and any store whose rename refuses an existing destination atomically, e.g.
 *       {@code abfs:} with hierarchical namespace) temporary file, then {@code FileSystem.rename},
 *       which the NameNode performs atomically and refuses when the destination exists.
 *   <li>{@code s3a:} one conditional PUT ({@code If-None-Match: *}, S3A's conditional create,
 *       {@code fs.s3a.create.conditional.enabled}, on by default), which the store refuses
 *       atomically when the object exists. Without conditional writes a commit is refused, unless
 *       {@value #SINGLE_WRITER} is {@code true} (the user guarantees one writer at a time): then
 *       the rename protocol, which is not atomic on S3.
 *   <li>{@code gs:} and other object stores: the rename protocol, but object stores implement
 *       rename as check-then-copy, so two writers racing for the same version can both believe they
 *       won. Use one writer at a time on such stores.
 * </ul>
 *
 * <p>The local file system is accessed through Hadoop's raw local file system, so no {@code .crc}
 * side files are created next to Lance files.
 */
public final class HadoopFileIO implements FileIO {
  private final Configuration conf;
  private final Map<String, FileSystem> fileSystems = new ConcurrentHashMap<>();
  private final IoStats stats = new IoStats();
  final long maxGap;
  final long maxRequest;

  /**
   * Local files: read through shared memory maps ({@link MappedFiles}) unless {@value #MMAP} is
   * false.
   */
  final boolean mmap;

  final long mmapRegionBytes;
  final long mmapMinFileBytes;

  /**
   * Gap under which ranges of a local file are read together. A local read costs a system call, not
   * a round trip, so reading a large gap to save one costs more than it saves (a random take would
   * otherwise read most of a file whose rows lie within the remote gap of each other).
   */
  static final long LOCAL_MAX_GAP = 4 * 1024;

  public HadoopFileIO(Configuration conf) {
    this(conf, ReadCoalescer.DEFAULT_MAX_GAP, ReadCoalescer.DEFAULT_MAX_REQUEST);
  }

  public HadoopFileIO(Configuration conf, long maxGap, long maxRequest) {
    this.conf = conf;
    this.maxGap = maxGap;
    this.maxRequest = maxRequest;
    this.mmap = conf.getBoolean(MMAP, true);
    this.mmapRegionBytes = conf.getLong(MMAP_REGION_BYTES, MappedFiles.DEFAULT_REGION_BYTES);
    this.mmapMinFileBytes = conf.getLong(MMAP_MIN_FILE_BYTES, MappedFiles.DEFAULT_MIN_FILE_BYTES);
    if (mmapRegionBytes <= 0 || mmapRegionBytes > Integer.MAX_VALUE) {
      throw new InvalidInputException(
          "Cannot use "
              + MMAP_REGION_BYTES
              + "="
              + mmapRegionBytes
              + ": a mapped region holds between 1 byte and 2 GiB - 1. Leave it unset for the default of 1 GiB.");
    }
  }

  /**
   * Hadoop configuration key: whether local files (those at least as large as {@value
   * #MMAP_MIN_FILE_BYTES} says) are read through shared read-only memory maps (default true;
   * docs/storage.md). Other file systems are always read with positioned reads.
   */
  public static final String MMAP = "lancelot.io.mmap";

  /** Hadoop configuration key: bytes of a local file mapped by one region (default 1 GiB). */
  public static final String MMAP_REGION_BYTES = "lancelot.io.mmap.region-bytes";

  /** Hadoop configuration key: the smallest local file read through a map (default 1 MiB). */
  public static final String MMAP_MIN_FILE_BYTES = "lancelot.io.mmap.min-file-bytes";

  /** A FileIO with the default Hadoop configuration, for local paths and tests. */
  public static HadoopFileIO local() {
    return new HadoopFileIO(defaultConf());
  }

  /**
   * The default Hadoop configuration, loaded once per JVM: parsing Hadoop's default resources costs
   * milliseconds per {@code new Configuration()}. Treat it as read-only.
   */
  public static Configuration defaultConf() {
    return DefaultConf.INSTANCE;
  }

  private static final class DefaultConf {
    static final Configuration INSTANCE = load();

    private static Configuration load() {
      Configuration conf = new Configuration();
      conf.size(); // parse the default resources now, not on first use by some other thread
      return conf;
    }
  }

  /**
   * Turns a user-supplied location into a fully-qualified URI string: plain local paths ("/tmp/ds",
   * "rel/ds") become {@code file:} URIs, relative ones against the JVM's working directory; URIs
   * with a scheme are kept as given (without a trailing slash). For the engine used without a
   * Hadoop configuration; see {@link #qualify(String, Configuration)}.
   */
  public static String qualify(String location) {
    String loc = trimmed(location);
    if (hasScheme(loc)) {
      return loc;
    }
    String local =
        Paths.get(loc).toAbsolutePath().normalize().toUri().toString().replaceAll("/$", "");
    // Hadoop's own spelling of local paths: file:/a/b rather than file:///a/b.
    return local.startsWith("file:///") ? "file:/" + local.substring("file:///".length()) : local;
  }

  /**
   * Qualifies {@code location} as Hadoop, and so Spark's file sources, do under {@code conf}: URIs
   * with a scheme are kept; a scheme-less path belongs to the default file system ({@code
   * fs.defaultFS}), an absolute one taking its scheme and authority ({@code /data/items} → {@code
   * hdfs://nn:8020/data/items}), a relative one resolved against its working directory ({@code
   * items} → {@code hdfs://nn:8020/user/me/items}; the JVM's working directory for the local file
   * system). Without {@code conf}, {@link #qualify(String)}.
   */
  public static String qualify(String location, Configuration conf) {
    String loc = trimmed(location);
    if (conf == null || hasScheme(loc)) {
      return qualify(loc);
    }
    URI defaultFs = FileSystem.getDefaultUri(conf);
    try {
      FileSystem fs = FileSystem.get(defaultFs, conf);
      return qualify(new Path(loc).makeQualified(fs.getUri(), fs.getWorkingDirectory()).toString());
    } catch (IOException | IllegalArgumentException e) {
      throw new StorageException(
          "Cannot resolve dataset location "
              + location
              + " against the default file system "
              + defaultFs
              + " (fs.defaultFS): "
              + e.getMessage()
              + ". Give the location as a full URI, e.g. "
              + "file:/path or hdfs://namenode/path.",
          e);
    }
  }

  private static String trimmed(String location) {
    if (location == null || location.isBlank()) {
      throw new InvalidInputException("Dataset location must not be empty");
    }
    String loc = location;
    while (loc.length() > 1 && loc.endsWith("/") && !loc.endsWith(":/") && !loc.endsWith("://")) {
      loc = loc.substring(0, loc.length() - 1);
    }
    return loc;
  }

  private static boolean hasScheme(String location) {
    URI uri;
    try {
      uri = new URI(location);
    } catch (Exception e) {
      return false;
    }
    // one letter is a Windows drive ("C:\data"), not a scheme
    return uri.getScheme() != null && uri.getScheme().length() > 1;
  }

  FileSystem fs(Path path) {
    URI uri = path.toUri();
    String key =
        (uri.getScheme() == null ? "file" : uri.getScheme())
            + "://"
            + (uri.getAuthority() == null ? "" : uri.getAuthority());
    return fileSystems.computeIfAbsent(
        key,
        k -> {
          try {
            FileSystem fs = FileSystem.get(uri, conf);
            if (fs instanceof LocalFileSystem local) {
              return local.getRawFileSystem();
            }
            return fs;
          } catch (IOException e) {
            throw new StorageException(
                "Cannot access file system for " + path + ": " + e.getMessage(), e);
          }
        });
  }

  @Override
  public InputFile newInputFile(String location) {
    ReadCounters.fileOpened();
    return new HadoopInputFile(this, location, -1);
  }

  @Override
  public InputFile newInputFile(String location, long knownLength) {
    ReadCounters.fileOpened();
    return new HadoopInputFile(this, location, knownLength);
  }

  @Override
  public PositionOutputStream create(String location) {
    Path path = new Path(location);
    if (isLocal(path)) {
      return LocalFiles.create(location, localPath(path));
    }
    try {
      FSDataOutputStream out = fs(path).create(path, false);
      return new PositionOutputStream() {
        @Override
        public long position() {
          return out.size();
        }

        @Override
        public void write(int b) throws IOException {
          out.write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
          out.write(b, off, len);
        }

        @Override
        public void flush() throws IOException {
          out.flush();
        }

        @Override
        public void close() throws IOException {
          out.close();
        }
      };
    } catch (org.apache.hadoop.fs.FileAlreadyExistsException e) {
      throw new StorageException("Cannot create " + location + ": the file already exists", e);
    } catch (IOException e) {
      throw new StorageException("Cannot create " + location + ": " + e.getMessage(), e);
    }
  }

  /** The java.nio path of a local ({@code file:} or scheme-less) Hadoop path. */
  static java.nio.file.Path localPath(Path path) {
    return Paths.get(path.toUri().getPath());
  }

  @Override
  public boolean exists(String location) {
    Path path = new Path(location);
    try {
      return fs(path).exists(path);
    } catch (IOException e) {
      throw new StorageException(
          "Cannot check whether " + location + " exists: " + e.getMessage(), e);
    }
  }

  @Override
  public List<FileEntry> list(String directory) {
    Path path = new Path(directory);
    try {
      FileStatus[] statuses = fs(path).listStatus(path);
      List<FileEntry> out = new ArrayList<>(statuses.length);
      for (FileStatus s : statuses) {
        out.add(
            new FileEntry(
                s.getPath().toString(),
                s.getPath().getName(),
                s.getLen(),
                s.isDirectory(),
                s.getModificationTime()));
      }
      return out;
    } catch (FileNotFoundException e) {
      return List.of();
    } catch (IOException e) {
      throw new StorageException("Cannot list " + directory + ": " + e.getMessage(), e);
    }
  }

  @Override
  public boolean delete(String location) {
    Path path = new Path(location);
    try {
      return fs(path).delete(path, false);
    } catch (IOException e) {
      throw new StorageException("Cannot delete " + location + ": " + e.getMessage(), e);
    }
  }

  @Override
  public boolean deleteRecursively(String location) {
    Path path = new Path(location);
    try {
      return fs(path).delete(path, true);
    } catch (IOException e) {
      throw new StorageException("Cannot delete " + location + ": " + e.getMessage(), e);
    }
  }

  @Override
  public boolean putIfAbsent(String location, byte[] content) {
    Path target = new Path(location);
    if (isLocal(target)) {
      return LocalFiles.putIfAbsent(location, localPath(target), content);
    }
    FileSystem fs = fs(target);
    if (ConditionalPut.isS3(target)) {
      if (ConditionalPut.supported(fs, target)) {
        return ConditionalPut.put(location, fs, target, content);
      }
      if (!conf.getBoolean(SINGLE_WRITER, false)) {
        throw new StorageException(
            "Cannot commit "
                + location
                + ": this S3 store does not offer conditional "
                + "writes (PUT with If-None-Match), so a commit cannot be made atomic and concurrent writers could "
                + "overwrite each other's versions. Enable them with fs.s3a.create.conditional.enabled=true (the "
                + "default; needs a store that supports If-None-Match, as AWS S3 does), or, if you guarantee that only "
                + "one writer at a time ever writes this dataset, set "
                + SINGLE_WRITER
                + "=true.");
      }
    }
    Path tmp =
        new Path(target.getParent(), "." + target.getName() + "." + UUID.randomUUID() + ".tmp");
    try {
      try (FSDataOutputStream out = fs.create(tmp, false)) {
        out.write(content);
      }
      // A store that kept less than was written must not get the chance to publish a torn manifest.
      long stored = fs.getFileStatus(tmp).getLen();
      if (stored != content.length) {
        throw new StorageException(
            "Cannot write "
                + location
                + ": "
                + content.length
                + " bytes were written to "
                + tmp
                + " but the store holds "
                + stored
                + " (the write was truncated); nothing was published");
      }
      if (fs.rename(tmp, target)) {
        return true;
      }
      if (fs.exists(target)) {
        return false;
      }
      throw new StorageException(
          "Cannot write "
              + location
              + ": the store refused to rename "
              + tmp
              + " to it and the target does not exist");
    } catch (org.apache.hadoop.fs.FileAlreadyExistsException e) {
      return false;
    } catch (IOException | UncheckedIOException e) {
      throw new StorageException("Cannot write " + location + ": " + e.getMessage(), e);
    } finally {
      try {
        fs.delete(tmp, false);
      } catch (IOException ignored) {
        // A leftover hidden temporary file is harmless: readers ignore it.
      }
    }
  }

  /**
   * Hadoop configuration key: set to {@code true} to let commits on an S3 store without conditional
   * writes go ahead with the non-atomic rename protocol. Only safe when one writer at a time ever
   * writes the dataset.
   */
  public static final String SINGLE_WRITER = "lancelot.commit.single-writer";

  @Override
  public void overwrite(String location, byte[] content) {
    Path target = new Path(location);
    FileSystem fs = fs(target);
    try {
      if (isLocal(target)) {
        java.nio.file.Path dst = localPath(target);
        java.nio.file.Path tmp =
            dst.resolveSibling("." + dst.getFileName() + "." + UUID.randomUUID() + ".tmp");
        Files.write(tmp, content);
        Files.move(
            tmp,
            dst,
            java.nio.file.StandardCopyOption.REPLACE_EXISTING,
            java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        return;
      }
      try (FSDataOutputStream out = fs.create(target, true)) {
        out.write(content);
      }
    } catch (IOException | UncheckedIOException e) {
      throw new StorageException("Cannot write " + location + ": " + e.getMessage(), e);
    }
  }

  @Override
  public String atomicityGuarantee(String location) {
    Path path = new Path(location);
    String scheme = path.toUri().getScheme() == null ? "file" : path.toUri().getScheme();
    return switch (scheme) {
      case "file" -> "atomic: hard link creation fails when the target exists";
      case "hdfs", "viewfs", "webhdfs" -> "atomic: HDFS rename refuses an existing destination";
      case "abfs", "abfss" ->
          "atomic with hierarchical namespace enabled; otherwise single writer only";
      case "s3a", "s3", "s3n" ->
          ConditionalPut.supported(fs(path), path)
              ? "atomic: conditional PUT (If-None-Match: *), refused by the store when the object exists"
              : conf.getBoolean(SINGLE_WRITER, false)
                  ? "not atomic: no conditional writes; "
                      + SINGLE_WRITER
                      + "=true declares a single writer"
                  : "commits refused: no conditional writes (enable fs.s3a.create.conditional.enabled, or declare a "
                      + "single writer with "
                      + SINGLE_WRITER
                      + "=true)";
      default ->
          "not atomic: " + scheme + " renames by check-then-copy; use a single writer at a time";
    };
  }

  static boolean isLocal(Path path) {
    String scheme = path.toUri().getScheme();
    return scheme == null || scheme.equals("file");
  }

  @Override
  public IoStats stats() {
    return stats;
  }

  @Override
  public void close() {
    // File systems are cached and shared by Hadoop; they are not ours to close.
  }
}
