package dev.lancelot.engine.internal.table;

import dev.lancelot.engine.LancelotException;
import dev.lancelot.engine.internal.format.ManifestNaming;
import dev.lancelot.engine.io.FileEntry;
import dev.lancelot.engine.io.FileIO;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;

/** The manifests in {@code _versions/}: listing, naming scheme detection, latest version. */
public final class VersionLog {
  /** One manifest file. */
  public record Entry(
      long version, ManifestNaming naming, String location, long size, long modificationTime) {}

  private VersionLog() {}

  /** All committed versions, oldest first. Refuses a directory mixing both naming schemes. */
  public static List<Entry> list(FileIO io, DatasetPaths paths) {
    List<Entry> out = new ArrayList<>();
    EnumSet<ManifestNaming> seen = EnumSet.noneOf(ManifestNaming.class);
    for (FileEntry f : io.list(paths.versionsDir())) {
      if (f.isDirectory()) {
        continue;
      }
      Optional<ManifestNaming.Parsed> parsed = ManifestNaming.parse(f.name());
      if (parsed.isPresent()) {
        seen.add(parsed.get().naming());
        out.add(
            new Entry(
                parsed.get().version(),
                parsed.get().naming(),
                f.location(),
                f.length(),
                f.modificationTime()));
      }
    }
    if (seen.size() > 1) {
      throw new LancelotException(
          "Cannot read dataset "
              + paths.root()
              + ": _versions/ mixes both manifest naming "
              + "schemes ({v}.manifest and the 20-digit form). Migrate the dataset to one scheme with Lance.");
    }
    out.sort(Comparator.comparingLong(Entry::version));
    return out;
  }

  public static Optional<Entry> latest(FileIO io, DatasetPaths paths) {
    List<Entry> all = list(io, paths);
    return all.isEmpty() ? Optional.empty() : Optional.of(all.get(all.size() - 1));
  }

  /** Finds the manifest of one version, trying the V2 name first, then V1. */
  public static Optional<Entry> find(FileIO io, DatasetPaths paths, long version) {
    if (version < 1) {
      return Optional.empty();
    }
    for (ManifestNaming naming : new ManifestNaming[] {ManifestNaming.V2, ManifestNaming.V1}) {
      String location = paths.versionsDir() + "/" + naming.fileName(version);
      if (io.exists(location)) {
        return Optional.of(new Entry(version, naming, location, -1, 0));
      }
    }
    return Optional.empty();
  }
}
