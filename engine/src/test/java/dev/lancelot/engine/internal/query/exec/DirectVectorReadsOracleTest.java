package dev.lancelot.engine.internal.query.exec;

import dev.lancelot.engine.testing.ArrowStreams;
import dev.lancelot.engine.testing.LanceOracle;
import java.nio.file.Path;
import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Tag;
import org.lance.WriteParams;

/** {@link DirectVectorReadsTest} on datasets written and deleted from by lance-core 7.0.0. */
@Tag("oracle")
class DirectVectorReadsOracleTest extends DirectVectorReadsTest {
  @Override
  String writer() {
    return "lance";
  }

  @Override
  void write(VectorSchemaRoot batch, String location) throws Exception {
    org.lance.Dataset.write()
        .allocator(allocator)
        .reader(ArrowStreams.readerOf(allocator, List.of(batch)))
        .uri(location)
        .mode(WriteParams.WriteMode.CREATE)
        .maxRowsPerFile(1800)
        .execute()
        .close();
    try (org.lance.Dataset ds = LanceOracle.open(allocator, Path.of(location))) {
      ds.delete(DELETED);
    }
  }
}
