package dev.lancelot.engine.internal.index.vector.store;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.WriteMode;
import dev.lancelot.engine.index.IndexSegment;
import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.index.vector.VectorIndexSpec;
import dev.lancelot.engine.index.vector.VectorIndexes;
import dev.lancelot.engine.index.vector.conformance.ClusteredData;
import dev.lancelot.engine.internal.DatasetInternals;
import dev.lancelot.engine.internal.file.LanceFileReader;
import dev.lancelot.engine.internal.format.proto.IndexProtos.IVF;
import dev.lancelot.engine.internal.format.proto.IndexProtos.Tensor;
import dev.lancelot.engine.internal.format.proto.TableProtos.IndexMetadata;
import dev.lancelot.engine.internal.index.IndexInternals;
import dev.lancelot.engine.io.InputFile;
import dev.lancelot.engine.schema.LanceField;
import dev.lancelot.engine.vector.DistanceMetric;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The layout facts of {@link IndexFileLayout}, checked on files lance-core 7.0.0 writes, and the
 * same structure checked on the files lancelot writes for the same type and metric: columns (names,
 * types, nullability), schema metadata keys, the shapes of the JSON values, global buffers, the two
 * IVF protos (centroids and loss only in {@code index.idx}; partitions contiguous, in order,
 * covering every row), and the manifest entry ({@code index_version}, {@code fields}, {@code files}
 * with their true sizes, {@code index_details}).
 */
