package dev.lancelot.engine.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Local files read through shared memory maps (MappedFiles) return the file's bytes, whatever the
 * region layout.
 */
class MappedReadsTest {
  @TempDir Path dir;

  static Configuration mapped(long regionBytes) {
    Configuration conf = new Configuration(false);
    conf.setLong(HadoopFileIO.MMAP_REGION_BYTES, regionBytes);
    conf.setLong(HadoopFileIO.MMAP_MIN_FILE_BYTES, 0);
    return conf;
  }

  private byte[] write(String name, int size, long seed) throws Exception {
    byte[] bytes = new byte[size];
    new Random(seed).nextBytes(bytes);
    Files.write(dir.resolve(name), bytes);
    return bytes;
  }

  private String uri(String name) {
    return dir.resolve(name).toUri().toString();
  }

  private static byte[] bytes(ByteBuffer b) {
    byte[] out = new byte[b.remaining()];
    b.duplicate().get(out);
    return out;
  }

  private static byte[] expected(byte[] file, long position, int length) {
    byte[] out = new byte[length];
    System.arraycopy(file, (int) position, out, 0, length);
    return out;
  }

  @Test
  void readsCrossingRegionBoundariesReturnTheFilesBytes() throws Exception {
    long seed = System.nanoTime();
    byte[] file = write("f.bin", 10_007, seed);
    Random r = new Random(seed);
    try (HadoopFileIO io = new HadoopFileIO(mapped(1000));
        InputFile in = io.newInputFile(uri("f.bin"))) {
      assertThat(in.length()).isEqualTo(file.length);
      // exactly a region, ending on a boundary, crossing one, crossing several, the tail, empty
      long[][] cases = {
        {0, 1000}, {500, 500}, {990, 20}, {999, 3002}, {10_000, 7}, {4000, 0}, {0, 10_007}
      };
      for (long[] c : cases) {
        ByteBuffer b = in.read(c[0], (int) c[1]);
        assertThat(b.order()).isEqualTo(ByteOrder.LITTLE_ENDIAN);
        assertThat(bytes(b))
            .as("seed %d, [%d, +%d)", seed, c[0], c[1])
            .isEqualTo(expected(file, c[0], (int) c[1]));
      }
      List<ByteRange> ranges = new ArrayList<>();
      for (int i = 0; i < 200; i++) {
        long pos = r.nextInt(file.length);
        ranges.add(new ByteRange(pos, r.nextInt((int) Math.min(2500, file.length - pos) + 1)));
      }
      List<ByteBuffer> got = in.readRanges(ranges);
      for (int i = 0; i < ranges.size(); i++) {
        ByteRange br = ranges.get(i);
        assertThat(got.get(i).order()).isEqualTo(ByteOrder.LITTLE_ENDIAN);
        assertThat(bytes(got.get(i)))
            .as("seed %d, range %s", seed, br)
            .isEqualTo(expected(file, br.offset(), (int) br.length()));
      }
      // a little-endian view of a range crossing a boundary reads the same floats as the file holds
      ByteBuffer floats = in.read(996, 8);
      ByteBuffer truth = ByteBuffer.wrap(file, 996, 8).order(ByteOrder.LITTLE_ENDIAN);
      assertThat(Float.floatToRawIntBits(floats.getFloat(4)))
          .isEqualTo(Float.floatToRawIntBits(truth.getFloat(1000)));
    }
  }

