package dev.lancelot.engine.faults;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancelot.engine.FragmentMetadata;
import dev.lancelot.engine.WriteMode;
import dev.lancelot.engine.WriteOptions;
import dev.lancelot.engine.distributed.DistributedWrite;
import dev.lancelot.engine.internal.write.FragmentWriter;
import dev.lancelot.engine.schema.LanceSchema;
import dev.lancelot.engine.testing.StandardData;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Aborting a distributed write after its commit was reported as failed: a commit whose outcome is
 * unknown may have been published, so the files the latest version refers to are kept.
 */
class AbortFragmentsTest {
  @Test
  void abortKeepsFilesTheLatestVersionRefersToAndDeletesTheOthers(@TempDir Path dir)
      throws IOException {
    try (BufferAllocator allocator = new RootAllocator()) {
      String location = dir.toString();
      LanceSchema schema = LanceSchema.fromArrow(StandardData.schema(FaultedOperation.DIM));
      List<FragmentMetadata> committed = writeFragments(allocator, location, schema, 0);
      DistributedWrite.commit(location, null, schema, committed, WriteMode.CREATE, 0).close();
      List<FragmentMetadata> uncommitted = writeFragments(allocator, location, schema, 100);

      DistributedWrite.abort(location, null, committed);
      DistributedWrite.abort(location, null, uncommitted);

      for (FragmentMetadata f : committed) {
        assertThat(dir.resolve("data").resolve(f.dataFiles().get(0))).exists();
      }
      for (FragmentMetadata f : uncommitted) {
        assertThat(dir.resolve("data").resolve(f.dataFiles().get(0))).doesNotExist();
      }
      assertThat(DatasetState.read(dir, allocator).ids()).hasSize(50);
      try (var files = Files.list(dir.resolve("data"))) {
        assertThat(files.count()).isEqualTo(committed.size());
      }
    }
  }

  static List<FragmentMetadata> writeFragments(
      BufferAllocator allocator, String location, LanceSchema schema, long firstId)
      throws IOException {
    try (ArrowReader data = FaultedOperation.rows(allocator, firstId, 50)) {
      return DistributedWrite.writeFragments(
          location,
          null,
          schema,
          FragmentWriter.batchesOf(data),
          WriteOptions.of(WriteMode.CREATE));
    }
  }
}
