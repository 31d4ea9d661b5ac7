package dev.lancelot.cli;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.OpenOptions;
import dev.lancelot.engine.WriteMode;
import dev.lancelot.engine.WriteOptions;
import dev.lancelot.engine.testing.ArrowStreams;
import dev.lancelot.engine.testing.StandardData;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;

/** Small seeded datasets for command tests, and a way to run a command and capture its output. */
final class CliData {
  static final int DIM = 16;
  static final long SEED = 7;

  private CliData() {}

  /**
   * Writes (or appends) the standard table ({@code id, tenant_id, name, vector}) with {@code rows}
   * rows from id {@code firstId}, in fragments of {@code rowsPerFile} rows.
   */
  static void write(Path dir, long firstId, int rows, WriteMode mode, int rowsPerFile) {
    try (BufferAllocator allocator = new RootAllocator()) {
      try (VectorSchemaRoot batch = StandardData.generate(allocator, firstId, rows, DIM, SEED);
          ArrowReader reader = ArrowStreams.readerOf(allocator, List.of(batch));
          Dataset ds =
              Dataset.write(
                  dir.toString(),
                  reader,
                  WriteOptions.of(mode).withMaxRowsPerFile(rowsPerFile),
                  OpenOptions.defaults().withAllocator(allocator))) {
        ds.version();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  /** The outcome of one {@code Main.run}. */
  record Result(int code, String out, String err) {}

  static Result run(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code;
    try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
      code = Main.run(List.of(args), o, e);
    }
    return new Result(
        code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }
}
