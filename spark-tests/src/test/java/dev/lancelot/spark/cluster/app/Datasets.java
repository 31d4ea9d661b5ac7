package dev.lancelot.spark.cluster.app;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.VersionInfo;
import java.util.ArrayList;
import java.util.List;

/** What the engine says about a dataset, without timestamps or paths. */
final class Datasets {
  private Datasets() {}

  /** "version operation rows fragments" per committed version, oldest first. */
  static List<String> versions(String path) {
    List<String> out = new ArrayList<>();
    try (Dataset ds = Dataset.open(path)) {
      for (VersionInfo v : ds.versions()) {
        out.add(v.version() + " " + v.operation() + " " + v.rows() + " " + v.fragments());
      }
    }
    return out;
  }
}
