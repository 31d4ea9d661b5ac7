package dev.lancelot.engine.index.vector.oracle;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancelot.engine.internal.index.vector.ivf.IvfModel;
import dev.lancelot.engine.internal.index.vector.pq.PqCodebook;
import dev.lancelot.engine.internal.index.vector.sq.ScalarQuantizer;
import dev.lancelot.engine.internal.index.vector.sq.SqStorage;
import dev.lancelot.engine.testing.LanceOracle;
import dev.lancelot.engine.vector.DistanceMetric;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import org.lance.WriteParams;
import org.lance.file.LanceFileReader;
import org.lance.index.DistanceType;
import org.lance.index.IndexParams;
import org.lance.index.IndexType;
import org.lance.index.vector.HnswBuildParams;
import org.lance.index.vector.IvfBuildParams;
import org.lance.index.vector.PQBuildParams;
import org.lance.index.vector.SQBuildParams;
import org.lance.index.vector.VectorIndexParams;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.Query;
import org.lance.ipc.ScanOptions;

/**
 * Checks the vector conventions against lance-core 7.0.0: distances Lance reports for flat KNN,
 * and, from index files Lance wrote, that our IVF assignment and PQ/SQ encodings reproduce Lance's
 * codes given Lance's centroids, codebook and bounds, and that Lance's HNSW layout is what {@code
 * HnswGraph} documents.
 */
