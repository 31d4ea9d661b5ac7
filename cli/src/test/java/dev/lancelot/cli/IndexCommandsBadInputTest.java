package dev.lancelot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancelot.engine.WriteMode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every mistake in the index commands exits with code 2 and one line on stderr naming what to
 * change; nothing is committed.
 */
class IndexCommandsBadInputTest {
  @TempDir static Path dir;

  static String small;
  static String indexed;

  @BeforeAll
  static void data() {
    small = dir.resolve("small").toString();
    CliData.write(Path.of(small), 0, 100, WriteMode.CREATE, 100);
    indexed = dir.resolve("indexed").toString();
    CliData.write(Path.of(indexed), 0, 600, WriteMode.CREATE, 600);
    CliData.Result r =
        CliData.run(
            "create-index",
            indexed,
            "--column",
            "vector",
            "--type",
            "IVF_FLAT",
            "--num-partitions",
            "2",
            "--max-iterations",
            "3");
    assertThat(r.code()).as(r.err()).isZero();
    r = CliData.run("create-scalar-index", indexed, "--column", "tenant_id");
    assertThat(r.code()).as(r.err()).isZero();
  }

  /** Runs the command, expects exit 2 and a single stderr line containing every fragment. */
  private static void refused(String[] args, String... fragments) {
    CliData.Result r = CliData.run(args);
    assertThat(r.code()).as("exit code of %s; stderr %s", List.of(args), r.err()).isEqualTo(2);
    assertThat(r.out()).isEmpty();
    assertThat(r.err()).startsWith("lancelot " + args[0] + ": ").endsWith("\n");
    assertThat(r.err().strip()).doesNotContain("\n");
    assertThat(r.err()).contains(fragments);
  }

  private static String[] createIndex(String dataset, String... more) {
    List<String> args = new ArrayList<>(List.of("create-index", dataset));
    args.addAll(List.of(more));
    return args.toArray(String[]::new);
  }

  @Test
  void unknownIndexType() {
    refused(
        createIndex(small, "--column", "vector", "--type", "IVF_XYZ"),
        "unknown vector index type \"IVF_XYZ\"",
        "IVF_FLAT, IVF_PQ, IVF_SQ, IVF_HNSW_FLAT, IVF_HNSW_SQ, IVF_HNSW_PQ");
    refused(
        createIndex(small, "--column", "tenant_id", "--type", "btree"), "use create-scalar-index");
    refused(
        new String[] {"create-scalar-index", small, "--column", "tenant_id", "--type", "inverted"},
        "Cannot build a scalar index of type \"inverted\"",
        "BTREE",
        "does not build them");
    refused(
        new String[] {"create-scalar-index", small, "--column", "vector", "--type", "ivf_pq"},
        "Vector indexes are built with create-index.");
  }

  @Test
  void missingRequiredOptions() {
    refused(createIndex(small, "--type", "IVF_PQ"), "missing --column");
    refused(createIndex(small, "--column", "vector"), "missing --type");
    refused(new String[] {"create-index"}, "missing <dataset>");
    refused(new String[] {"create-scalar-index", small}, "missing --column");
  }

  @Test
  void wrongColumnType() {
    refused(
        createIndex(small, "--column", "tenant_id", "--type", "IVF_FLAT"),
        "column \"tenant_id\" has type int32",
        "fixed_size_list<float32, dim>");
    refused(createIndex(small, "--column", "nope", "--type", "IVF_FLAT"), "no column \"nope\"");
    // The column is checked before the name (the default tenant_id_idx is taken by a BTree there).
    refused(createIndex(indexed, "--column", "tenant_id", "--type", "IVF_FLAT"), "has type int32");
    refused(
        new String[] {"create-scalar-index", small, "--column", "vector"},
        "cannot be indexed by a BTree");
    refused(new String[] {"create-scalar-index", small, "--column", "nope"}, "no such column");
  }

  @Test
  void dimensionNotDivisibleBySubVectors() {
    refused(
        createIndex(
            indexed,
            "--column",
            "vector",
            "--type",
            "IVF_PQ",
            "--num-sub-vectors",
            "5",
            "--name",
            "pq"),
        "num_sub_vectors=5",
        "16-dimensional",
        "divisible",
        "for example 4");
  }

  @Test
  void tooFewRowsToTrain() {
    refused(
        createIndex(
            small,
            "--column",
            "vector",
            "--type",
            "IVF_PQ",
            "--num-partitions",
            "1",
            "--num-sub-vectors",
            "4"),
        "100 rows",
        "at least 256",
        "IVF_FLAT or IVF_SQ");
    refused(
        createIndex(small, "--column", "vector", "--type", "IVF_FLAT", "--num-partitions", "500"),
        "100 rows to train on, fewer than the 500 IVF partitions",
        "Use at most 100 partitions");
  }

