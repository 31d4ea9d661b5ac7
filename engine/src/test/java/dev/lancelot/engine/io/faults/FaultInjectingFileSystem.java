package dev.lancelot.engine.io.faults;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FSInputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.util.Progressable;

/**
 * A Hadoop {@link FileSystem} for tests that wraps another one and breaks it on command. A location
 * {@code faulty://<id>/a/b} is {@code /a/b} of the wrapped file system ({@value #TARGET}, default
 * the raw local file system); {@code <id>} names the {@link Faults} script (see {@link
 * Faults#register}) that decides which calls fail and how. Register it with {@link
 * #configure(Configuration)}.
 *
 * <p>It can also stand in for a store under the store's own scheme ({@link #wrap}): then {@code
 * hdfs://nn/a/b} or {@code s3a://bucket/a/b} reach the real file system of that scheme through this
 * one, so that the engine sees the store it would see in production (its scheme, hence its commit
 * protocol: S3's conditional PUT, HDFS's rename) with faults in between. The script is then named
 * by {@value #SCRIPT}.
 *
 * <p>Every call that reaches the store is an operation of one {@link Faults.Op} kind: creating,
 * opening, each positioned read, closing a written file, renaming, deleting, listing, getting a
 * status, making a directory. Writes into an open stream are not operations of their own (a
 * truncating fault acts on them).
 */
public final class FaultInjectingFileSystem extends FileSystem {
  public static final String SCHEME = "faulty";

  /**
   * Hadoop setting: URI of the wrapped file system (e.g. {@code hdfs://nn:8020}); default {@code
   * file:///}.
   */
  public static final String TARGET = "fs.faulty.target";

  /** Hadoop setting, when standing in for a store's scheme: the id of the {@link Faults} script. */
  public static final String SCRIPT = "fs.faulty.script";

  private static final String WRAPPED_IMPL = "fs.faulty.wrapped.impl.";

  private URI uri;
  private Faults faults;
  private FileSystem target;
  private Path workingDirectory;

  /** Makes {@code faulty:} locations resolve to this class in {@code conf}. */
  public static Configuration configure(Configuration conf) {
    conf.set("fs." + SCHEME + ".impl", FaultInjectingFileSystem.class.getName());
    conf.setBoolean("fs." + SCHEME + ".impl.disable.cache", true);
    return conf;
  }

  /**
   * Makes {@code scheme} locations in {@code conf} reach {@code impl} (the store's real file system
   * class, e.g. {@code org.apache.hadoop.hdfs.DistributedFileSystem}) through a fault-injecting
   * file system run by {@code faults}. Each wrapper is new (not cached) and light; the real file
   * system under it is the one Hadoop caches for the location, shared with unfaulted users.
   */
  public static Configuration wrap(Configuration conf, String scheme, String impl, Faults faults) {
    conf.set("fs." + scheme + ".impl", FaultInjectingFileSystem.class.getName());
    conf.setBoolean("fs." + scheme + ".impl.disable.cache", true);
    conf.set(WRAPPED_IMPL + scheme, impl);
    conf.set(SCRIPT, faults.id());
    return conf;
  }

  @Override
  public void initialize(URI name, Configuration conf) throws IOException {
    super.initialize(name, conf);
    setConf(conf);
    if (!SCHEME.equals(name.getScheme())) {
      String impl = conf.get(WRAPPED_IMPL + name.getScheme());
      String script = conf.get(SCRIPT);
      if (impl == null || script == null) {
        throw new IllegalStateException(
            "Cannot stand in for " + name + ": set up with FaultInjectingFileSystem.wrap");
      }
      this.uri = URI.create(name.getScheme() + "://" + name.getAuthority());
      this.faults = Faults.forId(script);
      Configuration real = new Configuration(conf);
      real.set("fs." + name.getScheme() + ".impl", impl);
      real.setBoolean("fs." + name.getScheme() + ".impl.disable.cache", false);
      this.target = FileSystem.get(uri, real);
      this.workingDirectory = target.getWorkingDirectory();
      return;
    }
    this.uri = URI.create(SCHEME + "://" + name.getAuthority());
    this.faults = Faults.forId(name.getAuthority());
    URI targetUri = URI.create(conf.get(TARGET, "file:///"));
    if ("file".equals(targetUri.getScheme())) {
      this.target = new UnixLocalFileSystem();
      this.target.initialize(targetUri, conf);
    } else {
      this.target = FileSystem.get(targetUri, conf);
    }
    this.workingDirectory = new Path(uri.toString() + "/");
  }

