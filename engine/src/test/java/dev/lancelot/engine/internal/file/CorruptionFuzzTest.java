package dev.lancelot.engine.internal.file;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancelot.engine.io.HadoopFileIO;
import dev.lancelot.engine.io.InputFile;
import dev.lancelot.engine.io.StorageException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * F6 under random damage: flipping bytes anywhere in a file (metadata, chunk tables, chunks,
 * encodings) yields either a read or an error of the file's own types naming the file — never
 * another exception, a crash or a hang. (Lance files have no checksums, so damaged values may still
 * decode; refusing every such file is impossible.)
 */
@Tag("oracle")
class CorruptionFuzzTest {
  static final int ITERATIONS = Integer.getInteger("lancelot.fuzz.iterations", 100);

  @TempDir Path dir;

  @Test
  void randomByteFlipsFailCleanly() throws Exception {
    Path good = dir.resolve("good.lance");
    try (BufferAllocator allocator = new RootAllocator()) {
      List<String> names =
          List.of(
              "int64_nulls_bitpacked",
              "utf8_names_nulls",
              "utf8_low_cardinality",
              "utf8_300_1000_nulls",
              "fsl_f32_16_nulls",
              "int64_long_runs",
              "bool_nulls",
              "utf8_over_32k");
      List<Field> fields = new ArrayList<>();
      List<VectorSchemaRoot> columns = new ArrayList<>();
      for (String n : names) {
        Shapes.Shape s =
            Shapes.all().stream().filter(x -> x.name().equals(n)).findFirst().orElseThrow();
        VectorSchemaRoot one = Shapes.batch(s, allocator, 1, 40);
        columns.add(one);
        fields.add(
            new Field(
                n,
                one.getVector(0).getField().getFieldType(),
                one.getVector(0).getField().getChildren()));
      }
      List<org.apache.arrow.vector.FieldVector> vectors = new ArrayList<>();
      for (int i = 0; i < columns.size(); i++) {
        org.apache.arrow.vector.FieldVector v = columns.get(i).getVector(0);
        org.apache.arrow.vector.FieldVector renamed = fields.get(i).createVector(allocator);
        v.makeTransferPair(renamed).transfer();
        vectors.add(renamed);
      }
      try (VectorSchemaRoot root = new VectorSchemaRoot(fields, vectors, 40)) {
        OracleFiles.write(good, allocator, null, List.of(root));
      }
      columns.forEach(VectorSchemaRoot::close);

      byte[] original = Files.readAllBytes(good);
      Random r = new Random(2024);
      int refused = 0;
      for (int iteration = 0; iteration < ITERATIONS; iteration++) {
        byte[] bytes = original.clone();
        int flips = 1 + r.nextInt(4);
        // half of the damage lands in the metadata tail, where decoding decisions are made
        for (int f = 0; f < flips; f++) {
          int pos =
              r.nextBoolean()
                  ? r.nextInt(bytes.length)
                  : bytes.length - 1 - r.nextInt(Math.min(bytes.length, 4096));
          bytes[pos] ^= (byte) (1 << r.nextInt(8));
        }
        Path p = dir.resolve("damaged-" + iteration + ".lance");
        Files.write(p, bytes);
        Throwable t =
            Assertions.assertTimeoutPreemptively(
                Duration.ofSeconds(20),
                () -> readEverything(p, allocator),
                "iteration " + iteration);
        if (t != null) {
          refused++;
          assertThat(t)
              .as("iteration %d", iteration)
              .isInstanceOfAny(
                  LanceFileException.class,
                  StorageException.class,
                  dev.lancelot.engine.schema.SchemaException.class);
          assertThat(t.getMessage())
              .as("iteration %d: %s", iteration, t.getMessage())
              .contains(p.getFileName().toString());
        }
        Files.delete(p);
      }
      System.out.println("refused " + refused + " of " + ITERATIONS + " damaged files");
      assertThat(refused).isGreaterThan(ITERATIONS / 6);
    }
  }

  private static Throwable readEverything(Path p, BufferAllocator allocator) {
    try (InputFile in = HadoopFileIO.local().newInputFile(p.toUri().toString())) {
      LanceFileReader reader = LanceFileReader.open(in);
      FileProjection all = FileProjection.all(reader.schema());
      try (LanceBatchReader batches = reader.read(all, 17, allocator)) {
        while (batches.loadNextBatch()) {
          batches.getVectorSchemaRoot();
        }
      }
      try (VectorSchemaRoot taken = reader.take(all, new long[] {0, 5, 39}, allocator)) {
        taken.getRowCount();
      }
      return null;
    } catch (RuntimeException | java.io.IOException e) {
      return e;
    }
  }
}
