package dev.lancelot.cli;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.FragmentInfo;
import dev.lancelot.engine.distributed.ScalarIndexBuild;
import dev.lancelot.engine.index.IndexSegment;
import dev.lancelot.engine.index.IndexType;
import dev.lancelot.engine.index.scalar.ScalarBuildParams;
import dev.lancelot.engine.index.scalar.ScalarIndexBuilder;
import dev.lancelot.engine.index.vector.VectorIndexes;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code optimize-indices <dataset> [--index NAME] [--retrain]}: brings indexes up to date with
 * fragments appended since they were built. A vector index gets one delta segment over the
 * unindexed fragments, encoded with its trained centroids and codebook ({@code --retrain}: a new
 * model over everything, replacing all segments). A scalar index of a kind lancelot builds (BTree,
 * bitmap, zone map, bloom filter, label list) is rebuilt over every fragment with its settings and
 * replaces its old segments. Each change commits one version.
 */
final class OptimizeIndicesCommand {
  static final String USAGE = "optimize-indices <dataset> [--index NAME] [--retrain] [--json]";

  private OptimizeIndicesCommand() {}

  static int run(List<String> raw, PrintStream out) {
    Args a = Args.parse(raw, Set.of("index"), Set.of("retrain", "json"));
    String location = a.positional(0, "<dataset>");
    if (a.positionalCount() > 1) {
      throw new Args.UsageException(
          "unexpected argument \"" + a.positional(1, "") + "\"; options start with --");
    }
    boolean retrain = a.flag("retrain");
    try (Dataset ds = Dataset.open(location)) {
      List<String> names = ds.indexes().names();
      if (a.has("index")) {
        String wanted = a.get("index");
        if (!names.contains(wanted)) {
          throw new Args.UsageException(
              "the dataset has no index \""
                  + wanted
                  + "\"; its indexes are "
                  + (names.isEmpty() ? "none" : String.join(", ", names)));
        }
        names = List.of(wanted);
      }
      Dataset current = ds;
      List<Map<String, Object>> results = new ArrayList<>();
      for (String name : names) {
        Map<String, Object> r = new LinkedHashMap<>();
        current = optimize(current, name, retrain, r);
        results.add(r);
      }
      if (a.flag("json")) {
        Map<String, Object> obj = new LinkedHashMap<>();
        obj.put("dataset", current.location());
        obj.put("version", current.version());
        obj.put("indexes", results);
        out.println(JsonRows.json(obj));
      } else {
        if (results.isEmpty()) {
          out.println("no indexes to optimize");
        }
        for (Map<String, Object> r : results) {
          out.println(human(r));
        }
        out.printf("dataset is at version %d%n", current.version());
      }
    }
    return 0;
  }

  /**
   * Optimizes one index, recording what was done in {@code r}; returns the (possibly new) version.
   */
  private static Dataset optimize(Dataset ds, String name, boolean retrain, Map<String, Object> r) {
    List<IndexSegment> before = ds.indexes().segments(name);
    IndexType type = before.get(0).type();
    List<Long> unindexed =
        ds.indexes().unindexedFragments(name).stream().map(FragmentInfo::id).toList();
    long unindexedRows = liveRows(ds.indexes().unindexedFragments(name));
    r.put("name", name);
    r.put("type", type.toString());
    Dataset next = ds;
    if (!type.isSupported() && !ScalarIndexBuilder.builds(type)) {
      r.put("action", "skipped");
      r.put("note", "index type not handled by this tool");
    } else if (unindexed.isEmpty() && !retrain) {
      r.put("action", "up_to_date");
    } else if (type.isVector()) {
      next = VectorIndexes.optimize(ds, name, retrain);
      r.put("action", retrain ? "retrained" : "delta_segment");
    } else {
      ScalarBuildParams params = ScalarIndexBuild.paramsOf(ds, name).withReplace(true);
      next = ScalarIndexBuilder.build(ds, params);
      r.put("action", "rebuilt");
      r.put("note", "scalar indexes are rebuilt over all fragments, replacing their segments");
    }
    List<IndexSegment> after = next.indexes().segments(name);
    Set<java.util.UUID> beforeIds =
        new java.util.HashSet<>(before.stream().map(IndexSegment::uuid).toList());
    Set<java.util.UUID> afterIds =
        new java.util.HashSet<>(after.stream().map(IndexSegment::uuid).toList());
    r.put("segments_added", after.stream().filter(s -> !beforeIds.contains(s.uuid())).count());
    r.put("segments_removed", before.stream().filter(s -> !afterIds.contains(s.uuid())).count());
    r.put("segments", after.size());
    boolean changed = next != ds;
    r.put("fragments_newly_covered", changed ? unindexed : List.of());
    r.put("rows_newly_covered", changed ? unindexedRows : 0L);
    r.put(
        "unindexed_fragments",
        next.indexes().unindexedFragments(name).stream().map(FragmentInfo::id).toList());
    r.put("version", next.version());
    return next;
  }

  private static long liveRows(List<FragmentInfo> fragments) {
    return fragments.stream().mapToLong(FragmentInfo::rows).sum();
  }

  @SuppressWarnings("unchecked")
  private static String human(Map<String, Object> r) {
    String head = r.get("name") + " (" + r.get("type") + "): ";
    List<Long> covered = (List<Long>) r.get("fragments_newly_covered");
    String newly =
        covered.isEmpty()
            ? "no new fragments"
            : "newly covers "
                + IndexReport.fragments(covered)
                + String.format(" (%,d rows)", IndexReport.num(r.get("rows_newly_covered")));
    return head
        + switch ((String) r.get("action")) {
          case "skipped" -> "skipped (" + r.get("note") + ")";
          case "up_to_date" -> "up to date, nothing to do";
          case "delta_segment" ->
              "added "
                  + r.get("segments_added")
                  + " delta segment; "
                  + newly
                  + "; version "
                  + r.get("version");
          case "retrained" ->
              "retrained over all fragments, "
                  + r.get("segments_added")
                  + " segment replaces "
                  + r.get("segments_removed")
                  + "; "
                  + newly
                  + "; version "
                  + r.get("version");
          case "rebuilt" ->
              "rebuilt over all fragments (scalar indexes are rebuilt, not extended), "
                  + r.get("segments_added")
                  + " segment replaces "
                  + r.get("segments_removed")
                  + "; "
                  + newly
                  + "; version "
                  + r.get("version");
          default -> String.valueOf(r.get("action"));
        };
  }
}