  @Test
  void mappedReadsAreViewsAndPositionedReadsCopies() throws Exception {
    byte[] file = write("f.bin", 5000, 7);
    try (HadoopFileIO io = new HadoopFileIO(mapped(1 << 20));
        InputFile in = io.newInputFile(uri("f.bin"))) {
      ByteBuffer b = in.read(100, 200);
      assertThat(b.isDirect()).isTrue();
      assertThat(b.isReadOnly()).isTrue();
      assertThat(bytes(b)).isEqualTo(expected(file, 100, 200));
    }
    Configuration off = mapped(1 << 20);
    off.setBoolean(HadoopFileIO.MMAP, false);
    try (HadoopFileIO io = new HadoopFileIO(off);
        InputFile in = io.newInputFile(uri("f.bin"))) {
      ByteBuffer b = in.read(100, 200);
      assertThat(b.hasArray()).isTrue();
      assertThat(bytes(b)).isEqualTo(expected(file, 100, 200));
    }
    Configuration small = mapped(1 << 20);
    small.setLong(HadoopFileIO.MMAP_MIN_FILE_BYTES, 5001);
    try (HadoopFileIO io = new HadoopFileIO(small);
        InputFile in = io.newInputFile(uri("f.bin"))) {
      assertThat(in.read(0, 10).hasArray())
          .as("files under the minimum size are not mapped")
          .isTrue();
    }
  }

  @Test
  void aFileReplacedUnderTheSameNameIsNotReadFromTheOldMap() throws Exception {
    byte[] first = write("f.bin", 4096, 1);
    try (HadoopFileIO io = new HadoopFileIO(mapped(1024))) {
      InputFile before = io.newInputFile(uri("f.bin"));
      assertThat(bytes(before.read(0, 4096))).isEqualTo(first);
      Files.delete(dir.resolve("f.bin"));
      byte[] second = write("f.bin", 4096, 2); // same name, same length, new content
      try (InputFile after = io.newInputFile(uri("f.bin"))) {
        assertThat(bytes(after.read(0, 4096))).isEqualTo(second);
      }
      // a reader opened before the replacement keeps reading the file it opened
      assertThat(bytes(before.read(0, 4096))).isEqualTo(first);
      before.close();
    }
  }

  @Test
  void readsOutsideTheFileAndMissingFilesFailNamingTheFile() throws Exception {
    write("f.bin", 3000, 3);
    try (HadoopFileIO io = new HadoopFileIO(mapped(1000));
        InputFile in = io.newInputFile(uri("f.bin"))) {
      assertThatThrownBy(() -> in.read(2990, 20))
          .isInstanceOf(StorageException.class)
          .hasMessageContaining("f.bin")
          .hasMessageContaining("lie outside the file of 3000 bytes");
    }
    // the manifest says the file is longer than it is
    try (HadoopFileIO io = new HadoopFileIO(mapped(1000));
        InputFile in = io.newInputFile(uri("f.bin"), 5000)) {
      assertThatThrownBy(() -> in.read(2990, 20))
          .isInstanceOf(StorageException.class)
          .hasMessageContaining("f.bin")
          .hasMessageContaining("ends after 3000 bytes");
    }
    try (HadoopFileIO io = new HadoopFileIO(mapped(1000));
        InputFile in = io.newInputFile(uri("missing.bin"))) {
      assertThatThrownBy(() -> in.read(0, 1))
          .isInstanceOf(StorageException.class)
          .hasMessageContaining("missing.bin")
          .hasMessageContaining("does not exist");
    }
  }

  @Test
  void theSharedCacheDropsTheLeastRecentlyOpenedFilesBeyondItsBound() throws Exception {
    MappedFiles cache = new MappedFiles(10_000);
    for (int i = 0; i < 5; i++) {
      write("f" + i + ".bin", 4000, i);
      assertThat(cache.open(dir.resolve("f" + i + ".bin"), 1000, 0)).isNotNull();
    }
    assertThat(cache.size()).isEqualTo(2);
    // deleted files leave the cache when other files are opened
    Files.delete(dir.resolve("f3.bin"));
    Files.delete(dir.resolve("f4.bin"));
    write("f5.bin", 100, 5);
    cache.open(dir.resolve("f5.bin"), 1000, 0);
    assertThat(cache.size()).isEqualTo(1);
    write("tiny.bin", 10, 9);
    assertThat(cache.open(dir.resolve("tiny.bin"), 1000, 11)).isNull();
    assertThatThrownBy(() -> new HadoopFileIO(mapped(1L << 31)))
        .isInstanceOf(dev.lancelot.engine.InvalidInputException.class)
        .hasMessageContaining(HadoopFileIO.MMAP_REGION_BYTES);
  }
}
