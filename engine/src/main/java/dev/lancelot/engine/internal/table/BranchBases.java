package dev.lancelot.engine.internal.table;

import dev.lancelot.engine.LancelotException;
import dev.lancelot.engine.internal.format.proto.TableProtos.BasePath;
import dev.lancelot.engine.internal.format.proto.TableProtos.Manifest;
import dev.lancelot.engine.io.HadoopFileIO;
import java.net.URI;
import java.util.HashMap;
import java.util.Map;

/**
 * The base paths of one manifest that lancelot follows: those inside the dataset the manifest
 * belongs to. A branch's manifests (under {@code <dataset>/tree/<branch>/}) reach the data files,
 * deletion files and index directories they share with the branch they were created from through a
 * base path naming that dataset's root (or, for a branch of a branch, the parent's directory under
 * {@code tree/}), with {@code is_dataset_root} set, so such a file lives under {@code
 * <base>/data/}, {@code <base>/_deletions/} or {@code <base>/_indices/}. A base path outside the
 * dataset (multi-base datasets) or one that is not a dataset root is refused when the version is
 * opened, with an error naming it.
 */
public final class BranchBases {
  private static final BranchBases NONE = new BranchBases(Map.of());

  private final Map<Integer, String> roots;

  private BranchBases(Map<Integer, String> roots) {
    this.roots = roots;
  }

  /** No base paths: every file lives under the dataset's own directory. */
  public static BranchBases none() {
    return NONE;
  }

  /**
   * The base paths of {@code manifest}, read at {@code location}, checked to lie inside the
   * dataset.
   */
  public static BranchBases of(String location, Manifest manifest) {
    if (manifest.getBasePathsCount() == 0) {
      return NONE;
    }
    String mainRoot = Refs.mainRoot(location, manifest.getBranch());
    Map<Integer, String> roots = new HashMap<>();
    for (BasePath b : manifest.getBasePathsList()) {
      String qualified = qualify(b.getPath(), mainRoot);
      boolean inside =
          qualified != null
              && (qualified.equals(mainRoot) || qualified.startsWith(mainRoot + "/"))
              && !qualified.contains("/../")
              && !qualified.endsWith("/..");
      if (!b.getIsDatasetRoot() || !inside) {
        throw new LancelotException(
            "Cannot read dataset "
                + location
                + ": its manifest registers base path "
                + b.getId()
                + " at \""
                + b.getPath()
                + "\""
                + (b.getIsDatasetRoot() ? "" : " (not a dataset root)")
                + ", and lancelot only follows base paths that are dataset roots inside "
                + mainRoot
                + " (those of branches). Read this dataset with Lance.");
      }
      roots.put(b.getId(), qualified);
    }
    return new BranchBases(Map.copyOf(roots));
  }

  /**
   * {@code path} as a URI comparable with {@code mainRoot}: a path without a scheme is on the file
   * system of {@code mainRoot}.
   */
  private static String qualify(String path, String mainRoot) {
    try {
      String trimmed = path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
      URI uri = new URI(trimmed.replace(" ", "%20"));
      if (uri.getScheme() != null && uri.getScheme().length() > 1) {
        return HadoopFileIO.qualify(trimmed);
      }
      URI root = new URI(mainRoot);
      String prefix =
          root.getScheme()
              + ":"
              + (root.getRawAuthority() != null ? "//" + root.getRawAuthority() : "");
      return prefix + (trimmed.startsWith("/") ? trimmed : "/" + trimmed);
    } catch (java.net.URISyntaxException e) {
      return null;
    }
  }

  public boolean isEmpty() {
    return roots.isEmpty();
  }

  /**
   * The directory holding {@code dir} ({@code data}, {@code _deletions}, {@code _indices}) for a
   * file registered under base {@code baseId}.
   */
  public String root(int baseId, String what) {
    String r = roots.get(baseId);
    if (r == null) {
      throw new LancelotException(
          "Cannot read "
              + what
              + ": it lives under base path "
              + baseId
              + ", which the manifest does not register. The manifest is inconsistent.");
    }
    return r;
  }
}
