package dev.lancelot.engine.internal.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.CacheKind;
import dev.lancelot.engine.internal.util.MemoryCache;
import dev.lancelot.engine.io.HadoopFileIO;
import dev.lancelot.engine.io.InputFile;
import dev.lancelot.engine.io.StorageException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Readers opened through a {@link FileStructureCache} share one parsed structure per file. */
@Tag("oracle")
class FileStructureCacheTest {
  @TempDir Path dir;

  private Path write(BufferAllocator allocator, String name, int rows) throws Exception {
    Path path = dir.resolve(name);
    List<VectorSchemaRoot> batches = List.of(FoundationData.batch(allocator, 0, rows, 3));
    OracleFiles.write(path, allocator, null, batches);
    batches.forEach(VectorSchemaRoot::close);
    return path;
  }

  @Test
  void secondOpenReusesTheMetadataAndReadsTheSameRows() throws Exception {
    try (BufferAllocator allocator = new RootAllocator()) {
      Path path = write(allocator, "a.lance", 500);
      FileStructureCache cache = new FileStructureCache(new MemoryCache(Long.MAX_VALUE));
      String location = path.toUri().toString();
      try (InputFile first = HadoopFileIO.local().newInputFile(location);
          InputFile second = HadoopFileIO.local().newInputFile(location)) {
        LanceFileReader a = LanceFileReader.open(first, cache);
        LanceFileReader b = LanceFileReader.open(second, cache);
        assertThat(b.metadata()).isSameAs(a.metadata());
        assertThat(cache.size()).isEqualTo(1);
        try (VectorSchemaRoot x = a.take(new int[] {0, 1}, new long[] {3, 250, 499}, allocator);
            VectorSchemaRoot y = b.take(new int[] {0, 1}, new long[] {3, 250, 499}, allocator)) {
          assertThat(y.contentToTSVString()).isEqualTo(x.contentToTSVString());
        }
      }
    }
  }

  @Test
  void leastRecentlyUsedFilesAreDroppedBeyondTheBudget() throws Exception {
    try (BufferAllocator allocator = new RootAllocator()) {
      List<String> locations = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        locations.add(write(allocator, "f" + i + ".lance", 10 + i).toUri().toString());
      }
      // a budget that holds any two of the files but not all three
      MemoryCache measured = new MemoryCache(Long.MAX_VALUE);
      FileStructureCache measuring = new FileStructureCache(measured);
      for (String location : locations) {
        try (InputFile in = HadoopFileIO.local().newInputFile(location)) {
          LanceFileReader.open(in, measuring);
        }
      }
      long threeFiles = measured.stats(CacheKind.FILE_METADATA).bytes();
      FileStructureCache cache = new FileStructureCache(new MemoryCache(threeFiles - 1));
      List<LanceFileReader> readers = new ArrayList<>();
      for (String location : locations) {
        try (InputFile in = HadoopFileIO.local().newInputFile(location)) {
          readers.add(LanceFileReader.open(in, cache));
        }
      }
      assertThat(cache.size()).isEqualTo(2);
      try (InputFile in = HadoopFileIO.local().newInputFile(locations.get(0))) {
        // the first file was evicted: opening it again parses it anew
        assertThat(LanceFileReader.open(in, cache).metadata())
            .isNotSameAs(readers.get(0).metadata());
      }
      try (InputFile in = HadoopFileIO.local().newInputFile(locations.get(2))) {
        assertThat(LanceFileReader.open(in, cache).metadata()).isSameAs(readers.get(2).metadata());
      }
    }
  }

  @Test
  void instancesOverOneSessionCacheShareNoFile() throws Exception {
    try (BufferAllocator allocator = new RootAllocator()) {
      String location = write(allocator, "shared.lance", 20).toUri().toString();
      MemoryCache memory = new MemoryCache(Long.MAX_VALUE);
      FileStructureCache a = new FileStructureCache(memory);
      FileStructureCache b = new FileStructureCache(memory);
      try (InputFile first = HadoopFileIO.local().newInputFile(location);
          InputFile second = HadoopFileIO.local().newInputFile(location)) {
        LanceFileReader x = LanceFileReader.open(first, a);
        LanceFileReader y = LanceFileReader.open(second, b);
        // each dataset context reads its files as they were when it parsed them
        assertThat(y.metadata()).isNotSameAs(x.metadata());
        assertThat(LanceFileReader.open(first, a).metadata()).isSameAs(x.metadata());
      }
      assertThat(a.size()).isEqualTo(1);
      assertThat(b.size()).isEqualTo(1);
      assertThat(memory.stats(CacheKind.FILE_METADATA).entries()).isEqualTo(2);
      assertThat(memory.stats(CacheKind.FILE_METADATA).hits()).isEqualTo(1);
      a.clear();
      assertThat(a.size()).isZero();
      assertThat(b.size()).isEqualTo(1);
    }
  }

  @Test
  void aFileThatFailsToOpenIsNotCached() throws Exception {
    Path bad = dir.resolve("bad.lance");
    Files.write(bad, new byte[100]);
    FileStructureCache cache = new FileStructureCache(new MemoryCache(Long.MAX_VALUE));
    try (InputFile in = HadoopFileIO.local().newInputFile(bad.toUri().toString())) {
      assertThatThrownBy(() -> LanceFileReader.open(in, cache))
          .isInstanceOf(LanceFileException.class)
          .hasMessageContaining("bad.lance");
    }
    assertThat(cache.size()).isZero();
  }

  @Test
  void aMissingLocalFileIsNamed() {
    String location = dir.resolve("missing.lance").toUri().toString();
    try (InputFile in = HadoopFileIO.local().newInputFile(location)) {
      assertThatThrownBy(in::length)
          .isInstanceOf(StorageException.class)
          .hasMessageContaining("missing.lance")
          .hasMessageContaining("does not exist");
    }
    try (InputFile in = HadoopFileIO.local().newInputFile(location, 64)) {
      assertThatThrownBy(() -> in.read(0, 8))
          .isInstanceOf(StorageException.class)
          .hasMessageContaining("missing.lance")
          .hasMessageContaining("does not exist");
    }
  }

  @Test
  void readingPastTheEndOfAFileWhoseLengthWasGivenFailsClearly() throws Exception {
    Path small = dir.resolve("small.bin");
    Files.write(small, new byte[10]);
    // the manifest claims more bytes than the file holds (a truncated file)
    try (InputFile in = HadoopFileIO.local().newInputFile(small.toUri().toString(), 20)) {
      assertThatThrownBy(() -> in.read(5, 10))
          .isInstanceOf(StorageException.class)
          .hasMessageContaining("small.bin");
    }
  }
}
