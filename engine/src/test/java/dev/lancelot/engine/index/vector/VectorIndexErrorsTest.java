package dev.lancelot.engine.index.vector;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.WriteMode;
import dev.lancelot.engine.WriteOptions;
import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.query.VectorQuery;
import dev.lancelot.engine.query.VectorSearch;
import dev.lancelot.engine.testing.ArrowStreams;
import dev.lancelot.engine.testing.ClusteredData;
import dev.lancelot.engine.vector.DistanceMetric;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Bad input to index builds and a damaged index file: errors that say what to change. */
class VectorIndexErrorsTest {
  static final int DIM = 12;
  static BufferAllocator allocator;

  @BeforeAll
  static void setUp() {
    allocator = new RootAllocator();
  }

  @AfterAll
  static void tearDown() {
    allocator.close();
  }

  static Dataset write(Path dir, int rows, java.util.function.Consumer<VectorSchemaRoot> edit)
      throws Exception {
    try (VectorSchemaRoot b = ClusteredData.generate(allocator, 0, rows, DIM, 10, 1)) {
      edit.accept(b);
      try (ArrowReader r = ArrowStreams.readerOf(allocator, List.of(b))) {
        return Dataset.write(dir.toString(), r, WriteOptions.of(WriteMode.CREATE));
      }
    }
  }

  @Test
  void unknownIndexType() {
    assertThatThrownBy(() -> VectorIndexSpec.of("IVF_XYZ", "l2"))
        .hasMessageContaining("IVF_XYZ")
        .hasMessageContaining("Use one of IVF_FLAT, IVF_PQ");
  }

  @Test
  void wrongColumnType(@TempDir Path tmp) throws Exception {
    try (Dataset ds = write(tmp, 500, b -> {})) {
      assertThatThrownBy(
              () ->
                  VectorIndexes.create(
                      ds,
                      "tenant_id",
                      VectorIndexSpec.of(IndexType.IVF_FLAT, DistanceMetric.L2)
                          .withNumPartitions(2)))
          .hasMessageContaining("tenant_id")
          .hasMessageContaining("vector");
      assertThatThrownBy(
              () ->
                  VectorIndexes.create(
                      ds,
                      "nope",
                      VectorIndexSpec.of(IndexType.IVF_FLAT, DistanceMetric.L2)
                          .withNumPartitions(2)))
          .hasMessageContaining("nope");
    }
  }

  @Test
  void dimensionNotDivisibleByNumSubVectors(@TempDir Path tmp) throws Exception {
    try (Dataset ds = write(tmp, 500, b -> {})) {
      assertThatThrownBy(
              () ->
                  VectorIndexes.create(
                      ds,
                      "vector",
                      VectorIndexSpec.of(IndexType.IVF_PQ, DistanceMetric.L2)
                          .withNumPartitions(2)
                          .withNumSubVectors(5)))
          .hasMessageContaining("12")
          .hasMessageContaining("5")
          .hasMessageContaining("num_sub_vectors");
    }
  }

  @Test
  void tooFewRowsToTrain(@TempDir Path tmp) throws Exception {
    try (Dataset ds = write(tmp, 20, b -> {})) {
      assertThatThrownBy(
              () ->
                  VectorIndexes.create(
                      ds,
                      "vector",
                      VectorIndexSpec.of(IndexType.IVF_FLAT, DistanceMetric.L2)
                          .withNumPartitions(64)))
          .hasMessageContaining("20")
          .hasMessageContaining("64");
    }
  }

  @Test
  void nanAndNullVectors(@TempDir Path tmp) throws Exception {
    try (Dataset ds =
        write(
            tmp.resolve("nan"),
            500,
            b ->
                ((Float4Vector) ((FixedSizeListVector) b.getVector("vector")).getDataVector())
                    .set(37 * DIM + 3, Float.NaN))) {
      assertThatThrownBy(
              () ->
                  VectorIndexes.create(
                      ds,
                      "vector",
                      VectorIndexSpec.of(IndexType.IVF_PQ, DistanceMetric.L2)
                          .withNumPartitions(2)
                          .withNumSubVectors(4)))
          .hasMessageContaining("NaN");
    }
    try (Dataset ds =
        write(
            tmp.resolve("null"),
            500,
            b -> ((FixedSizeListVector) b.getVector("vector")).setNull(41))) {
      assertThatThrownBy(
              () ->
                  VectorIndexes.create(
                      ds,
                      "vector",
                      VectorIndexSpec.of(IndexType.IVF_FLAT, DistanceMetric.L2)
                          .withNumPartitions(2)))
          .hasMessageContaining("null");
    }
  }

  @Test
  void corruptIndexFileNamesTheFile(@TempDir Path tmp) throws Exception {
    try (Dataset ds = write(tmp, 1000, b -> {})) {
      VectorIndexes.create(
              ds,
              "vector",
              VectorIndexSpec.of(IndexType.IVF_PQ, DistanceMetric.L2)
                  .withNumPartitions(4)
                  .withNumSubVectors(4))
          .close();
    }
    Path idx;
    try (Stream<Path> files = Files.walk(tmp.resolve("_indices"))) {
      idx =
          files
              .filter(p -> p.getFileName().toString().equals("index.idx"))
              .findFirst()
              .orElseThrow();
    }
    try (RandomAccessFile f = new RandomAccessFile(idx.toFile(), "rw")) {
      f.seek(f.length() - 40);
      f.write(new byte[40]); // the footer
    }
    try (Dataset ds = Dataset.open(tmp.toString())) {
      float[] q = new float[DIM];
      assertThatThrownBy(
              () -> VectorSearch.search(ds, VectorQuery.builder("vector").vector(q).k(3).build()))
          .hasMessageContaining("index.idx");
    }
  }
}
