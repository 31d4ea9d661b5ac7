package dev.lancelot.engine.internal.table;

import dev.lancelot.engine.BasePathInfo;
import dev.lancelot.engine.InitialBase;
import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.internal.format.proto.TableProtos.BasePath;
import dev.lancelot.engine.internal.format.proto.TableProtos.Manifest;
import dev.lancelot.engine.io.FileIO;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The base paths a create registers (decision D68): checked before anything is written, and turned
 * into manifest entries with ids 1, 2, ... in the order given. A base's path must be an absolute
 * URI whose scheme the dataset's file system reaches, or an absolute path on the root's file
 * system; names and locations must be unique, so a target base always means one base.
 */
public final class NewBases {
  private NewBases() {}

  /**
   * The manifest entries of {@code bases} for the dataset at {@code paths}.
   *
   * @throws InvalidInputException a path that is not absolute, has {@code .}/{@code ..} segments, a
   *     query or fragment, or a scheme the file system does not reach; a blank or repeated name; a
   *     repeated location
   */
  public static List<BasePath> check(FileIO io, DatasetPaths paths, List<InitialBase> bases) {
    List<BasePath> out = new ArrayList<>();
    Set<String> names = new HashSet<>();
    Set<String> locations = new HashSet<>();
    int id = 1;
    for (InitialBase b : bases) {
      if (b == null) {
        throw refused(paths, "null", "a base must not be null");
      }
      String path = b.path();
      if (path == null || path.isBlank()) {
        throw refused(paths, String.valueOf(path), "its path is empty");
      }
      checkPath(paths, path);
      if (b.name() != null && (b.name().isBlank() || !names.add(b.name()))) {
        throw refused(
            paths,
            path,
            b.name().isBlank()
                ? "its name is blank (give a name, or null for none)"
                : "another base has the name \"" + b.name() + "\"");
      }
      BasePath.Builder proto =
          BasePath.newBuilder().setId(id++).setPath(path).setIsDatasetRoot(b.datasetRoot());
      if (b.name() != null) {
        proto.setName(b.name());
      }
      BasePath entry = proto.build();
      String location = infos(paths, List.of(entry)).get(0).location();
      if (!locations.add(location)) {
        throw refused(paths, path, "another base has the same location " + location);
      }
      try {
        io.exists(location); // a scheme no file system serves fails here
      } catch (RuntimeException e) {
        throw refused(
            paths,
            path,
            "its file system cannot be reached with the dataset's configuration ("
                + e.getMessage()
                + ")");
      }
      out.add(entry);
    }
    return out;
  }

  /** The bases {@code entries} describe, as a version registering them would list them. */
  public static List<BasePathInfo> infos(DatasetPaths paths, List<BasePath> entries) {
    return BasePaths.of(paths, Manifest.newBuilder().addAllBasePaths(entries).build()).infos();
  }

  private static void checkPath(DatasetPaths paths, String path) {
    URI uri;
    try {
      uri = new URI(path);
    } catch (URISyntaxException e) {
      throw refused(paths, path, "it is not a valid URI or absolute path (" + e.getMessage() + ")");
    }
    boolean scheme = uri.getScheme() != null && uri.getScheme().length() > 1;
    if (scheme ? uri.isOpaque() : !path.startsWith("/")) {
      throw refused(
          paths,
          path,
          "it is relative; give an absolute URI (s3://bucket/dir, file:///dir) or an absolute path");
    }
    if (uri.getRawQuery() != null || uri.getRawFragment() != null) {
      throw refused(paths, path, "it has a query or fragment");
    }
    String p = uri.getRawPath() == null ? "" : uri.getRawPath();
    for (String segment : p.split("/", -1)) {
      if (segment.equals(".") || segment.equals("..")) {
        throw refused(paths, path, "it has \".\" or \"..\" segments");
      }
    }
  }

  private static InvalidInputException refused(DatasetPaths paths, String path, String why) {
    return new InvalidInputException(
        "Cannot create "
            + paths.root()
            + " with base path \""
            + path
            + "\": "
            + why
            + ". Nothing was written.");
  }
}