  /**
   * The raw local file system without permission changes: without Hadoop's native library it runs
   * {@code chmod} in a child process for every file and directory it creates, which would make the
   * fault matrix spend its time forking.
   */
  private static final class UnixLocalFileSystem extends org.apache.hadoop.fs.RawLocalFileSystem {
    @Override
    public void setPermission(Path p, FsPermission permission) {
      // the default permissions of new files are fine for tests
    }
  }

  @Override
  public String getScheme() {
    return uri == null ? SCHEME : uri.getScheme();
  }

  @Override
  public URI getUri() {
    return uri;
  }

  private Path inner(Path p) {
    Path q = p.isAbsolute() ? p : new Path(workingDirectory, p);
    return new Path(
        target.getUri().getScheme(), target.getUri().getAuthority(), q.toUri().getPath());
  }

  private Path outer(Path innerPath) {
    return new Path(uri.getScheme(), uri.getAuthority(), innerPath.toUri().getPath());
  }

  private FileStatus outer(FileStatus s) {
    return new FileStatus(
        s.getLen(),
        s.isDirectory(),
        s.getReplication(),
        s.getBlockSize(),
        s.getModificationTime(),
        outer(s.getPath()));
  }

  @Override
  public FSDataInputStream open(Path f, int bufferSize) throws IOException {
    String path = f.toString();
    FSDataInputStream in =
        faults.around(Faults.Op.OPEN, path, () -> target.open(inner(f), bufferSize));
    return new FSDataInputStream(new FaultyInputStream(path, in));
  }

  @Override
  public FSDataOutputStream create(
      Path f,
      FsPermission permission,
      boolean overwrite,
      int bufferSize,
      short replication,
      long blockSize,
      Progressable progress)
      throws IOException {
    String path = f.toString();
    Faults.Decision decision = faults.decide(Faults.Op.CREATE, path);
    FSDataOutputStream out =
        faults.apply(
            decision,
            Faults.Op.CREATE,
            path,
            () ->
                opened(
                    path,
                    target.create(
                        inner(f),
                        permission,
                        overwrite,
                        bufferSize,
                        replication,
                        blockSize,
                        progress)));
    return new FSDataOutputStream(new FaultyOutputStream(path, out, decision), statistics);
  }

  /**
   * The builder of {@code createFile}: builds the wrapped store's own builder with the same options
   * (S3A's conditional create among them), counted and faulted as a {@link Faults.Op#CREATE}.
   */
  @Override
  public org.apache.hadoop.fs.FSDataOutputStreamBuilder<FSDataOutputStream, ?> createFile(Path f) {
    return new FaultyBuilder(this, f);
  }

  private final class FaultyBuilder
      extends org.apache.hadoop.fs.FSDataOutputStreamBuilder<FSDataOutputStream, FaultyBuilder> {
    FaultyBuilder(FileSystem fs, Path p) {
      super(fs, p);
    }

    @Override
    public FaultyBuilder getThisBuilder() {
      return this;
    }

    @Override
    public FSDataOutputStream build() throws IOException {
      Path f = getPath();
      String path = f.toString();
      Faults.Decision decision = faults.decide(Faults.Op.CREATE, path);
      FSDataOutputStream out =
          faults.apply(
              decision,
              Faults.Op.CREATE,
              path,
              () -> {
                org.apache.hadoop.fs.FSDataOutputStreamBuilder<?, ?> inner =
                    target.createFile(inner(f));
                inner.overwrite(getFlags().contains(org.apache.hadoop.fs.CreateFlag.OVERWRITE));
                if (isRecursive()) {
                  inner.recursive();
                }
                Configuration options = getOptions();
                for (String key : getMandatoryKeys()) {
                  inner.must(key, options.get(key));
                }
                for (java.util.Map.Entry<String, String> e : options) {
                  if (!getMandatoryKeys().contains(e.getKey())) {
                    inner.opt(e.getKey(), e.getValue());
                  }
                }
                return opened(path, inner.build());
              });
      return new FSDataOutputStream(new FaultyOutputStream(path, out, decision), statistics);
    }
  }

  /** Records a stream the store opened (see {@link Faults#openFiles}). */
  private FSDataOutputStream opened(String path, FSDataOutputStream out) {
    faults.opened(path);
    return out;
  }

  @Override
  public boolean hasPathCapability(Path path, String capability) throws IOException {
    return target.hasPathCapability(inner(path), capability);
  }

  @Override
  public long getDefaultBlockSize(Path f) {
    return target.getDefaultBlockSize(inner(f));
  }

  @Override
  public short getDefaultReplication(Path f) {
    return target.getDefaultReplication(inner(f));
  }

  @Override
  public FSDataOutputStream append(Path f, int bufferSize, Progressable progress)
      throws IOException {
    throw new IOException("append is not supported by " + SCHEME + ": (nor used by lancelot)");
  }

