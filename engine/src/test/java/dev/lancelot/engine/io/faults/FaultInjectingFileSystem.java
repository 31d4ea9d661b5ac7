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
 * {@code faulty://<id>/a/b} is {@code /a/b} of the wrapped file system ({@value #TARGET}, default the
 * raw local file system); {@code <id>} names the {@link Faults} script (see {@link Faults#register})
 * that decides which calls fail and how. Register it with {@link #configure(Configuration)}.
 *
 * <p>Every call that reaches the store is an operation of one {@link Faults.Op} kind: creating,
 * opening, each positioned read, closing a written file, renaming, deleting, listing, getting a
 * status, making a directory. Writes into an open stream are not operations of their own (a
 * truncating fault acts on them).
 */
public final class FaultInjectingFileSystem extends FileSystem {
  public static final String SCHEME = "faulty";
  /** Hadoop setting: URI of the wrapped file system (e.g. {@code hdfs://nn:8020}); default {@code file:///}. */
  public static final String TARGET = "fs.faulty.target";

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

  @Override
  public void initialize(URI name, Configuration conf) throws IOException {
    super.initialize(name, conf);
    setConf(conf);
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
    return SCHEME;
  }

  @Override
  public URI getUri() {
    return uri;
  }

  private Path inner(Path p) {
    Path q = p.isAbsolute() ? p : new Path(workingDirectory, p);
    return new Path(target.getUri().getScheme(), target.getUri().getAuthority(), q.toUri().getPath());
  }

  private Path outer(Path innerPath) {
    return new Path(SCHEME, uri.getAuthority(), innerPath.toUri().getPath());
  }

  private FileStatus outer(FileStatus s) {
    return new FileStatus(s.getLen(), s.isDirectory(), s.getReplication(), s.getBlockSize(), s.getModificationTime(),
        outer(s.getPath()));
  }

  @Override
  public FSDataInputStream open(Path f, int bufferSize) throws IOException {
    String path = f.toString();
    FSDataInputStream in = faults.around(Faults.Op.OPEN, path, () -> target.open(inner(f), bufferSize));
    return new FSDataInputStream(new FaultyInputStream(path, in));
  }

  @Override
  public FSDataOutputStream create(Path f, FsPermission permission, boolean overwrite, int bufferSize,
      short replication, long blockSize, Progressable progress) throws IOException {
    String path = f.toString();
    Faults.Decision decision = faults.decide(Faults.Op.CREATE, path);
    FSDataOutputStream out = faults.apply(decision, Faults.Op.CREATE, path,
        () -> target.create(inner(f), permission, overwrite, bufferSize, replication, blockSize, progress));
    return new FSDataOutputStream(new FaultyOutputStream(path, out, decision), statistics);
  }

  @Override
  public FSDataOutputStream append(Path f, int bufferSize, Progressable progress) throws IOException {
    throw new IOException("append is not supported by " + SCHEME + ": (nor used by lancelot)");
  }

  @Override
  public boolean rename(Path src, Path dst) throws IOException {
    return faults.around(Faults.Op.RENAME, src + " -> " + dst, () -> {
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
    return faults.around(Faults.Op.LIST, f.toString(), () -> {
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
    return faults.around(Faults.Op.STATUS, f.toString(), () -> {
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

    @Override
    public void close() throws IOException {
      faults.around(Faults.Op.CLOSE, path, () -> {
        out.close();
        if (throwOnClose) {
          throw new IOException("injected: the connection broke after " + Math.min(keep, written) + " of " + written
              + " bytes were stored");
        }
        return null;
      });
    }
  }
}
