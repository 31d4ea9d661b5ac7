package dev.lancelot.cli;

import dev.lancelot.engine.BasePathInfo;
import dev.lancelot.engine.Branch;
import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.FragmentInfo;
import dev.lancelot.engine.OpenOptions;
import dev.lancelot.engine.Tag;
import dev.lancelot.engine.VersionInfo;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code lancelot info <dataset> [--version V | --tag T] [--branch B] [--json]}: versions,
 * fragments, indexes with their statistics and coverage (indexed and unindexed fragments and rows),
 * and the dataset's tags and branches.
 */
final class InfoCommand {
  static final String USAGE = "info <dataset> [--version V | --tag T] [--branch B] [--json]";

  private InfoCommand() {}

  static int run(List<String> raw, PrintStream out) {
    Args a = Args.parse(raw, Set.of("version", "tag", "branch"), Set.of("json"));
    String location = a.positional(0, "<dataset>");
    OpenOptions open = a.openOptions();
    try (Dataset ds = Dataset.open(location, open)) {
      Map<String, Object> info = describe(ds);
      if (a.flag("json")) {
        out.println(JsonRows.json(info));
      } else {
        printHuman(ds, info, out);
      }
    }
    return 0;
  }

  static Map<String, Object> describe(Dataset ds) {
    Map<String, Object> info = new LinkedHashMap<>();
    info.put("location", ds.location());
    info.put("branch", ds.branch().orElse("main"));
    info.put("version", ds.version());
    info.put("format", "lance " + ds.dataStorageVersion());
    if (!ds.dataFileVersions().equals(Set.of(ds.dataStorageVersion()))) {
      info.put("file_versions", List.copyOf(ds.dataFileVersions()));
    }
    info.put("stable_row_ids", ds.stableRowIds());
    List<Map<String, Object>> bases = new ArrayList<>();
    for (BasePathInfo b : ds.basePaths()) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("id", b.id());
      m.put("name", b.name().orElse(null));
      m.put("path", b.location());
      m.put("dataset_root", b.datasetRoot());
      bases.add(m);
    }
    if (!bases.isEmpty()) {
      info.put("bases", bases);
    }
    info.put("rows", ds.countRows());
    info.put(
        "schema",
        ds.lanceSchema().fields().stream()
            .map(
                f ->
                    f.name()
                        + ": "
                        + (f.isBlobV2()
                            ? "blob v2"
                            : f.isLegacyBlob() ? "blob (large_binary)" : f.logicalType()))
            .toList());
    List<Map<String, Object>> versions = new ArrayList<>();
    for (VersionInfo v : ds.versions()) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("version", v.version());
      m.put("operation", v.operation());
      m.put("rows", v.rows());
      m.put("fragments", v.fragments());
      m.put("timestamp", v.timestamp().toString());
      versions.add(m);
    }
    info.put("versions", versions);
    List<Map<String, Object>> fragments = new ArrayList<>();
    for (FragmentInfo f : ds.fragments()) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("id", f.id());
      m.put("rows", f.rows());
      m.put("deleted", f.deletedRows());
      m.put("files", f.dataFiles());
      fragments.add(m);
    }
    info.put("fragments", fragments);
    List<Map<String, Object>> indexes = new ArrayList<>();
    for (String name : ds.indexes().names()) {
      indexes.add(IndexReport.describe(ds, name));
    }
    info.put("indexes", indexes);
    List<Map<String, Object>> tags = new ArrayList<>();
    for (Tag t : ds.tags().list()) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("name", t.name());
      m.put("branch", t.branch().orElse("main"));
      m.put("version", t.version());
      m.put("created_at", t.createdAt().map(Object::toString).orElse(null));
      tags.add(m);
    }
    info.put("tags", tags);
    List<Map<String, Object>> branches = new ArrayList<>();
    for (Branch b : ds.branches()) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("name", b.name());
      m.put("parent_branch", b.parentBranch().orElse("main"));
      m.put("parent_version", b.parentVersion());
      m.put("created_at", b.createdAt().toString());
      branches.add(m);
    }
    info.put("branches", branches);
    return info;
  }

  @SuppressWarnings("unchecked")
  private static void printHuman(Dataset ds, Map<String, Object> info, PrintStream out) {
    out.printf("dataset   %s%n", info.get("location"));
    if (!"main".equals(info.get("branch"))) {
      out.printf("branch    %s%n", info.get("branch"));
    }
    out.printf(
        "version   %s (format %s), %,d rows%n",
        info.get("version"), info.get("format"), ds.countRows());
    if (Boolean.TRUE.equals(info.get("stable_row_ids"))) {
      out.printf("row ids   stable (_rowid is each row's stable id, not its address)%n");
    }
    if (info.containsKey("file_versions")) {
      out.printf(
          "files     of format versions %s (each read by its own)%n", info.get("file_versions"));
    }
    if (info.containsKey("bases")) {
      for (Map<String, Object> b : (List<Map<String, Object>>) info.get("bases")) {
        out.printf(
            "base %-4s %s%s%s%n",
            b.get("id"),
            b.get("path"),
            b.get("name") == null ? "" : " (" + b.get("name") + ")",
            Boolean.TRUE.equals(b.get("dataset_root")) ? ", a dataset root" : "");
      }
    }
    out.printf("schema    %s%n", String.join(", ", (List<String>) info.get("schema")));
    out.println();
    out.println("versions");
    for (Map<String, Object> v : (List<Map<String, Object>>) info.get("versions")) {
      out.printf(
          "  %4d  %-12s %,12d rows  %4d fragments  %s%n",
          IndexReport.num(v.get("version")),
          v.get("operation"),
          IndexReport.num(v.get("rows")),
          IndexReport.num(v.get("fragments")),
          v.get("timestamp"));
    }
    out.println();
    out.println("fragments");
    for (Map<String, Object> f : (List<Map<String, Object>>) info.get("fragments")) {
      out.printf(
          "  %4d  %,12d rows  %,8d deleted  %s%n",
          IndexReport.num(f.get("id")),
          IndexReport.num(f.get("rows")),
          IndexReport.num(f.get("deleted")),
          f.get("files"));
    }
    out.println();
    List<Map<String, Object>> indexes = (List<Map<String, Object>>) info.get("indexes");
    out.println(indexes.isEmpty() ? "indexes   (none)" : "indexes");
    for (Map<String, Object> i : indexes) {
      IndexReport.print(i, out);
    }
    out.println();
    List<Map<String, Object>> tags = (List<Map<String, Object>>) info.get("tags");
    out.println(tags.isEmpty() ? "tags      (none)" : "tags");
    for (Map<String, Object> t : tags) {
      out.printf("  %-20s %s version %s%n", t.get("name"), t.get("branch"), t.get("version"));
    }
    List<Map<String, Object>> branches = (List<Map<String, Object>>) info.get("branches");
    out.println(branches.isEmpty() ? "branches  (none)" : "branches");
    for (Map<String, Object> b : branches) {
      out.printf(
          "  %-20s from %s version %s%n",
          b.get("name"), b.get("parent_branch"), b.get("parent_version"));
    }
  }
}