  @Test
  void outOfRangeOrMalformedValues() {
    refused(
        createIndex(small, "--column", "vector", "--type", "IVF_FLAT", "--num-partitions", "many"),
        "--num-partitions must be a whole number");
    refused(
        createIndex(small, "--column", "vector", "--type", "IVF_FLAT", "--num-partitions", "5000"),
        "num_partitions=5000",
        "between 1 and 4096");
    refused(
        createIndex(small, "--column", "vector", "--type", "IVF_PQ", "--num-bits", "4"),
        "num_bits=4",
        "num_bits=8");
    refused(
        createIndex(small, "--column", "vector", "--type", "IVF_RQ", "--num-bits", "0"),
        "IVF_RQ index with num_bits=0",
        "between 1 and 255");
    refused(
        createIndex(small, "--column", "vector", "--type", "IVF_FLAT", "--metric", "manhattan"),
        "manhattan",
        "l2, cosine, dot");
    refused(
        createIndex(small, "--column", "vector", "--type", "IVF_FLAT", "--metric", "hamming"),
        "l2, cosine and dot");
    refused(createIndex(small, "--column", "vector", "--type", "IVF_HNSW_SQ", "--m", "1"), "m=1");
    refused(
        createIndex(small, "--column", "vector", "--type", "IVF_FLAT", "--sample-rate", "0"),
        "sample_rate=0");
    refused(
        createIndex(small, "--column", "vector", "--type", "IVF_FLAT", "--max-iterations", "0"),
        "max_iters=0");
  }

  @Test
  void optionsThatDoNotApplyToTheType() {
    refused(
        createIndex(small, "--column", "vector", "--type", "IVF_FLAT", "--num-sub-vectors", "4"),
        "--num-sub-vectors does not apply to IVF_FLAT",
        "IVF_PQ and IVF_HNSW_PQ");
    refused(
        createIndex(small, "--column", "vector", "--type", "IVF_HNSW_FLAT", "--num-bits", "8"),
        "--num-bits does not apply to IVF_HNSW_FLAT");
    refused(
        createIndex(small, "--column", "vector", "--type", "IVF_RQ", "--num-sub-vectors", "4"),
        "--num-sub-vectors does not apply to IVF_RQ");
    refused(
        createIndex(small, "--column", "vector", "--type", "IVF_PQ", "--m", "16"),
        "--m does not apply to IVF_PQ",
        "HNSW types");
    refused(
        createIndex(small, "--column", "vector", "--type", "IVF_SQ", "--ef-construction", "100"),
        "--ef-construction does not apply to IVF_SQ");
  }

  @Test
  void missingDataset() {
    String missing = dir.resolve("does-not-exist").toString();
    refused(createIndex(missing, "--column", "vector", "--type", "IVF_FLAT"), "does-not-exist");
    refused(
        new String[] {"create-scalar-index", missing, "--column", "tenant_id"}, "does-not-exist");
    refused(new String[] {"optimize-indices", missing}, "does-not-exist");
    refused(new String[] {"info", missing}, "does-not-exist");
  }

  @Test
  void unknownOptionsAndArguments() {
    refused(
        createIndex(small, "--column", "vector", "--type", "IVF_FLAT", "--partitions", "4"),
        "unknown option --partitions",
        "--num-partitions");
    refused(
        new String[] {"create-scalar-index", small, "--column", "tenant_id", "--page-size", "10"},
        "unknown option --page-size");
    refused(
        new String[] {"optimize-indices", small, "--force"}, "unknown option --force", "--retrain");
    refused(
        new String[] {"optimize-indices", small, "vector_idx"},
        "unexpected argument \"vector_idx\"");
    refused(new String[] {"create-indexes", small}, "unknown command \"create-indexes\"");
  }

  @Test
  void existingIndexNeedsReplace() {
    refused(
        createIndex(indexed, "--column", "vector", "--type", "IVF_FLAT", "--num-partitions", "2"),
        "\"vector_idx\"",
        "already exists",
        "--replace");
    refused(
        new String[] {"create-scalar-index", indexed, "--column", "tenant_id"},
        "\"tenant_id_idx\"",
        "already exists",
        "--replace");
    refused(
        new String[] {"optimize-indices", indexed, "--index", "nope"},
        "no index \"nope\"",
        "vector_idx, tenant_id_idx");
    CliData.Result info = CliData.run("info", indexed);
    assertThat(info.out()).contains("version   3 ");
  }
}
