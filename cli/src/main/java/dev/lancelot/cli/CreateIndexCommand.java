package dev.lancelot.cli;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.index.vector.VectorIndexSpec;
import dev.lancelot.engine.index.vector.VectorIndexes;
import dev.lancelot.engine.vector.DistanceMetric;
import java.io.PrintStream;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * {@code create-index <dataset> --column vector --type IVF_PQ ...}: builds a vector index over
 * every fragment and commits it as a new version. Progress goes to stderr (the engine's log).
 */
final class CreateIndexCommand {
  static final String USAGE =
      "create-index <dataset> --column vector --type IVF_FLAT|IVF_PQ|IVF_SQ|IVF_RQ|IVF_HNSW_FLAT|"
          + "IVF_HNSW_SQ|IVF_HNSW_PQ [--metric l2|cosine|dot] [--num-partitions N] [--num-sub-vectors 16] "
          + "[--num-bits 8 (IVF_RQ: 1)] [--m 20] [--ef-construction 150] [--sample-rate 256] [--max-iterations 50] "
          + "[--name vector_idx] [--replace] [--json]";

  private static final List<IndexType> VECTOR_TYPES =
      Arrays.stream(IndexType.values()).filter(t -> t.isVector() && t.isSupported()).toList();

  private CreateIndexCommand() {}

  static int run(List<String> raw, PrintStream out) {
    Args a =
        Args.parse(
            raw,
            Set.of(
                "column",
                "type",
                "metric",
                "num-partitions",
                "num-sub-vectors",
                "num-bits",
                "m",
                "ef-construction",
                "sample-rate",
                "max-iterations",
                "name"),
            Set.of("replace", "json"));
    String location = a.positional(0, "<dataset>");
    if (a.positionalCount() > 1) {
      throw new Args.UsageException(
          "unexpected argument \"" + a.positional(1, "") + "\"; options start with --");
    }
    String column = a.get("column");
    if (column == null) {
      throw new Args.UsageException("missing --column (the vector column to index)");
    }
    VectorIndexSpec spec = spec(a);
    try (Dataset ds = Dataset.open(location)) {
      long started = System.nanoTime();
      Dataset next = VectorIndexes.create(ds, column, spec);
      long millis = (System.nanoTime() - started) / 1_000_000;
      Map<String, Object> index = IndexReport.describe(next, spec.nameFor(column));
      if (a.flag("json")) {
        Map<String, Object> obj = new LinkedHashMap<>();
        obj.put("dataset", next.location());
        obj.put("version", next.version());
        obj.put("build_millis", millis);
        obj.put("index", index);
        out.println(JsonRows.json(obj));
      } else {
        out.printf(
            "created %s index \"%s\" on %s in %.1f s; dataset is now at version %d%n",
            spec.type(), spec.nameFor(column), column, millis / 1000.0, next.version());
        IndexReport.print(index, out);
      }
    }
    return 0;
  }

  /** The spec the options describe; options that do not apply to the type are refused. */
  static VectorIndexSpec spec(Args a) {
    String typeName = a.get("type");
    if (typeName == null) {
      throw new Args.UsageException("missing --type (one of " + typeList() + ")");
    }
    IndexType type =
        Arrays.stream(IndexType.values())
            .filter(IndexType::isSupported)
            .filter(t -> t.name().equalsIgnoreCase(typeName.trim()))
            .findFirst()
            .orElse(null);
    if (type == IndexType.BTREE) {
      throw new Args.UsageException(
          "--type "
              + typeName
              + " is a scalar index; use create-scalar-index for BTree "
              + "indexes, or one of "
              + typeList()
              + " here");
    }
    if (type == null || !type.isVector()) {
      throw new Args.UsageException(
          "unknown vector index type \"" + typeName + "\"; use --type with one of " + typeList());
    }
    boolean pq = type == IndexType.IVF_PQ || type == IndexType.IVF_HNSW_PQ;
    boolean sq = type == IndexType.IVF_SQ || type == IndexType.IVF_HNSW_SQ;
    refuseUnless(a, "num-sub-vectors", pq, type, "the PQ types IVF_PQ and IVF_HNSW_PQ");
    refuseUnless(
        a,
        "num-bits",
        pq || sq || type == IndexType.IVF_RQ,
        type,
        "the quantized types IVF_PQ, IVF_SQ, IVF_RQ, IVF_HNSW_PQ and IVF_HNSW_SQ");
    refuseUnless(
        a, "m", type.isHnsw(), type, "the HNSW types IVF_HNSW_FLAT, IVF_HNSW_SQ and IVF_HNSW_PQ");
    refuseUnless(
        a,
        "ef-construction",
        type.isHnsw(),
        type,
        "the HNSW types IVF_HNSW_FLAT, IVF_HNSW_SQ and IVF_HNSW_PQ");

    VectorIndexSpec spec = VectorIndexSpec.of(type, DistanceMetric.parse(a.get("metric", "l2")));
    if (a.has("num-partitions")) {
      spec = spec.withNumPartitions(a.intOption("num-partitions"));
    }
    if (a.has("num-sub-vectors")) {
      spec = spec.withNumSubVectors(a.intOption("num-sub-vectors"));
    }
    if (a.has("num-bits")) {
      spec = spec.withNumBits(a.intOption("num-bits"));
    }
    if (a.has("m") || a.has("ef-construction")) {
      spec =
          spec.withHnsw(
              a.has("m") ? a.intOption("m") : spec.m(),
              a.has("ef-construction") ? a.intOption("ef-construction") : spec.efConstruction(),
              spec.maxLevel());
    }
    if (a.has("sample-rate")) {
      spec = spec.withSampleRate(a.intOption("sample-rate"));
    }
    if (a.has("max-iterations")) {
      spec = spec.withMaxIters(a.intOption("max-iterations"));
    }
    if (a.has("name")) {
      spec = spec.withName(a.get("name"));
    }
    return spec.withReplace(a.flag("replace"));
  }

  private static void refuseUnless(
      Args a, String option, boolean applies, IndexType type, String appliesTo) {
    if (a.has(option) && !applies) {
      throw new Args.UsageException(
          "option --"
              + option
              + " does not apply to "
              + type
              + " indexes, only to "
              + appliesTo
              + "; remove it or choose another --type");
    }
  }

  private static String typeList() {
    return VECTOR_TYPES.stream().map(Enum::name).collect(Collectors.joining(", "));
  }
}
