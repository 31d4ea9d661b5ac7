package dev.lancelot.engine.internal.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.io.HadoopFileIO;
import dev.lancelot.engine.io.InputFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** F6: truncated, corrupt and unsupported files fail with errors naming the file and the reason. */
@Tag("oracle")
class CorruptFileTest {
  @TempDir static Path dir;
  static BufferAllocator allocator;
  static byte[] good;

  @BeforeAll
  static void setUp() throws Exception {
    allocator = new RootAllocator();
    Path path = dir.resolve("good.lance");
    try (VectorSchemaRoot b = FoundationData.batch(allocator, 0, 500, 1)) {
      OracleFiles.write(path, allocator, null, List.of(b));
    }
    good = Files.readAllBytes(path);
  }

  @AfterAll
  static void tearDown() {
    allocator.close();
  }

  private static LanceFileReader open(String name, byte[] bytes) throws Exception {
    Path p = dir.resolve(name);
    Files.write(p, bytes);
    InputFile in = HadoopFileIO.local().newInputFile(p.toUri().toString());
    return LanceFileReader.open(in);
  }

  private static void readAll(LanceFileReader reader) throws Exception {
    try (LanceBatchReader r = reader.read(FileProjection.all(reader.schema()), 100, allocator)) {
      while (r.loadNextBatch()) {
        r.getVectorSchemaRoot();
      }
    }
  }

  @Test
  void badMagicIsRefused() {
    byte[] bytes = good.clone();
    bytes[bytes.length - 1] = 'X';
    assertThatThrownBy(() -> open("bad-magic.lance", bytes))
        .isInstanceOf(CorruptFileException.class)
        .hasMessageContaining("bad-magic.lance")
        .hasMessageContaining("magic");
  }

  @Test
  void truncatedFileIsRefused() {
    byte[] bytes = Arrays.copyOf(good, good.length / 2);
    assertThatThrownBy(() -> open("truncated.lance", bytes))
        .isInstanceOf(CorruptFileException.class)
        .hasMessageContaining("truncated.lance");
  }

  @Test
  void fileShorterThanTheFooterIsRefused() {
    assertThatThrownBy(() -> open("tiny.lance", new byte[] {'L', 'A', 'N', 'C'}))
        .isInstanceOf(CorruptFileException.class)
        .hasMessageContaining("tiny.lance")
        .hasMessageContaining("shorter than the 40-byte footer");
  }

  @Test
  void inconsistentFooterIsRefused() {
    byte[] bytes = good.clone();
    ByteBuffer footer = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    int base = bytes.length - 40;
    footer.putInt(base + 28, 1000); // claims 1000 columns
    assertThatThrownBy(() -> open("bad-footer.lance", bytes))
        .isInstanceOf(CorruptFileException.class)
        .hasMessageContaining("bad-footer.lance")
        .hasMessageContaining("footer is inconsistent");
  }

  @Test
  void columnMetadataPointingOutsideItsSectionIsRefused() {
    byte[] bytes = good.clone();
    ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    long cmo = b.getLong(bytes.length - 32);
    b.putLong((int) cmo, bytes.length + 100L);
    assertThatThrownBy(() -> open("bad-cmo.lance", bytes))
        .isInstanceOf(CorruptFileException.class)
        .hasMessageContaining("bad-cmo.lance")
        .hasMessageContaining("metadata of column 0");
  }

  @Test
  void unknownVersionIsRefused() {
    byte[] bytes = good.clone();
    ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).putShort(bytes.length - 6, (short) 9);
    assertThatThrownBy(() -> open("v2-9.lance", bytes))
        .isInstanceOf(UnsupportedFileFeatureException.class)
        .hasMessageContaining("v2-9.lance")
        .hasMessageContaining("2.9");
  }

  @Test
  void corruptChunkTableFailsAtReadNamingColumnAndPage() throws Exception {
    LanceFileReader reader = open("chunk-ok.lance", good);
    long tableOffset = reader.metadata().column(0).pages().get(0).bufferOffset(0);
    byte[] bytes = good.clone();
    bytes[(int) tableOffset + 1] = (byte) 0xFF; // chunk 0 claims ~32 KiB
    LanceFileReader broken = open("bad-chunks.lance", bytes);
    assertThatThrownBy(() -> readAll(broken))
        .isInstanceOf(CorruptFileException.class)
        .hasMessageContaining("bad-chunks.lance")
        .hasMessageContaining("column \"id\"")
        .hasMessageContaining("page 0");
  }

  @Test
  void format20FilesReadAndCorruptIndicesFailNamingColumnAndPage() throws Exception {
    Path p = dir.resolve("v20.lance");
    try (VectorSchemaRoot b = FoundationData.batch(allocator, 0, 100, 1)) {
      OracleFiles.write(p, allocator, "2.0", List.of(b));
    }
    byte[] bytes = java.nio.file.Files.readAllBytes(p);
    LanceFileReader reader = open("v20-ok.lance", bytes);
    assertThat(reader.version()).isEqualTo(FileVersion.V2_0);
    assertThat(reader.schema().names()).containsExactly("id", "tenant_id", "name", "vec");
    readAll(reader);
    // the "name" column's first indices (Binary ends or Dictionary indices) point past their data
    long indices = reader.metadata().column(2).pages().get(0).bufferOffset(0);
    java.util.Arrays.fill(bytes, (int) indices, (int) indices + 8, (byte) 0x7F);
    LanceFileReader broken = open("v20-bad.lance", bytes);
    assertThatThrownBy(() -> readAll(broken))
        .isInstanceOf(CorruptFileException.class)
        .hasMessageContaining("v20-bad.lance")
        .hasMessageContaining("column \"name\"")
        .hasMessageContaining("page 0")
        .hasMessageContaining("The file is corrupt");
  }

  @Test
  void format20EncodingsLanceNoLongerWritesAreUnsupportedNamingThem() {
    var bitpacked =
        dev.lancelot.engine.internal.file.proto.Encodings20Protos.ArrayEncoding.newBuilder()
            .setBitpacked(
                dev.lancelot.engine.internal.file.proto.Encodings20Protos.Bitpacked.newBuilder()
                    .setCompressedBitsPerValue(3)
                    .setUncompressedBitsPerValue(32))
            .build();
    var page =
        new dev.lancelot.engine.internal.file.container.PageInfo(
            0,
            0,
            10,
            new long[] {0},
            new long[] {8},
            null,
            "/lance.encodings.ArrayEncoding",
            bitpacked);
    assertThatThrownBy(() -> dev.lancelot.engine.internal.file.layout.Layouts.reader(page))
        .isInstanceOf(dev.lancelot.engine.internal.file.codec.DecodeException.class)
        .hasMessageContaining("format 2.0 encoding BITPACKED")
        .satisfies(
            e ->
                assertThat(
                        ((dev.lancelot.engine.internal.file.codec.DecodeException) e)
                            .isUnsupported())
                    .isTrue());
  }
}