  @Override
  public boolean rename(Path src, Path dst) throws IOException {
    return faults.around(
        Faults.Op.RENAME,
        src + " -> " + dst,
        () -> {
          Path to = inner(dst);
          // HDFS semantics: a rename never replaces an existing destination.
          if (target.exists(to)) {
            return false;
          }
          return target.rename(inner(src), to);
        });
  }

  @Override
  public boolean delete(Path f, boolean recursive) throws IOException {
    return faults.around(Faults.Op.DELETE, f.toString(), () -> target.delete(inner(f), recursive));
  }

  @Override
  public FileStatus[] listStatus(Path f) throws IOException {
    return faults.around(
        Faults.Op.LIST,
        f.toString(),
        () -> {
          FileStatus[] inner = target.listStatus(inner(f));
          FileStatus[] out = new FileStatus[inner.length];
          for (int i = 0; i < inner.length; i++) {
            out[i] = outer(inner[i]);
          }
          return out;
        });
  }

  @Override
  public void setWorkingDirectory(Path newDir) {
    workingDirectory = newDir;
  }

  @Override
  public Path getWorkingDirectory() {
    return workingDirectory;
  }

  @Override
  public boolean mkdirs(Path f, FsPermission permission) throws IOException {
    return faults.around(Faults.Op.MKDIRS, f.toString(), () -> target.mkdirs(inner(f), permission));
  }

  @Override
  public FileStatus getFileStatus(Path f) throws IOException {
    return faults.around(
        Faults.Op.STATUS,
        f.toString(),
        () -> {
          try {
            return outer(target.getFileStatus(inner(f)));
          } catch (FileNotFoundException e) {
            throw new FileNotFoundException("File " + f + " does not exist");
          }
        });
  }

  /** Each positioned read is one {@link Faults.Op#READ}. */
  private final class FaultyInputStream extends FSInputStream {
    private final String path;
    private final FSDataInputStream in;

    FaultyInputStream(String path, FSDataInputStream in) {
      this.path = path;
      this.in = in;
    }

    @Override
    public int read(long position, byte[] buffer, int offset, int length) throws IOException {
      return faults.around(Faults.Op.READ, path, () -> in.read(position, buffer, offset, length));
    }

    @Override
    public void seek(long pos) throws IOException {
      in.seek(pos);
    }

    @Override
    public long getPos() throws IOException {
      return in.getPos();
    }

    @Override
    public boolean seekToNewSource(long targetPos) {
      return false;
    }

    @Override
    public int read() throws IOException {
      byte[] one = new byte[1];
      int n = read(getPos(), one, 0, 1);
      if (n > 0) {
        in.seek(getPos() + 1);
      }
      return n < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public void close() throws IOException {
      in.close();
    }
  }

  /**
   * The stream of a created file: closing it is one {@link Faults.Op#CLOSE}; when the create was
   * faulted with {@link Faults.Kind#TRUNCATE}, bytes past the kept prefix are silently dropped.
   */
  private final class FaultyOutputStream extends OutputStream {
    private final String path;
    private final FSDataOutputStream out;
    private final long keep;
    private final boolean throwOnClose;
    private long written;
    private boolean ended;

    FaultyOutputStream(String path, FSDataOutputStream out, Faults.Decision decision) {
      this.path = path;
      this.out = out;
      boolean truncate = decision != null && decision.kind() == Faults.Kind.TRUNCATE;
      this.keep = truncate ? decision.keepBytes() : Long.MAX_VALUE;
      this.throwOnClose = truncate && decision.throwOnClose();
    }

    @Override
    public void write(int b) throws IOException {
      if (written++ < keep) {
        out.write(b);
      }
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      long room = Math.max(0, keep - written);
      int n = (int) Math.min(room, len);
      if (n > 0) {
        out.write(b, off, n);
      }
      written += len;
    }

    @Override
    public void flush() throws IOException {
      out.flush();
    }

    /**
     * One {@link Faults.Op#CLOSE}. When the fault strikes before the store acted, the real stream
     * is still ended (aborted where the store can, else closed; see {@link Faults#endOutput}) so
     * that the failed file is not left open, and the caller gets the injected error.
     */
    @Override
    public void close() throws IOException {
      if (ended) {
        faults.around(Faults.Op.CLOSE, path, () -> null);
        return;
      }
      try {
        faults.around(
            Faults.Op.CLOSE,
            path,
            () -> {
              out.close();
              if (throwOnClose) {
                throw new IOException(
                    "injected: the connection broke after "
                        + Math.min(keep, written)
                        + " of "
                        + written
                        + " bytes were stored");
              }
              return null;
            });
      } catch (IOException | RuntimeException e) {
        Faults.endOutputQuietly(out);
        throw e;
      } finally {
        ended = true;
        faults.ended(path);
      }
    }
  }
}
