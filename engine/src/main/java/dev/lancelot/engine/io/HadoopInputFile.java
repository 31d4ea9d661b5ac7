package dev.lancelot.engine.io;

import java.io.EOFException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.Path;

/**
 * A file read through {@link HadoopFileIO}: positioned reads on a channel for local files (through
 * a shared memory map for large ones), on a Hadoop stream otherwise, with nearby ranges coalesced
 * into fewer requests. Thread-safe: the channel, stream and map are opened once, on first use.
 */
final class HadoopInputFile implements InputFile {
  private final HadoopFileIO io;
  private final String location;
  private final Path path;
  private volatile long length;
  private volatile FSDataInputStream stream;

  /** Local files are read with positional reads on a channel: opening one costs far less. */
  private final boolean local;

  private volatile FileChannel channel;

  /** The shared map of a local file, looked up on the first read; null: not mapped. */
  private volatile MappedFiles.MappedFile mapped;

  private volatile boolean mapLookedUp;

  HadoopInputFile(HadoopFileIO io, String location, long knownLength) {
    this.io = io;
    this.location = location;
    this.path = new Path(location);
    this.length = knownLength;
    this.local = HadoopFileIO.isLocal(path);
  }

  private FileChannel channel() {
    FileChannel c = channel;
    if (c == null) {
      synchronized (this) {
        c = channel;
        if (c == null) {
          try {
            c = FileChannel.open(HadoopFileIO.localPath(path), StandardOpenOption.READ);
          } catch (IOException e) {
            throw failed("open", e);
          }
          channel = c;
        }
      }
    }
    return c;
  }

  @Override
  public String location() {
    return location;
  }

  /** The error of a failed {@code verb} ("open", "map", …) of this file; a missing file says so. */
  private StorageException failed(String verb, IOException e) {
    if (e instanceof NoSuchFileException || e instanceof FileNotFoundException) {
      return new StorageException("Cannot read " + location + ": the file does not exist", e);
    }
    return new StorageException("Cannot " + verb + " " + location + ": " + e.getMessage(), e);
  }

  private FSDataInputStream stream() {
    FSDataInputStream s = stream;
    if (s == null) {
      synchronized (this) {
        s = stream;
        if (s == null) {
          try {
            s = io.fs(path).open(path);
          } catch (IOException e) {
            throw failed("open", e);
          }
          stream = s;
        }
      }
    }
    return s;
  }

  /** The shared map of this local file, or null when maps are off or the file is too small. */
  private MappedFiles.MappedFile mapped() {
    if (!mapLookedUp) {
      synchronized (this) {
        if (!mapLookedUp) {
          // a length known from the manifest saves small files the look-up
          if (io.mmap && (length < 0 || length >= io.mmapMinFileBytes)) {
            try {
              mapped =
                  MappedFiles.shared()
                      .open(HadoopFileIO.localPath(path), io.mmapRegionBytes, io.mmapMinFileBytes);
            } catch (IOException e) {
              throw failed("map", e);
            }
          }
          mapLookedUp = true;
        }
      }
    }
    return mapped;
  }

  @Override
  public long length() {
    long len = length;
    if (len < 0) {
      try {
        if (!local) {
          len = io.fs(path).getFileStatus(path).getLen();
        } else {
          len = mapped() != null ? mapped().length() : channel().size();
        }
      } catch (IOException e) {
        throw failed("read the length of", e);
      }
      length = len;
    }
    return len;
  }

  @Override
  public ByteBuffer read(long position, int len) {
    if (position < 0 || position + len > length()) {
      throw new StorageException(
          "Cannot read "
              + location
              + ": bytes ["
              + position
              + ", "
              + (position + len)
              + ") lie outside the file of "
              + length()
              + " bytes (truncated or corrupt file?)");
    }
    MappedFiles.MappedFile map = local ? mapped() : null;
    if (map != null) {
      if (position + len > map.length()) {
        throw new StorageException(
            "Cannot read "
                + len
                + " bytes at "
                + position
                + " of "
                + location
                + ": the file "
                + "ends after "
                + map.length()
                + " bytes (truncated or corrupt file?)");
      }
      io.stats().recordRead(len);
      ReadCounters.bytesRead(len);
      return map.read(position, len);
    }
    byte[] buf = new byte[len];
    try {
      if (local) {
        readLocal(position, buf);
      } else {
        stream().readFully(position, buf, 0, len);
      }
    } catch (IOException e) {
      throw new StorageException(
          "Cannot read "
              + len
              + " bytes at "
              + position
              + " of "
              + location
              + ": "
              + e.getMessage(),
          e);
    }
    io.stats().recordRead(len);
    ReadCounters.bytesRead(len);
    return ByteBuffer.wrap(buf).order(ByteOrder.LITTLE_ENDIAN);
  }

  private void readLocal(long position, byte[] buf) throws IOException {
    ByteBuffer target = ByteBuffer.wrap(buf);
    FileChannel c = channel();
    while (target.hasRemaining()) {
      if (c.read(target, position + target.position()) < 0) {
        throw new EOFException("the file ends after " + (position + target.position()) + " bytes");
      }
    }
  }

  @Override
  public List<ByteBuffer> readRanges(List<ByteRange> ranges) {
    ByteBuffer[] out = new ByteBuffer[ranges.size()];
    if (local && mapped() != null) {
      // slices of the map: nothing to gain from merging neighbours
      for (int i = 0; i < out.length; i++) {
        out[i] = read(ranges.get(i).offset(), Math.toIntExact(ranges.get(i).length()));
      }
      return Arrays.asList(out);
    }
    long gap = local ? Math.min(io.maxGap, HadoopFileIO.LOCAL_MAX_GAP) : io.maxGap;
    for (ReadCoalescer.Request req : ReadCoalescer.coalesce(ranges, gap, io.maxRequest)) {
      ByteBuffer merged = read(req.range().offset(), Math.toIntExact(req.range().length()));
      for (int member : req.members()) {
        ByteRange r = ranges.get(member);
        int from = (int) (r.offset() - req.range().offset());
        out[member] = merged.slice(from, (int) r.length()).order(ByteOrder.LITTLE_ENDIAN);
      }
    }
    return Arrays.asList(out);
  }

  @Override
  public void close() {
    FileChannel c = channel;
    if (c != null) {
      try {
        c.close();
      } catch (IOException ignored) {
        // Closing a read-only channel cannot lose data.
      }
    }
    FSDataInputStream s = stream;
    if (s != null) {
      try {
        s.close();
      } catch (IOException ignored) {
        // Closing a read-only stream cannot lose data.
      }
    }
  }
}
