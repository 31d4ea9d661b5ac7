package dev.lancelot.engine.internal.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.internal.format.proto.TableProtos.DeletionFile;
import dev.lancelot.engine.io.HadoopFileIO;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.roaringbitmap.RoaringBitmap;

/** Deletion files: offsets outside the fragment are a damaged file, named in the error. */
class DeletionFilesTest {
  @Test
  void offsetsInsideTheFragmentReadBack(@TempDir Path tmp) {
    try (HadoopFileIO io = HadoopFileIO.local()) {
      String root = tmp.toUri().toString();
      RoaringBitmap deleted = RoaringBitmap.bitmapOf(0, 7, 99);
      DeletionFile entry = DeletionFiles.write(io, root, 3, 1, deleted);
      assertThat(DeletionFiles.read(io, root, 3, entry, 100)).isEqualTo(deleted);
    }
  }

  @Test
  void anOffsetPastTheFragmentsRowsIsACorruptFileNamingIt(@TempDir Path tmp) {
    try (HadoopFileIO io = HadoopFileIO.local()) {
      String root = tmp.toUri().toString();
      DeletionFile entry = DeletionFiles.write(io, root, 3, 1, RoaringBitmap.bitmapOf(0, 100));
      assertThatThrownBy(() -> DeletionFiles.read(io, root, 3, entry, 100))
          .isInstanceOf(CorruptFileException.class)
          .hasMessageContaining(DeletionFiles.relativePath(3, entry))
          .hasMessageContaining("row offset 100 of a fragment of 100 rows");
    }
  }

  @Test
  void anOffsetAtOrAbove2To31IsRefusedEvenWithoutARecordedRowCount(@TempDir Path tmp) {
    // An unsigned offset that reads as a negative int would otherwise reach the scan's bit sets.
    try (HadoopFileIO io = HadoopFileIO.local()) {
      String root = tmp.toUri().toString();
      DeletionFile entry =
          DeletionFiles.write(io, root, 0, 1, RoaringBitmap.bitmapOf(5, 0xE2000000));
      assertThatThrownBy(() -> DeletionFiles.read(io, root, 0, entry))
          .isInstanceOf(CorruptFileException.class)
          .hasMessageContaining("row offset " + Integer.toUnsignedLong(0xE2000000));
    }
  }
}
