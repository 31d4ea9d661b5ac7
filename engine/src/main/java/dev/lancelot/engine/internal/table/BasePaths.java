package dev.lancelot.engine.internal.table;

import dev.lancelot.engine.BasePathInfo;
import dev.lancelot.engine.LancelotException;
import dev.lancelot.engine.internal.format.DeletionFiles;
import dev.lancelot.engine.internal.format.proto.TableProtos.BasePath;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFile;
import dev.lancelot.engine.internal.format.proto.TableProtos.DeletionFile;
import dev.lancelot.engine.internal.format.proto.TableProtos.Manifest;
import dev.lancelot.engine.io.HadoopFileIO;
import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Where the files of one version live: under the dataset root, or, for a file whose manifest entry
 * has a {@code base_id}, under the manifest's {@code base_paths} entry of that id (reader and
 * writer feature flag 16). As in Lance, a base that is a dataset root holds data files under {@code
 * data/}, deletion files under {@code _deletions/} and index segments under {@code _indices/}; any
 * other base is a plain directory of data files or index segments (never of deletion files). Paths
 * relative to a base get the same escape checks as paths relative to the root.
 */
public final class BasePaths {
  private final DatasetPaths paths;
  private final Map<Integer, BasePath> byId;

  private BasePaths(DatasetPaths paths, Map<Integer, BasePath> byId) {
    this.paths = paths;
    this.byId = byId;
  }

  /** The bases {@code manifest} registers, for the dataset at {@code paths}. */
  public static BasePaths of(DatasetPaths paths, Manifest manifest) {
    Map<Integer, BasePath> byId = new LinkedHashMap<>();
    for (BasePath b : manifest.getBasePathsList()) {
      byId.put(b.getId(), b);
    }
    return new BasePaths(paths, byId);
  }

  /** The fully-qualified location of a data file. */
  public String dataFile(DataFile file) {
    if (!file.hasBaseId()) {
      return paths.dataFile(file.getPath());
    }
    BasePath base = base(file.getBaseId(), "data file", file.getPath());
    String dir = base.getIsDatasetRoot() ? root(base) + "/" + DatasetPaths.DATA : root(base);
    return paths.join(dir, file.getPath(), "data file");
  }

  /** The fully-qualified location of a fragment's deletion file. */
  public String deletionFile(long fragmentId, DeletionFile file) {
    String relative = DeletionFiles.relativePath(fragmentId, file);
    if (!file.hasBaseId()) {
      return paths.root() + "/" + relative;
    }
    BasePath base = base(file.getBaseId(), "deletion file", relative);
    if (!base.getIsDatasetRoot()) {
      throw corrupt(
          "deletion file "
              + relative
              + " under base "
              + describe(base)
              + ", which is not a dataset root; Lance keeps deletion files only under dataset roots");
    }
    return root(base) + "/" + relative;
  }

  /**
   * The fully-qualified directory of an index segment {@code uuid} whose manifest entry has base id
   * {@code baseId} (null: none).
   */
  public String indexDir(String uuid, Integer baseId) {
    if (baseId == null) {
      return paths.indexDir(uuid);
    }
    BasePath base = base(baseId, "index segment", uuid);
    String dir = base.getIsDatasetRoot() ? root(base) + "/" + DatasetPaths.INDICES : root(base);
    return paths.join(dir, uuid, "index segment");
  }

  /** The registered bases, in manifest order. */
  public List<BasePathInfo> infos() {
    List<BasePathInfo> out = new ArrayList<>();
    for (BasePath b : byId.values()) {
      out.add(
          new BasePathInfo(
              b.getId(),
              b.hasName() ? Optional.of(b.getName()) : Optional.empty(),
              b.getPath(),
              b.getIsDatasetRoot(),
              root(b)));
    }
    return out;
  }

  /** The fully-qualified location of base {@code id} (its {@code path}, qualified). */
  public String root(int id) {
    return root(base(id, "base", String.valueOf(id)));
  }

  private BasePath base(int id, String what, String path) {
    BasePath base = byId.get(id);
    if (base == null) {
      throw corrupt(
          what
              + " "
              + path
              + " under base id "
              + Integer.toUnsignedString(id)
              + ", which its base_paths do not define (they define "
              + byId.keySet()
              + ")");
    }
    return base;
  }

  /**
   * A base's path as a location: a URI with a scheme is kept; an absolute path (Lance 7 records
   * local bases so) is on the dataset root's file system; anything else is refused.
   */
  private String root(BasePath base) {
    String p = base.getPath();
    if (hasScheme(p)) {
      return HadoopFileIO.qualify(p);
    }
    if (!p.startsWith("/")) {
      throw corrupt("base " + describe(base) + " whose path is neither a URI nor absolute");
    }
    URI root = URI.create(paths.root());
    String prefix =
        root.getScheme()
            + ":"
            + (root.getRawAuthority() == null ? "" : "//" + root.getRawAuthority());
    return HadoopFileIO.qualify(prefix + p);
  }

  private static boolean hasScheme(String path) {
    try {
      URI uri = new URI(path);
      return uri.getScheme() != null && uri.getScheme().length() > 1;
    } catch (Exception e) {
      return false;
    }
  }

  private static String describe(BasePath base) {
    return Integer.toUnsignedString(base.getId())
        + (base.hasName() ? " (" + base.getName() + ")" : "")
        + " \""
        + base.getPath()
        + "\"";
  }

  private LancelotException corrupt(String what) {
    return new LancelotException(
        "Cannot read dataset "
            + paths.root()
            + ": the manifest lists "
            + what
            + ". The manifest is corrupt or crafted; refusing to follow it.");
  }
}
