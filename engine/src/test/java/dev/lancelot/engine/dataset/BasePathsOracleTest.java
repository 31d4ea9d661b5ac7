package dev.lancelot.engine.dataset;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.BasePathInfo;
import dev.lancelot.engine.CloseableIterator;
import dev.lancelot.engine.CompactionOptions;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.LancelotException;
import dev.lancelot.engine.WriteMode;
import dev.lancelot.engine.WriteOptions;
import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.index.vector.VectorIndexSpec;
import dev.lancelot.engine.index.vector.VectorIndexes;
import dev.lancelot.engine.internal.DatasetInternals;
import dev.lancelot.engine.internal.format.FeatureFlags;
import dev.lancelot.engine.internal.format.ManifestFile;
import dev.lancelot.engine.internal.format.proto.TableProtos.BasePath;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFragment;
import dev.lancelot.engine.internal.format.proto.TableProtos.Manifest;
import dev.lancelot.engine.io.HadoopFileIO;
import dev.lancelot.engine.query.VectorQuery;
import dev.lancelot.engine.query.VectorSearch;
import dev.lancelot.engine.query.VectorSearchResult;
import dev.lancelot.engine.testing.ArrowStreams;
import dev.lancelot.engine.testing.LanceOracle;
import dev.lancelot.engine.testing.Rows;
import dev.lancelot.engine.testing.StandardData;
import dev.lancelot.engine.vector.DistanceMetric;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.WriteParams;

/**
 * Base paths (feature flag 16) and mixed data file versions (flag 256) against lance-core 7.0.0:
 * multi-base datasets and shallow clones Lance wrote read row for row as Lance reads them, with
 * their indexes; what lancelot commits on top of them Lance reads identically; bad base paths are
 * refused.
 */
@Tag("oracle")
class BasePathsOracleTest {
  static final int DIM = 16;
  static final List<String> COLUMNS = List.of("id", "tenant_id", "name", "vector");
  static BufferAllocator allocator;

  @BeforeAll
  static void setUp() {
    allocator = new RootAllocator();
  }

  @AfterAll
  static void tearDown() {
    allocator.close();
  }

  /**
   * Lance writes a dataset at {@code tmp/ds} registering base {@code b1} (a dataset root at {@code
   * tmp/b1}) and base {@code b2} (a plain directory {@code tmp/b2files}): 600 rows into b1, 300
   * into b2, 200 into the root, then deletes some rows of each (deletion files at the root).
   */
  static Path lanceMultiBase(Path tmp) {
    Path ds = tmp.resolve("ds");
    List<org.lance.BasePath> bases =
        List.of(
            new org.lance.BasePath(1, Optional.of("b1"), tmp.resolve("b1").toString(), true),
            new org.lance.BasePath(2, Optional.of("b2"), tmp.resolve("b2files").toString(), false));
    lanceWrite(ds, 0, 600, WriteParams.WriteMode.CREATE, bases, List.of("b1"));
    lanceWrite(ds, 600, 300, WriteParams.WriteMode.APPEND, null, List.of("b2"));
    lanceWrite(ds, 900, 200, WriteParams.WriteMode.APPEND, null, null);
    try (var lance = LanceOracle.open(allocator, ds)) {
      lance.delete("id % 7 = 3");
    }
    return ds;
  }

  static void lanceWrite(
      Path ds,
      long firstId,
      int rows,
      WriteParams.WriteMode mode,
      List<org.lance.BasePath> initial,
      List<String> targets) {
    try (VectorSchemaRoot batch = StandardData.generate(allocator, firstId, rows, DIM, 5)) {
      var w =
          org.lance.Dataset.write()
              .allocator(allocator)
              .reader(ArrowStreams.readerOf(allocator, List.of(batch)))
              .uri(ds.toString())
              .mode(mode)
              .maxRowsPerFile(200);
      if (initial != null) {
        w.initialBases(initial);
      }
      if (targets != null) {
        w.targetBases(targets);
      }
      w.execute().close();
    }
  }

