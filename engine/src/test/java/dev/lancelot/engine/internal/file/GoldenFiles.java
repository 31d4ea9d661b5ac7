package dev.lancelot.engine.internal.file;

import dev.lancelot.engine.io.HadoopFileIO;
import dev.lancelot.engine.schema.LanceSchema;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * The golden files under {@code src/test/resources/golden}: files written once by lance-core 7.0.0
 * (every layout and encoding it emits for the shapes below) and by lancelot's writer. Their values
 * are regenerated from {@link Shapes} with fixed seeds, so the files need no sidecar. Regenerate
 * with {@code main} (the directory as argument) only on purpose.
 */
final class GoldenFiles {
  /**
   * A golden file: name, writer, format version (null = default), rows and shapes (one column
   * each).
   */
  record Golden(String file, boolean lance, String version, int rows, List<String> shapes) {}

  static final List<Golden> ALL =
      List.of(
          new Golden(
              "lance-7.0.0-narrow.lance",
              true,
              null,
              2000,
              List.of(
                  "int64_sequential",
                  "int64_random",
                  "int64_long_runs",
                  "int64_nulls",
                  "int32_tenant_skewed",
                  "int8_small",
                  "bool_nulls",
                  "float64_random",
                  "utf8_names_nulls",
                  "utf8_low_cardinality",
                  "large_utf8",
                  "int64_all_null")),
          new Golden(
              "lance-7.0.0-wide.lance",
              true,
              null,
              120,
              List.of(
                  "fsl_f32_128_nulls", "utf8_300_1000_nulls", "fsl_uint8_300", "fsl_f32_16_nulls")),
          new Golden("lance-7.0.0-huge-strings.lance", true, null, 3, List.of("utf8_over_32k")),
          new Golden(
              "lance-7.0.0-format-2.2.lance",
              true,
              "2.2",
              2000,
              List.of(
                  "int64_nulls",
                  "int64_constant",
                  "utf8_constant_nulls",
                  "int64_small_range",
                  "utf8_low_cardinality_nulls",
                  "bool_constant")),
          new Golden(
              "lancelot-writer.lance",
              false,
              null,
              80,
              List.of(
                  "int64_nulls",
                  "bool_nulls",
                  "utf8_names_nulls",
                  "utf8_300_1000_nulls",
                  "fsl_f32_16_nulls",
                  "fsl_f32_128_nulls",
                  "int64_all_null")));

  private GoldenFiles() {}

  static Shapes.Shape shape(String name) {
    return Shapes.all().stream().filter(s -> s.name().equals(name)).findFirst().orElseThrow();
  }

  /** The batch a golden file holds: column {@code shape} filled from seed 42. */
  static VectorSchemaRoot batch(Golden g, BufferAllocator allocator) {
    List<Field> fields = new ArrayList<>();
    List<FieldVector> vectors = new ArrayList<>();
    for (String name : g.shapes()) {
      try (VectorSchemaRoot one = Shapes.batch(shape(name), allocator, 42, g.rows())) {
        Field f = one.getVector(0).getField();
        Field renamed = new Field(name, f.getFieldType(), f.getChildren());
        FieldVector v = renamed.createVector(allocator);
        one.getVector(0).makeTransferPair(v).transfer();
        fields.add(renamed);
        vectors.add(v);
      }
    }
    return new VectorSchemaRoot(fields, vectors, g.rows());
  }

  static void write(Golden g, Path path, BufferAllocator allocator) {
    try (VectorSchemaRoot root = batch(g, allocator)) {
      if (g.lance()) {
        OracleFiles.write(path, allocator, g.version(), List.of(root));
      } else {
        try (LanceFileWriter w =
            LanceFileWriter.create(
                HadoopFileIO.local().create(path.toUri().toString()),
                LanceSchema.fromArrow(root.getSchema()),
                WriterOptions.defaults().withMaxPageBytes(32 * 1024))) {
          w.write(root);
          w.finish();
        }
      }
    }
  }

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args.length > 0 ? args[0] : "src/test/resources/golden");
    Files.createDirectories(dir);
    try (BufferAllocator allocator = new RootAllocator()) {
      for (Golden g : ALL) {
        Path p = dir.resolve(g.file());
        Files.deleteIfExists(p);
        write(g, p, allocator);
        System.out.println(p + ": " + Files.size(p) + " bytes");
      }
    }
  }
}