@Tag("oracle")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LanceIndexOracleTest {
  private static final int ROWS = 1500;
  private static final int DIM = 16;
  private BufferAllocator allocator;

  @BeforeAll
  void setUp() {
    allocator = new RootAllocator();
  }

  @AfterAll
  void tearDown() {
    allocator.close();
  }

  /** Row address → vector of the dataset, read back through Lance. */
  private Map<Long, float[]> vectors(Path dir) throws Exception {
    Map<Long, float[]> out = new HashMap<>();
    try (Dataset ds = LanceOracle.open(allocator, dir);
        LanceScanner scanner =
            ds.newScan(
                new ScanOptions.Builder().columns(List.of("vector")).withRowId(true).build());
        ArrowReader reader = scanner.scanBatches()) {
      while (reader.loadNextBatch()) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        FieldVector ids = root.getVector("_rowid");
        FixedSizeListVector vec = (FixedSizeListVector) root.getVector("vector");
        for (int i = 0; i < root.getRowCount(); i++) {
          float[] v = new float[DIM];
          for (int d = 0; d < DIM; d++) {
            v[d] = ((Number) vec.getDataVector().getObject(i * DIM + d)).floatValue();
          }
          out.put(((Number) ids.getObject(i)).longValue(), v);
        }
      }
    }
    return out;
  }

  private void write(Path dir) {
    LanceOracle.write(allocator, dir, 0, ROWS, DIM, 7, WriteParams.WriteMode.CREATE, 1_000_000);
  }

  @Test
  void flatSearchDistancesMatchLance(@TempDir Path dir) throws Exception {
    write(dir);
    Map<Long, float[]> vectors = vectors(dir);
    float[] q = vectors.get(5L).clone();
    q[0] += 0.5f;
    for (DistanceMetric metric :
        new DistanceMetric[] {DistanceMetric.L2, DistanceMetric.COSINE, DistanceMetric.DOT}) {
      DistanceType type =
          switch (metric) {
            case L2 -> DistanceType.L2;
            case COSINE -> DistanceType.Cosine;
            default -> DistanceType.Dot;
          };
      Query query =
          new Query.Builder()
              .setColumn("vector")
              .setKey(q)
              .setK(50)
              .setUseIndex(false)
              .setDistanceType(type)
              .build();
      int checked = 0;
      try (Dataset ds = LanceOracle.open(allocator, dir);
          LanceScanner scanner =
              ds.newScan(
                  new ScanOptions.Builder()
                      .nearest(query)
                      .columns(List.of("id"))
                      .withRowId(true)
                      .build());
          ArrowReader reader = scanner.scanBatches()) {
        while (reader.loadNextBatch()) {
          VectorSchemaRoot root = reader.getVectorSchemaRoot();
          for (int i = 0; i < root.getRowCount(); i++) {
            long rowId = ((Number) root.getVector("_rowid").getObject(i)).longValue();
            float lance = ((Number) root.getVector("_distance").getObject(i)).floatValue();
            float ours = metric.distance(q, 0, vectors.get(rowId), 0, DIM);
            assertThat(ours)
                .as("%s row %d", metric, rowId)
                .isCloseTo(
                    lance, org.assertj.core.data.Offset.offset(1e-4f * (1 + Math.abs(lance))));
            checked++;
          }
        }
      }
      assertThat(checked).isEqualTo(50);
    }
  }

  private void createIndex(Path dir, IndexType type, VectorIndexParams params) {
    try (Dataset ds = LanceOracle.open(allocator, dir)) {
      ds.createIndex(
          List.of("vector"),
          type,
          Optional.of("vector_idx"),
          IndexParams.builder().setVectorIndexParams(params).build(),
          true);
    }
  }

  private static IvfBuildParams ivfParams(int partitions) {
    return new IvfBuildParams.Builder().setNumPartitions(partitions).setMaxIters(20).build();
  }

  /**
   * Reads a whole index file's columns as generic rows, one column per read: lance-core's reader
   * drops a column named {@code _rowid} from a multi-column projection.
   */
  private List<Object[]> readAll(Path file, List<String> columns) throws Exception {
    List<Object[]> rows = new ArrayList<>();
    for (int c = 0; c < columns.size(); c++) {
      int row = 0;
      try (LanceFileReader r = LanceFileReader.open(file.toString(), allocator);
          ArrowReader reader = r.readAll(List.of(columns.get(c)), null, 4096)) {
        while (reader.loadNextBatch()) {
          VectorSchemaRoot root = reader.getVectorSchemaRoot();
          FieldVector v = root.getVector(columns.get(c));
          if (v == null) {
            throw new IllegalStateException(
                "no column " + columns.get(c) + " in " + root.getSchema());
          }
          for (int i = 0; i < root.getRowCount(); i++, row++) {
            if (c == 0) {
              rows.add(new Object[columns.size()]);
            }
            rows.get(row)[c] = value(v, i);
          }
        }
      }
    }
    return rows;
  }

  private static Object value(FieldVector v, int i) {
    if (v instanceof FixedSizeListVector fsl) {
      int w = fsl.getListSize();
      int[] vals = new int[w];
      for (int j = 0; j < w; j++) {
        vals[j] = ((Number) fsl.getDataVector().getObject(i * w + j)).intValue() & 0xFF;
      }
      return vals;
    }
    if (v instanceof ListVector list) {
      return new ArrayList<>((List<?>) list.getObject(i));
    }
    return v.getObject(i);
  }

  @Test
  void pqCodesAndPartitionsMatchLanceForEachMetric(@TempDir Path root) throws Exception {
    for (DistanceMetric metric :
        new DistanceMetric[] {DistanceMetric.L2, DistanceMetric.COSINE, DistanceMetric.DOT}) {
      Path dir = root.resolve(metric.lanceName());
      write(dir);
      DistanceType type =
          metric == DistanceMetric.L2
              ? DistanceType.L2
              : metric == DistanceMetric.COSINE ? DistanceType.Cosine : DistanceType.Dot;
      createIndex(
          dir,
          IndexType.IVF_PQ,
          VectorIndexParams.withIvfPqParams(
              type,
              ivfParams(4),
              new PQBuildParams.Builder()
                  .setNumSubVectors(4)
                  .setNumBits(8)
                  .setMaxIters(20)
                  .build()));
      Path idx = LanceIndexFiles.indexDir(dir);
      LanceIndexFiles.Ivf ivfProto =
          LanceIndexFiles.ivf(LanceIndexFiles.globalBuffer(idx.resolve("index.idx"), 1));
      assertThat(ivfProto.centroids().dataType()).isEqualTo(2);
      assertThat(ivfProto.centroids().shape()).containsExactly(4, DIM);
      IvfModel ivf = IvfModel.of(ivfProto.centroids().values(), DIM, metric, 0);
      LanceIndexFiles.Tensor cb =
          LanceIndexFiles.tensor(LanceIndexFiles.globalBuffer(idx.resolve("auxiliary.idx"), 2));
      assertThat(cb.shape()).containsExactly(256, DIM);
      PqCodebook pq = PqCodebook.of(cb.values(), DIM, 4, metric);
      LanceIndexFiles.Ivf auxIvf =
          LanceIndexFiles.ivf(LanceIndexFiles.globalBuffer(idx.resolve("auxiliary.idx"), 1));

      Map<Long, float[]> vectors = vectors(dir);
      // lance-core's file reader does not hand out the _rowid column, so compare per partition the
      // multiset of code tuples Lance stored with the tuples we compute for the rows we assign
      // there.
      List<Object[]> rows = readAll(idx.resolve("auxiliary.idx"), List.of("__pq_code"));
      assertThat(rows).hasSize(ROWS);
      Map<Integer, Map<Integer, Integer>> ourTuples = new HashMap<>();
      byte[] ours = new byte[4];
      float[] space = new float[DIM];
      for (float[] v : vectors.values()) {
        int p = ivf.assign(v, 0);
        float[] prepared = ivf.prepareQuery(v);
        if (PqCodebook.usesResidual(metric)) {
          ivf.residual(prepared, 0, p, space, 0);
        } else {
          System.arraycopy(prepared, 0, space, 0, DIM);
        }
        pq.encode(space, 0, ours, 0);
        ourTuples
            .computeIfAbsent(p, x -> new HashMap<>())
            .merge(java.nio.ByteBuffer.wrap(ours).getInt(), 1, Integer::sum);
      }
      int start = 0;
      int codeMismatches = 0;
      for (int p = 0; p < auxIvf.lengths().size(); p++) {
        int len = auxIvf.lengths().get(p);
        // The partition's fsl values, concatenated, are its codes transposed: codes[s * len + j].
        int[] flat = new int[len * 4];
        for (int j = 0; j < len; j++) {
          System.arraycopy((int[]) rows.get(start + j)[0], 0, flat, j * 4, 4);
        }
        Map<Integer, Integer> mine = ourTuples.getOrDefault(p, new HashMap<>());
        for (int j = 0; j < len; j++) {
          int key =
              (flat[j] << 24)
                  | (flat[len + j] << 16)
                  | (flat[2 * len + j] << 8)
                  | flat[3 * len + j];
          Integer n = mine.get(key);
          if (n == null || n == 0) {
            codeMismatches++;
          } else {
            mine.put(key, n - 1);
          }
        }
        start += len;
      }
      int partitionMismatches = 0;
      System.out.printf(
          "IVF_PQ %s: rows whose (partition, codes) Lance did not store: %d / %d%n",
          metric.lanceName(), codeMismatches, ROWS);
      // Float summation order differs from Lance's SIMD kernels; only near-ties may flip.
      assertThat(partitionMismatches).isZero();
      assertThat(codeMismatches).as("%s rows", metric).isLessThanOrEqualTo(ROWS / 200);
    }
  }

  @Test
  void hnswSqLayoutCodesAndEdgeDistancesMatchLance(@TempDir Path dir) throws Exception {
    write(dir);
    createIndex(
        dir,
        IndexType.IVF_HNSW_SQ,
        VectorIndexParams.withIvfHnswSqParams(
            DistanceType.L2,
            ivfParams(2),
            new HnswBuildParams.Builder()
                .setM(8)
                .setEfConstruction(50)
                .setMaxLevel((short) 4)
                .build(),
            new SQBuildParams.Builder().setNumBits((short) 8).build()));
    Path idx = LanceIndexFiles.indexDir(dir);
    String storageMeta;
    String hnswMeta;
    try (LanceFileReader r =
        LanceFileReader.open(idx.resolve("auxiliary.idx").toString(), allocator)) {
      storageMeta = r.schema().getCustomMetadata().get("storage_metadata");
    }
    try (LanceFileReader r = LanceFileReader.open(idx.resolve("index.idx").toString(), allocator)) {
      hnswMeta = r.schema().getCustomMetadata().get("lance:hnsw");
    }
    System.out.println("SQ storage metadata: " + storageMeta);
    System.out.println("HNSW metadata: " + hnswMeta);
    com.fasterxml.jackson.databind.ObjectMapper json =
        new com.fasterxml.jackson.databind.ObjectMapper();
    var sqMeta = json.readTree(json.readTree(storageMeta).get(0).asText());
    ScalarQuantizer sq =
        ScalarQuantizer.of(
            DIM,
            sqMeta.get("bounds").get("start").asDouble(),
            sqMeta.get("bounds").get("end").asDouble());
    LanceIndexFiles.Ivf auxIvf =
        LanceIndexFiles.ivf(LanceIndexFiles.globalBuffer(idx.resolve("auxiliary.idx"), 1));
    Map<Long, float[]> vectors = vectors(dir);
    List<Object[]> aux = readAll(idx.resolve("auxiliary.idx"), List.of("__sq_code"));
    Map<String, Integer> ourCodes = new HashMap<>();
    for (float[] v : vectors.values()) {
      byte[] c = new byte[DIM];
      sq.encode(v, 0, c, 0);
      int[] u = new int[DIM];
      for (int d = 0; d < DIM; d++) {
        u[d] = c[d] & 0xFF;
      }
      ourCodes.merge(java.util.Arrays.toString(u), 1, Integer::sum);
    }
    int codeMismatches = 0;
    for (Object[] row : aux) {
      String key = java.util.Arrays.toString((int[]) row[0]);
      Integer n = ourCodes.get(key);
      if (n == null || n == 0) {
        codeMismatches++;
      } else {
        ourCodes.put(key, n - 1);
      }
    }
    assertThat(codeMismatches).as("SQ codes differing from Lance's").isZero();

    // HNSW rows: per partition, level by level, node 0 on every level.
    var partitions = json.readTree(hnswMeta);
    List<Object[]> graphRows =
        readAll(idx.resolve("index.idx"), List.of("__vector_id", "__neighbors", "_distance"));
    int rowStart = 0;
    int auxStart = 0;
    int edgesChecked = 0;
    for (int p = 0; p < partitions.size(); p++) {
      var meta = json.readTree(partitions.get(p).asText());
      int len = auxIvf.lengths().get(p);
      byte[] codes = new byte[len * DIM];
      for (int j = 0; j < len; j++) {
        int[] c = (int[]) aux.get(auxStart + j)[0];
        for (int d = 0; d < DIM; d++) {
          codes[j * DIM + d] = (byte) c[d];
        }
      }
      SqStorage storage = SqStorage.of(sq, codes, len, DistanceMetric.L2);
      assertThat(meta.get("entry_point").asInt()).isZero();
      int levels = meta.get("params").get("max_level").asInt();
      // Count the rows of each level by scanning: ids restart (node 0 first) at each level.
      int row = rowStart;
      for (int level = 0; level < levels; level++) {
        int first = row;
        assertThat(((Number) graphRows.get(row)[0]).intValue())
            .as("level %d starts with node 0", level)
            .isZero();
        row++;
        while (row < graphRows.size() && ((Number) graphRows.get(row)[0]).intValue() != 0) {
          row++;
        }
        int size = row - first;
        if (level == 0) {
          assertThat(size).isEqualTo(len);
        }
        for (int r = first; r < row; r++) {
          int node = ((Number) graphRows.get(r)[0]).intValue();
          @SuppressWarnings("unchecked")
          List<Object> nbrs = (List<Object>) graphRows.get(r)[1];
          @SuppressWarnings("unchecked")
          List<Object> dists = (List<Object>) graphRows.get(r)[2];
          assertThat(nbrs.size()).isLessThanOrEqualTo(level == 0 ? 16 : 8);
          for (int i = 0; i < nbrs.size(); i++) {
            int nb = ((Number) nbrs.get(i)).intValue();
            float lance = ((Number) dists.get(i)).floatValue();
            // Lance's edge distance is its SQ distance between the two nodes' codes.
            assertThat(storage.distanceBetween(node, nb))
                .as("edge %d-%d", node, nb)
                .isCloseTo(lance, org.assertj.core.data.Offset.offset(1e-5f * (1 + lance)));
            edgesChecked++;
          }
        }
        System.out.printf(
            "partition %d level %d: %d rows, stored level_offsets %s%n",
            p, level, size, meta.get("level_offsets"));
        // Lance's writer leaves node 0 out of the count of every level above 0 (HnswGraph's doc).
        int stored =
            meta.get("level_offsets").get(level + 1).asInt()
                - meta.get("level_offsets").get(level).asInt();
        assertThat(stored)
            .as("stored size of level %d", level)
            .isEqualTo(level == 0 ? size : size - 1);
      }
      rowStart = row;
      auxStart += len;
    }
    assertThat(rowStart).isEqualTo(graphRows.size());
    assertThat(edgesChecked).isGreaterThan(ROWS);
  }

  @Test
  void annCandidatesOfIvfPqAndIvfSqMatchLance(@TempDir Path root) throws Exception {
    // All partitions probed, no refine: Lance's ANN stage keeps the k rows with the smallest
    // quantized distance, then re-ranks them exactly. Our scorers on Lance's own centroids,
    // codebook and bounds must pick the same k rows.
    for (IndexType type : new IndexType[] {IndexType.IVF_PQ, IndexType.IVF_SQ}) {
      for (DistanceMetric metric :
          new DistanceMetric[] {DistanceMetric.L2, DistanceMetric.COSINE, DistanceMetric.DOT}) {
        Path dir = root.resolve(type + "-" + metric.lanceName());
        write(dir);
        DistanceType dt =
            metric == DistanceMetric.L2
                ? DistanceType.L2
                : metric == DistanceMetric.COSINE ? DistanceType.Cosine : DistanceType.Dot;
        VectorIndexParams params =
            type == IndexType.IVF_PQ
                ? VectorIndexParams.withIvfPqParams(
                    dt,
                    ivfParams(4),
                    new PQBuildParams.Builder()
                        .setNumSubVectors(4)
                        .setNumBits(8)
                        .setMaxIters(20)
                        .build())
                : new VectorIndexParams.Builder(ivfParams(4))
                    .setDistanceType(dt)
                    .setSqParams(new SQBuildParams.Builder().setNumBits((short) 8).build())
                    .build();
        createIndex(dir, type, params);
        Path idx = LanceIndexFiles.indexDir(dir);
        IvfModel ivf =
            IvfModel.of(
                LanceIndexFiles.ivf(LanceIndexFiles.globalBuffer(idx.resolve("index.idx"), 1))
                    .centroids()
                    .values(),
                DIM,
                metric,
                0);
        Map<Long, float[]> vectors = vectors(dir);
        long[] ids = vectors.keySet().stream().mapToLong(Long::longValue).sorted().toArray();
        int[] parts = new int[ids.length];
        float[][] space = new float[ids.length][];
        for (int i = 0; i < ids.length; i++) {
          float[] prepared = ivf.prepareQuery(vectors.get(ids[i]));
          parts[i] = ivf.assign(vectors.get(ids[i]), 0);
          space[i] = prepared;
          if (type == IndexType.IVF_PQ && PqCodebook.usesResidual(metric)) {
            space[i] = new float[DIM];
            ivf.residual(prepared, 0, parts[i], space[i], 0);
          }
        }
        PqCodebook pq = null;
        ScalarQuantizer sq = null;
        if (type == IndexType.IVF_PQ) {
          pq =
              PqCodebook.of(
                  LanceIndexFiles.tensor(
                          LanceIndexFiles.globalBuffer(idx.resolve("auxiliary.idx"), 2))
                      .values(),
                  DIM,
                  4,
                  metric);
        } else {
          String meta;
          try (LanceFileReader r =
              LanceFileReader.open(idx.resolve("auxiliary.idx").toString(), allocator)) {
            meta = r.schema().getCustomMetadata().get("storage_metadata");
          }
          var json = new com.fasterxml.jackson.databind.ObjectMapper();
          var bounds = json.readTree(json.readTree(meta).get(0).asText()).get("bounds");
          sq =
              ScalarQuantizer.of(DIM, bounds.get("start").asDouble(), bounds.get("end").asDouble());
        }
        int agree = 0;
        int total = 0;
        for (int qi = 0; qi < 10; qi++) {
          float[] q = vectors.get(ids[qi * 97]).clone();
          q[qi % DIM] += 0.3f;
          float[] pq0 = ivf.prepareQuery(q);
          dev.lancelot.engine.internal.index.vector.TopKCollector top =
              new dev.lancelot.engine.internal.index.vector.TopKCollector(10);
          for (int p = 0; p < 4; p++) {
            float[] pq1 = pq0;
            if (type == IndexType.IVF_PQ && PqCodebook.usesResidual(metric)) {
              pq1 = new float[DIM];
              ivf.residual(pq0, 0, p, pq1, 0);
            }
            for (int i = 0; i < ids.length; i++) {
              if (parts[i] != p) {
                continue;
              }
              float d;
              if (pq != null) {
                byte[] code = new byte[4];
                pq.encode(space[i], 0, code, 0);
                byte[] one =
                    dev.lancelot.engine.internal.index.vector.pq.PqCodes.transpose(code, 1, 4);
                d =
                    dev.lancelot.engine.internal.index.vector.pq.PqStorage.of(pq, one, 1)
                        .scorer(pq1)
                        .score(0);
              } else {
                byte[] code = new byte[DIM];
                sq.encode(space[i], 0, code, 0);
                d = SqStorage.of(sq, code, 1, metric).scorer(pq1).score(0);
              }
              top.collect(ids[i], d);
            }
          }
          List<Long> lance = LanceOracle.nearestIds(allocator, dir, q, 10, 4, null, false);
          for (long id : top.result().ids()) {
            total++;
            if (lance.contains(id)) {
              agree++;
            }
          }
        }
        System.out.printf(
            "%s %s: ANN candidates shared with Lance %d / %d%n",
            type, metric.lanceName(), agree, total);
        // Near-ties at the 10th place may differ in float rounding; everything else must agree.
        assertThat(agree).as("%s %s", type, metric).isGreaterThanOrEqualTo(total - 3);
      }
    }
  }
}