  static Dataset append(Path dir, long firstId, int rows) {
    try (VectorSchemaRoot batch = StandardData.generate(allocator, firstId, rows, DIM, 9);
        ArrowReader reader = ArrowStreams.readerOf(allocator, List.of(batch))) {
      return Dataset.write(dir.toString(), reader, WriteOptions.of(WriteMode.APPEND));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static List<List<Object>> scan(Dataset ds, List<String> columns, String filter) {
    List<List<Object>> out = new ArrayList<>();
    try (CloseableIterator<VectorSchemaRoot> it =
        ds.newScan().columns(columns).filter(filter).batchSize(128).batches()) {
      while (it.hasNext()) {
        out.addAll(Rows.of(it.next()));
      }
    }
    return out;
  }

  static float[] query(long seed) {
    Random r = new Random(seed);
    float[] q = new float[DIM];
    for (int i = 0; i < DIM; i++) {
      q[i] = r.nextFloat();
    }
    return q;
  }

  /** Our and Lance's scans, filtered scans and index searches of {@code dir} agree. */
  static void assertReadsAsLance(Dataset ds, Path dir) {
    assertThat(scan(ds, COLUMNS, null)).isEqualTo(LanceOracle.rows(allocator, dir, COLUMNS, null));
    String filter = "tenant_id < 4 AND id > 100";
    assertThat(scan(ds, List.of("id", "name"), filter))
        .isEqualTo(LanceOracle.rows(allocator, dir, List.of("id", "name"), filter));
    assertThat(ds.countRows()).isEqualTo(LanceOracle.countRows(allocator, dir));
    for (long seed = 1; seed <= 3; seed++) {
      float[] q = query(seed);
      List<LanceOracle.Hit> ours;
      try (VectorSearchResult r =
          VectorSearch.search(
              ds, VectorQuery.builder("vector").vector(q).k(10).nprobes(2).columns("id").build())) {
        ours =
            Rows.of(r.rows()).stream()
                .map(row -> new LanceOracle.Hit((Long) row.get(0), (Float) row.get(1)))
                .toList();
      }
      LanceOracle.assertSameUpToTies(
          ours, LanceOracle.nearest(allocator, dir, q, 10, 2, null, null, true, null, false));
    }
  }

  static long filesUnder(Path dir) {
    if (!Files.exists(dir)) {
      return 0;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      return files.filter(Files::isRegularFile).count();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Test
  void readsLanceMultiBaseDatasetsAndShallowClonesAsLanceDoes(@TempDir Path tmp) {
    Path dir = lanceMultiBase(tmp);
    LanceOracle.createIvfPq(allocator, dir, "vector", 4, 4);
    try (Dataset ds = Dataset.open(dir.toString())) {
      assertThat(ds.basePaths())
          .extracting(BasePathInfo::id, b -> b.name().orElseThrow(), BasePathInfo::datasetRoot)
          .containsExactlyInAnyOrder(
              org.assertj.core.groups.Tuple.tuple(1, "b1", true),
              org.assertj.core.groups.Tuple.tuple(2, "b2", false));
      assertThat(ds.basePaths())
          .filteredOn(b -> b.id() == 1)
          .extracting(BasePathInfo::location)
          .containsExactly(HadoopFileIO.qualify(tmp.resolve("b1").toString()));
      List<String> locations =
          ds.fragments().stream().flatMap(f -> f.dataFileLocations().stream()).toList();
      assertThat(locations).filteredOn(l -> l.contains("/b1/data/")).hasSize(3);
      assertThat(locations).filteredOn(l -> l.contains("/b2files/")).hasSize(2);
      assertThat(locations).filteredOn(l -> l.contains("/ds/data/")).hasSize(1);
      assertReadsAsLance(ds, dir);
    }

    // A shallow clone: every file of the source, deletion files and the index included, is
    // referenced through a new base that is the source's root.
    Path clone = tmp.resolve("clone");
    try (var lance = LanceOracle.open(allocator, dir)) {
      lance.shallowClone(clone.toString(), org.lance.Ref.ofMain(lance.version())).close();
    }
    try (Dataset ds = Dataset.open(clone.toString())) {
      var snapshot = DatasetInternals.snapshot(ds);
      assertThat(snapshot.indices()).allMatch(i -> i.hasBaseId());
      assertThat(snapshot.fragments())
          .filteredOn(DataFragment::hasDeletionFile)
          .isNotEmpty()
          .allMatch(f -> f.getDeletionFile().hasBaseId());
      assertThat(ds.basePaths()).hasSize(3);
      assertReadsAsLance(ds, clone);
    }
  }

  @Test
  void lanceReadsWhatWeCommitOnAMultiBaseDataset(@TempDir Path tmp) {
    Path dir = lanceMultiBase(tmp);
    long inB1 = filesUnder(tmp.resolve("b1"));
    long inB2 = filesUnder(tmp.resolve("b2files"));
    List<BasePath> bases;
    try (Dataset ds = Dataset.open(dir.toString())) {
      bases = DatasetInternals.snapshot(ds).manifest().getBasePathsList();
    }
    append(dir, 5000, 250).close();
    try (Dataset ds = Dataset.open(dir.toString())) {
      ds.delete("id % 5 = 1").close(); // rows of every base, some with a deletion file already
    }
    try (Dataset ds = Dataset.open(dir.toString())) {
      assertThat(ds.compact(CompactionOptions.defaults()).committed()).isTrue();
    }
    try (Dataset ds = Dataset.open(dir.toString())) {
      VectorIndexes.create(
              ds,
              "vector",
              VectorIndexSpec.of(IndexType.IVF_PQ, DistanceMetric.L2)
                  .withNumPartitions(4)
                  .withNumSubVectors(4))
          .close();
    }
    append(dir, 6000, 100).close(); // one fragment the index does not cover
    try (Dataset ds = Dataset.open(dir.toString())) {
      Manifest m = DatasetInternals.snapshot(ds).manifest();
      assertThat(m.getBasePathsList()).isEqualTo(bases);
      assertThat(m.getReaderFeatureFlags() & FeatureFlags.BASE_PATHS).isNotZero();
      assertThat(m.getWriterFeatureFlags() & FeatureFlags.BASE_PATHS).isNotZero();
      // Every version we committed reads in Lance as in lancelot.
      for (long v = 1; v <= ds.version(); v++) {
        try (Dataset at = ds.checkout(v);
            var lance =
                org.lance.Dataset.open()
                    .allocator(allocator)
                    .uri(dir.toString())
                    .readOptions(new org.lance.ReadOptions.Builder().setVersion(v).build())
                    .build()) {
          assertThat(at.countRows()).as("version %d", v).isEqualTo(lance.countRows());
        }
      }
      assertReadsAsLance(ds, dir);
    }
    // New files went to the root, as Lance puts them when no target base is named.
    assertThat(filesUnder(tmp.resolve("b1"))).isEqualTo(inB1);
    assertThat(filesUnder(tmp.resolve("b2files"))).isEqualTo(inB2);
  }

  @Test
  void appendingToA20DatasetMixesFileVersionsAndSetsFlag256(@TempDir Path tmp) throws Exception {
    Path dir = tmp.resolve("ds");
    try (VectorSchemaRoot batch = StandardData.generate(allocator, 0, 300, DIM, 5)) {
      org.lance.Dataset.write()
          .allocator(allocator)
          .reader(ArrowStreams.readerOf(allocator, List.of(batch)))
          .uri(dir.toString())
          .mode(WriteParams.WriteMode.CREATE)
          .dataStorageVersion("2.0")
          .execute()
          .close();
    }
    List<List<Object>> before = LanceOracle.rows(allocator, dir, COLUMNS, null);
    append(dir, 300, 200).close();
    try (Dataset ds = Dataset.open(dir.toString())) {
      Manifest m = DatasetInternals.snapshot(ds).manifest();
      assertThat(m.getReaderFeatureFlags() & FeatureFlags.MIXED_DATA_FILE_VERSIONS).isNotZero();
      assertThat(m.getWriterFeatureFlags() & FeatureFlags.MIXED_DATA_FILE_VERSIONS).isNotZero();
      assertThat(ds.dataStorageVersion()).isEqualTo("2.0");
      assertThat(ds.dataFileVersions()).containsExactly("2.0", "2.1");
      List<List<Object>> rows = scan(ds, COLUMNS, null);
      assertThat(rows.subList(0, 300)).isEqualTo(before);
      try (VectorSchemaRoot added = StandardData.generate(allocator, 300, 200, DIM, 9)) {
        assertThat(rows.subList(300, 500)).isEqualTo(Rows.of(added));
      }
    }
    // lance-core 7 predates flag 256 and refuses the dataset, as the flag is meant to make it do.
    assertThatThrownBy(() -> LanceOracle.countRows(allocator, dir))
        .hasMessageContaining("cannot be read by this version of Lance");
    // Without the flag, Lance 7 decodes each file by its own version: the same rows as ours.
    Path copy = tmp.resolve("copy");
    copyTree(dir, copy);
    rewriteLatest(
        copy,
        m ->
            m.toBuilder()
                .setReaderFeatureFlags(
                    m.getReaderFeatureFlags() & ~FeatureFlags.MIXED_DATA_FILE_VERSIONS)
                .setWriterFeatureFlags(
                    m.getWriterFeatureFlags() & ~FeatureFlags.MIXED_DATA_FILE_VERSIONS)
                .build());
    try (Dataset ds = Dataset.open(dir.toString())) {
      assertThat(scan(ds, COLUMNS, null))
          .isEqualTo(LanceOracle.rows(allocator, copy, COLUMNS, null));
    }
    // The flag stays set once set, whatever later commits do.
    try (Dataset ds = Dataset.open(dir.toString())) {
      ds.delete("id < 10").close();
    }
    try (Dataset ds = Dataset.open(dir.toString())) {
      assertThat(
              DatasetInternals.snapshot(ds).manifest().getReaderFeatureFlags()
                  & FeatureFlags.MIXED_DATA_FILE_VERSIONS)
          .isNotZero();
    }
  }

  @Test
  void badBasePathsAndHalfSetFlagsAreRefusedAndChangeNothing(@TempDir Path tmp) throws Exception {
    Path dir = lanceMultiBase(tmp);
    byte[] original = Files.readAllBytes(latestManifest(dir));
    List<List<Object>> expected = LanceOracle.rows(allocator, dir, COLUMNS, null);

    rewriteLatest(
        dir, m -> m.toBuilder().setBasePaths(0, m.getBasePaths(0).toBuilder().setId(7)).build());
    assertRefusedOnRead(dir, "which its base_paths do not define");
    restore(dir, original);

    rewriteLatest(
        dir,
        m ->
            m.toBuilder()
                .setFragments(
                    0,
                    m.getFragments(0).toBuilder()
                        .setFiles(
                            0, m.getFragments(0).getFiles(0).toBuilder().setPath("../../x.lance")))
                .build());
    assertRefusedOnRead(dir, "which escapes its base path");
    restore(dir, original);

    rewriteLatest(
        dir,
        m ->
            m.toBuilder()
                .setBasePaths(0, m.getBasePaths(0).toBuilder().setPath("relative/b1"))
                .build());
    assertRefusedOnRead(dir, "whose path is neither a URI nor absolute");
    restore(dir, original);

    // A deletion file under a base that is not a dataset root.
    rewriteLatest(
        dir,
        m -> {
          Manifest.Builder b = m.toBuilder();
          for (int i = 0; i < m.getFragmentsCount(); i++) {
            if (m.getFragments(i).hasDeletionFile()) {
              b.setFragments(
                  i,
                  m.getFragments(i).toBuilder()
                      .setDeletionFile(
                          m.getFragments(i).getDeletionFile().toBuilder().setBaseId(2)));
            }
          }
          return b.build();
        });
    assertRefusedOnRead(dir, "which is not a dataset root");
    restore(dir, original);

    rewriteLatest(
        dir,
        m ->
            m.toBuilder()
                .setReaderFeatureFlags(
                    m.getReaderFeatureFlags() | FeatureFlags.MIXED_DATA_FILE_VERSIONS)
                .build());
    assertThatThrownBy(() -> Dataset.open(dir.toString()))
        .isInstanceOf(LancelotException.class)
        .hasMessageContaining("256 (mixed data file versions) for readers but not writers");
    restore(dir, original);

    try (Dataset ds = Dataset.open(dir.toString())) {
      assertThat(scan(ds, COLUMNS, null)).isEqualTo(expected);
    }
    assertThat(LanceOracle.rows(allocator, dir, COLUMNS, null)).isEqualTo(expected);
  }

  static void assertRefusedOnRead(Path dir, String message) {
    assertThatThrownBy(
            () -> {
              try (Dataset ds = Dataset.open(dir.toString())) {
                scan(ds, COLUMNS, null);
              }
            })
        .isInstanceOf(LancelotException.class)
        .hasMessageContaining(message);
  }

  static Path latestManifest(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir.resolve("_versions"))) {
      // V2 names count down: the smallest name is the newest version.
      return files
          .filter(p -> p.toString().endsWith(".manifest"))
          .sorted()
          .findFirst()
          .orElseThrow();
    }
  }

  static void rewriteLatest(Path dir, UnaryOperator<Manifest> edit) throws IOException {
    Path path = latestManifest(dir);
    ManifestFile mf = ManifestFile.read(HadoopFileIO.local().newInputFile(path.toUri().toString()));
    Files.write(
        path,
        ManifestFile.write(edit.apply(mf.manifest()), mf.indices(), mf.transaction().orElse(null)));
  }

  static void restore(Path dir, byte[] original) throws IOException {
    Files.write(latestManifest(dir), original);
  }

  static void copyTree(Path from, Path to) throws IOException {
    try (Stream<Path> files = Files.walk(from)) {
      for (Path p : files.toList()) {
        Path target = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else {
          Files.copy(p, target);
        }
      }
    }
  }
}
