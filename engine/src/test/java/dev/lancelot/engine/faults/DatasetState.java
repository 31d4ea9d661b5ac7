package dev.lancelot.engine.faults;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancelot.engine.CloseableIterator;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.DatasetNotFoundException;
import dev.lancelot.engine.OpenOptions;
import dev.lancelot.engine.VersionInfo;
import dev.lancelot.engine.index.IndexSegment;
import dev.lancelot.engine.internal.format.proto.TableProtos.IndexFile;
import dev.lancelot.engine.internal.index.IndexInternals;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.stream.LongStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * What a reader sees of a dataset, read straight from the store (no faults): the latest version,
 * every row id of it (sorted, duplicates kept) and its indexes with the fragments each segment
 * covers. {@code version == 0} means no dataset. Reading it also checks that no partial version is
 * visible: versions run 1..latest without gaps, every manifest parses, every row of the latest
 * reads, and every index file has the size its manifest records.
 */
public record DatasetState(long version, List<Long> ids, TreeMap<String, List<String>> indexes) {
  public static final DatasetState ABSENT = new DatasetState(0, List.of(), new TreeMap<>());

  /** The state of the dataset in the local directory {@code dir}. */
  public static DatasetState read(Path dir, BufferAllocator allocator) {
    return read(dir.toString(), dev.lancelot.engine.io.HadoopFileIO.defaultConf(), allocator);
  }

  /** The state of the dataset at {@code location}, on any store {@code conf} reaches. */
  public static DatasetState read(
      String location, org.apache.hadoop.conf.Configuration conf, BufferAllocator allocator) {
    String dir = location;
    Dataset ds;
    try {
      ds =
          Dataset.open(
              location, OpenOptions.defaults().withHadoopConf(conf).withAllocator(allocator));
    } catch (DatasetNotFoundException e) {
      return ABSENT;
    }
    try (ds) {
      List<Long> versions = ds.versions().stream().map(VersionInfo::version).toList();
      assertThat(versions)
          .as("versions of %s", dir)
          .containsExactlyElementsOf(LongStream.rangeClosed(1, ds.version()).boxed().toList());
      List<Long> ids = new ArrayList<>();
      try (CloseableIterator<VectorSchemaRoot> batches = ds.newScan().columns("id").batches()) {
        while (batches.hasNext()) {
          VectorSchemaRoot batch = batches.next();
          BigIntVector id = (BigIntVector) batch.getVector("id");
          for (int i = 0; i < batch.getRowCount(); i++) {
            ids.add(id.get(i));
          }
        }
      }
      ids.sort(null);
      assertThat((long) ids.size()).as("rows of %s", dir).isEqualTo(ds.countRows());
      TreeMap<String, List<String>> indexes = new TreeMap<>();
      for (String name : ds.indexes().names()) {
        List<String> segments = new ArrayList<>();
        for (IndexSegment s : ds.indexes().segments(name)) {
          segments.add(s.type() + " over fragments " + s.fragments());
          for (IndexFile f : IndexInternals.proto(s).getFilesList()) {
            org.apache.hadoop.fs.Path file =
                new org.apache.hadoop.fs.Path(
                    ds.location().replaceAll("/+$", "") + "/" + s.directory() + "/" + f.getPath());
            try {
              assertThat(file.getFileSystem(conf).getFileStatus(file).getLen())
                  .as("size of %s", file)
                  .isEqualTo(f.getSizeBytes());
            } catch (java.io.IOException e) {
              throw new AssertionError(
                  "Index file " + file + " of version " + ds.version() + " is unreadable", e);
            }
          }
        }
        segments.sort(null);
        indexes.put(name, segments);
      }
      return new DatasetState(ds.version(), List.copyOf(ids), indexes);
    }
  }

  @Override
  public String toString() {
    return version == 0
        ? "no dataset"
        : "version " + version + ", " + ids.size() + " rows, indexes " + indexes;
  }
}