@Tag("oracle")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LanceLayoutFactsTest {
  private static final ClusteredData DATA = new ClusteredData(1500, 16, 12, 1, 0.5f, 3);
  private static final int P = 4;
  private static final ObjectMapper JSON = new ObjectMapper();
  private BufferAllocator allocator;

  @BeforeAll
  void setUp() {
    allocator = new RootAllocator();
  }

  @AfterAll
  void tearDown() {
    allocator.close();
  }

  @ParameterizedTest
  @CsvSource({"IVF_FLAT,l2", "IVF_PQ,cosine", "IVF_SQ,dot", "IVF_HNSW_SQ,l2", "IVF_HNSW_PQ,cosine"})
  void lanceAndLancelotWriteTheSameLayout(IndexType type, String metricName, @TempDir Path root)
      throws Exception {
    DistanceMetric metric = DistanceMetric.parse(metricName);
    Path theirs = root.resolve("theirs");
    Path ours = root.resolve("ours");
    VectorTables.write(allocator, theirs, DATA, 0, DATA.rows, WriteMode.CREATE, 1000).close();
    LanceVectorOracle.createIndex(allocator, theirs, type, metric, P, 4, 10, 8, 40, 4);
    try (Dataset ds =
        VectorTables.write(allocator, ours, DATA, 0, DATA.rows, WriteMode.CREATE, 1000)) {
      VectorIndexes.create(
              ds,
              "vector",
              VectorIndexSpec.of(type, metric)
                  .withNumPartitions(P)
                  .withNumSubVectors(4)
                  .withMaxIters(10)
                  .withHnsw(8, 40, 4))
          .close();
    }
    Map<String, Object> lance = describe(theirs, type, metric);
    Map<String, Object> lancelot = describe(ours, type, metric);
    System.out.println("Lance " + type + " " + metricName + ": " + lance);
    assertThat(lancelot).isEqualTo(lance);
  }

  /** Everything about a segment's files except values that depend on training. */
  private Map<String, Object> describe(Path dir, IndexType type, DistanceMetric metric)
      throws Exception {
    Map<String, Object> out = new TreeMap<>();
    try (Dataset ds = Dataset.open(dir.toString())) {
      List<IndexSegment> segments = ds.indexes().segments("vector_idx");
      assertThat(segments).hasSize(1);
      IndexSegment seg = segments.get(0);
      IndexMetadata m = IndexInternals.proto(seg);
      assertThat(seg.type()).isEqualTo(type);
      assertThat(seg.metric()).contains(metric);
      assertThat(m.getIndexVersion()).isEqualTo(IndexFileLayout.VECTOR_INDEX_VERSION);
      assertThat(m.getFieldsList()).containsExactly(ds.field("vector").id());
      assertThat(m.getDatasetVersion()).isEqualTo(1);
      assertThat(m.getCreatedAt()).isPositive();
      assertThat(seg.fragments().toArray()).containsExactly(0, 1);
      List<String> files = new ArrayList<>();
      for (var f : m.getFilesList()) {
        files.add(f.getPath());
        assertThat(f.getSizeBytes())
            .as(f.getPath())
            .isEqualTo(
                Files.size(
                    dir.resolve("_indices").resolve(seg.uuid().toString()).resolve(f.getPath())));
      }
      out.put("manifest.files", files);
      var details = IndexInternals.vectorDetails(seg).orElseThrow();
      out.put(
          "manifest.details",
          List.of(details.hasFlat(), details.hasPq(), details.hasSq(), details.hasHnsw()));
      String index =
          DatasetInternals.context(ds).paths().indexDir(seg.uuid().toString())
              + "/"
              + IndexFileLayout.INDEX_FILE;
      String aux =
          DatasetInternals.context(ds).paths().indexDir(seg.uuid().toString())
              + "/"
              + IndexFileLayout.AUXILIARY_FILE;
      try (InputFile in = DatasetInternals.context(ds).io().newInputFile(index)) {
        describeFile("index", LanceFileReader.open(in), out);
      }
      try (InputFile in = DatasetInternals.context(ds).io().newInputFile(aux)) {
        describeFile("aux", LanceFileReader.open(in), out);
      }
    }
    return out;
  }

  private void describeFile(String name, LanceFileReader r, Map<String, Object> out)
      throws Exception {
    List<String> columns = new ArrayList<>();
    for (LanceField f : r.schema().fields()) {
      columns.add(
          f.name()
              + ":"
              + f.logicalType()
              + (f.nullable() ? "" : " not null")
              + f.children().stream().map(c -> "<" + c.logicalType() + ">").toList());
    }
    out.put(name + ".columns", columns);
    Map<String, String> meta = r.schema().metadata();
    out.put(name + ".metadataKeys", new TreeSet<>(meta.keySet()));
    out.put(name + ".globalBuffers", r.numGlobalBuffers());
    IVF ivf =
        IVF.parseFrom(
            r.readGlobalBuffer(Integer.parseInt(meta.get(IndexFileLayout.IVF_METADATA_KEY))));
    out.put(
        name + ".ivf",
        List.of(
            "centroids=" + ivf.getCentroidsTensor().getShapeList(),
            "loss=" + ivf.hasLoss(),
            "partitions=" + ivf.getLengthsCount(),
            "deprecatedCentroids=" + ivf.getCentroidsCount()));
    long next = 0;
    for (int p = 0; p < ivf.getLengthsCount(); p++) {
      assertThat(ivf.getOffsets(p)).as("%s partition %d offset", name, p).isEqualTo(next);
      next += ivf.getLengths(p);
    }
    if (name.equals("aux") || meta.containsKey(IndexFileLayout.HNSW_METADATA_KEY)) {
      assertThat(next).as("%s partitions cover the file", name).isEqualTo(r.numRows());
    }
    if (meta.containsKey(IndexFileLayout.INDEX_METADATA_KEY)) {
      out.put(
          "index.lance:index", keys(JSON.readTree(meta.get(IndexFileLayout.INDEX_METADATA_KEY))));
      out.put(
          "index.type",
          JSON.readTree(meta.get(IndexFileLayout.INDEX_METADATA_KEY)).get("type").asText());
    }
    if (meta.containsKey(IndexFileLayout.FLAT_METADATA_KEY)) {
      out.put("index.lance:flat", meta.get(IndexFileLayout.FLAT_METADATA_KEY));
      assertThat(r.numRows()).isZero();
    }
    if (meta.containsKey(IndexFileLayout.HNSW_METADATA_KEY)) {
      JsonNode parts = JSON.readTree(meta.get(IndexFileLayout.HNSW_METADATA_KEY));
      JsonNode first = JSON.readTree(parts.get(0).asText());
      out.put(
          "index.lance:hnsw",
          List.of(
              parts.size(),
              keys(first),
              keys(first.get("params")),
              first.get("level_offsets").size(),
              first.get("entry_point").asInt()));
    }
    if (meta.containsKey(IndexFileLayout.STORAGE_METADATA_KEY)) {
      JsonNode array = JSON.readTree(meta.get(IndexFileLayout.STORAGE_METADATA_KEY));
      JsonNode entry = JSON.readTree(array.get(0).asText());
      out.put("aux.storage_metadata", List.of(array.size(), keys(entry)));
      out.put("aux.distance_type", meta.get(IndexFileLayout.DISTANCE_TYPE_KEY));
      if (entry.has("codebook_position")) {
        Tensor cb = Tensor.parseFrom(r.readGlobalBuffer(entry.get("codebook_position").asInt()));
        out.put(
            "aux.codebook",
            List.of(
                entry.get("codebook_position").asInt(),
                cb.getDataType().name(),
                cb.getShapeList(),
                entry.get("transposed").asBoolean(),
                entry.get("codebook_tensor").toString()));
      }
    }
  }

  private static List<String> keys(JsonNode node) {
    List<String> out = new ArrayList<>();
    for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
      out.add(it.next());
    }
    return out;
  }
}
