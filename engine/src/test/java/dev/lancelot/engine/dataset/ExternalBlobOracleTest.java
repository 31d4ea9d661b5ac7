package dev.lancelot.engine.dataset;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.Blob;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.testing.ArrowStreams;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.LargeVarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * External blobs (blob v2 kind 3) as lance-core 7.0.0 writes them with {@code
 * allowExternalBlobOutsideBases}: an absolute URI, position and size 0 for the whole object.
 * lancelot reads those under the dataset's root, byte for byte as lance-core's {@code BlobFile},
 * and refuses the others naming the URI.
 */
@Tag("oracle")
class ExternalBlobOracleTest {
  @TempDir Path dir;

  @Test
  void readsExternalBlobsUnderTheRootAndRefusesOthers() throws Exception {
    Path root = dir.resolve("ds");
    Files.createDirectories(root.resolve("media"));
    byte[] inside = new byte[300_000];
    for (int i = 0; i < inside.length; i++) {
      inside[i] = (byte) (i * 13 + (i >> 8));
    }
    Path insideFile = root.resolve("media/inside.bin");
    Files.write(insideFile, inside);
    Path outsideFile = dir.resolve("outside.bin");
    Files.write(outsideFile, "not for you".getBytes(StandardCharsets.UTF_8));
    String[] uris = {insideFile.toUri().toString(), null, outsideFile.toUri().toString(), null};
    try (BufferAllocator allocator = new RootAllocator()) {
      Field b =
          new Field(
              "b",
              new FieldType(
                  true,
                  ArrowType.Struct.INSTANCE,
                  null,
                  Map.of("ARROW:extension:name", "lance.blob.v2")),
              List.of(
                  Field.nullable("data", ArrowType.LargeBinary.INSTANCE),
                  Field.nullable("uri", ArrowType.Utf8.INSTANCE)));
      Schema schema = new Schema(List.of(Field.nullable("id", new ArrowType.Int(64, true)), b));
      try (VectorSchemaRoot batch = VectorSchemaRoot.create(schema, allocator)) {
        batch.allocateNew();
        StructVector st = (StructVector) batch.getVector(1);
        LargeVarBinaryVector data = (LargeVarBinaryVector) st.getChild("data");
        VarCharVector uri = (VarCharVector) st.getChild("uri");
        for (int i = 0; i < 4; i++) {
          ((BigIntVector) batch.getVector(0)).setSafe(i, i);
          if (i == 3) {
            st.setNull(i);
            continue;
          }
          st.setIndexDefined(i);
          if (uris[i] != null) {
            data.setNull(i);
            uri.setSafe(i, uris[i].getBytes(StandardCharsets.UTF_8));
          } else {
            data.setSafe(i, "inline".getBytes(StandardCharsets.UTF_8));
            uri.setNull(i);
          }
        }
        batch.setRowCount(4);
        try (ArrowReader source = ArrowStreams.readerOf(allocator, List.of(batch));
            org.lance.Dataset lance =
                org.lance.Dataset.write()
                    .allocator(allocator)
                    .reader(source)
                    .uri(root.toString())
                    .dataStorageVersion("2.2")
                    .allowExternalBlobOutsideBases(true)
                    .execute()) {
          try (org.lance.BlobFile theirs = lance.takeBlobs(List.of(0L), "b").get(0);
              Dataset ds = Dataset.open(root.toString());
              Blob ours = ds.openBlob("b", 0).orElseThrow()) {
            assertThat(ours.size()).isEqualTo(theirs.size()).isEqualTo(inside.length);
            assertThat(ours.readAll()).isEqualTo(theirs.readRange(0, inside.length));
            assertThat(ours.read(123_456, 1000))
                .isEqualTo(theirs.readRange(123_456, 1000))
                .isEqualTo(Arrays.copyOfRange(inside, 123_456, 124_456));
            // a take of the rows under the root reads the external object like any blob
            try (VectorSchemaRoot taken = ds.take(new long[] {0, 1, 3}, List.of("b"))) {
              LargeVarBinaryVector got = (LargeVarBinaryVector) taken.getVector(0);
              assertThat(got.get(0)).isEqualTo(inside);
              assertThat(new String(got.get(1), StandardCharsets.UTF_8)).isEqualTo("inline");
              assertThat(got.isNull(2)).isTrue();
            }
            // lance-core reads the URI outside the root; lancelot refuses it, naming it
            try (org.lance.BlobFile outside = lance.takeBlobs(List.of(2L), "b").get(0)) {
              assertThat(outside.size()).isEqualTo(11);
            }
            assertThatThrownBy(() -> ds.openBlob("b", 2))
                .hasMessageContaining(outsideFile.toUri().toString().replace("file:///", ""))
                .hasMessageContaining("outside the dataset's root");
            assertThatThrownBy(() -> ds.take(new long[] {2}, List.of("b")).close())
                .hasMessageContaining("outside the dataset's root");
          }
        }
      }
    }
  }
}
