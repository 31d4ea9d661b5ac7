package dev.lancelot.engine.internal.table;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.LancelotException;
import dev.lancelot.engine.io.FileEntry;
import dev.lancelot.engine.io.FileIO;
import dev.lancelot.engine.io.InputFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * Tags and branches as Lance 7 stores them at the root of a dataset (Lance's {@code
 * dataset/refs.rs}, checked against lance-core 7.0.0):
 *
 * <ul>
 *   <li>a tag is {@code _refs/tags/<name>.json}: {@code {"branch": null | "<branch>", "version": n,
 *       "createdAt": "<RFC 3339>", "updatedAt": "<RFC 3339>", "manifestSize": bytes, "metadata":
 *       {}}} (timestamps and metadata are optional when reading);
 *   <li>a branch is {@code _refs/branches/<name>.json}, a {@code /} in the name written {@code
 *       %2F}: {@code {"parentBranch": null | "<branch>", "identifier": {...}, "parentVersion": n,
 *       "createAt": unix seconds, "manifestSize": bytes, "metadata": {}}};
 *   <li>a branch's own versions live in a dataset under {@code tree/<name>/} (its {@code /}
 *       segments are directories), whose manifests carry the branch name and reach the files they
 *       share with their parent through a base path naming the dataset root.
 * </ul>
 *
 * Names are checked with Lance's rules before any path is built from them, so that no name can
 * reach outside {@code _refs/} or {@code tree/}.
 */
public final class Refs {
  public static final String TAGS = "_refs/tags";
  public static final String BRANCHES = "_refs/branches";

  /** Newer Lance releases publish refs here instead; lancelot does not read that layout. */
  public static final String CATALOG = "_refs/catalog";

  public static final String TREE = "tree";
  public static final String MAIN = "main";

  private static final ObjectMapper JSON = new ObjectMapper();

  /** One tag file's content. */
  public record TagFile(
      String name,
      Optional<String> branch,
      long version,
      long manifestSize,
      Optional<Instant> createdAt,
      Optional<Instant> updatedAt,
      Map<String, String> metadata) {}

  /** One branch file's content. */
  public record BranchFile(
      String name,
      Optional<String> parentBranch,
      long parentVersion,
      long createdAtSeconds,
      Map<String, String> metadata) {}

  private final FileIO io;
  private final String root;

  /**
   * @param root the dataset root (of the main branch), fully qualified
   */
  public Refs(FileIO io, String root) {
    this.io = io;
    this.root = root;
  }

  /** The refusal to create branch {@code name}, which exists. */
  public InvalidInputException branchExists(String name) {
    return new InvalidInputException(
        "Cannot create branch \""
            + name
            + "\" of "
            + root
            + ": it already exists (created from version "
            + branch(name).parentVersion()
            + "). Delete it first, or choose another name.");
  }

  public String root() {
    return root;
  }

  // ---------------------------------------------------------------- names

  /** Lance's tag name rules: letters, digits, '.', '-', '_'; no leading/trailing dot, no "..". */
  public static void checkTagName(String name) {
    String why = tagNameProblem(name);
    if (why != null) {
      throw new InvalidInputException(
          "Invalid tag name \""
              + name
              + "\": "
              + why
              + ". Tag names use letters, digits, '.', '-' and '_' only, and do not start or end "
              + "with '.', contain \"..\" or end with \".lock\".");
    }
  }

  private static String tagNameProblem(String name) {
    if (name == null || name.isEmpty()) {
      return "it is empty";
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (!(Character.isLetterOrDigit(c) || c == '.' || c == '-' || c == '_')) {
        return "character '" + c + "' is not allowed";
      }
    }
    if (name.startsWith(".") || name.endsWith(".")) {
      return "it starts or ends with '.'";
    }
    if (name.contains("..")) {
      return "it contains \"..\"";
    }
    if (name.endsWith(".lock")) {
      return "it ends with \".lock\"";
    }
    return null;
  }

  /**
   * Lance's branch name rules: segments separated by single '/', each of letters, digits, '.', '-',
   * '_'; no "..", no '\', not "main", not ending with ".lock".
   */
  public static void checkBranchName(String name) {
    String why = branchNameProblem(name);
    if (why != null) {
      throw new InvalidInputException(
          "Invalid branch name \""
              + name
              + "\": "
              + why
              + ". Branch names are segments of letters, digits, '.', '-' and '_' separated by "
              + "single '/', without \"..\", and not \"main\" (the main branch is the dataset "
              + "itself: read it without a branch).");
    }
  }

  private static String branchNameProblem(String name) {
    if (name == null || name.isEmpty()) {
      return "it is empty";
    }
    if (name.equals(MAIN)) {
      return "\"main\" is the dataset itself, not a named branch";
    }
    if (name.contains("..") || name.contains("\\")) {
      return "it contains \"..\" or '\\', which could leave the dataset";
    }
    if (name.startsWith("/") || name.endsWith("/") || name.contains("//")) {
      return "it starts or ends with '/' or has an empty segment";
    }
    for (String segment : name.split("/", -1)) {
      for (int i = 0; i < segment.length(); i++) {
        char c = segment.charAt(i);
        if (!(Character.isLetterOrDigit(c) || c == '.' || c == '-' || c == '_')) {
          return "character '" + c + "' is not allowed";
        }
      }
      if (segment.equals(".")) {
        return "segment \".\" is not allowed";
      }
    }
    if (name.endsWith(".lock")) {
      return "it ends with \".lock\"";
    }
    return null;
  }

  /** Where the versions of branch {@code name} of the dataset at {@code root} live. */
  public static String branchLocation(String root, String name) {
    checkBranchName(name);
    return root + "/" + TREE + "/" + name;
  }

  /**
   * The root of the main branch for a dataset at {@code location} whose manifest says it is on
   * {@code branch} (empty for main): {@code location} without its {@code /tree/<branch>} suffix.
   */
  public static String mainRoot(String location, String branch) {
    if (branch == null || branch.isEmpty()) {
      return location;
    }
    String suffix = "/" + TREE + "/" + branch;
    if (!location.endsWith(suffix)) {
      throw new LancelotException(
          "Cannot read "
              + location
              + ": its manifest says it is branch \""
              + branch
              + "\", but it is not at <dataset>/"
              + TREE
              + "/"
              + branch
              + ". Open the branch through its dataset (the branch option) instead.");
    }
    return location.substring(0, location.length() - suffix.length());
  }

  private String tagFile(String name) {
    return root + "/" + TAGS + "/" + name + ".json";
  }

  private String branchFile(String name) {
    return branchFileLocation(root, name);
  }

  /** Where the ref of branch {@code name} of the dataset at {@code root} is. */
  public static String branchFileLocation(String root, String name) {
    checkBranchName(name);
    return root + "/" + BRANCHES + "/" + name.replace("/", "%2F") + ".json";
  }

  /**
   * Refuses to touch refs of a dataset whose refs a newer Lance keeps in {@code _refs/catalog/}:
   * lancelot would see stale tags and branches, and Lance would not see lancelot's.
   */
  public void checkLayout() {
    if (!io.list(root + "/" + CATALOG).isEmpty()) {
      throw new LancelotException(
          "Cannot use the tags and branches of "
              + root
              + ": they are kept in "
              + CATALOG
              + "/, a layout of newer Lance releases that lancelot does not read (it reads "
              + TAGS
              + "/ and "
              + BRANCHES
              + "/, as Lance 7 writes them).");
    }
  }

  // ---------------------------------------------------------------- tags

  /** Every tag, by name. */
  public List<TagFile> tags() {
    checkLayout();
    List<TagFile> out = new ArrayList<>();
    for (FileEntry f : io.list(root + "/" + TAGS)) {
      if (f.isDirectory() || !f.name().endsWith(".json")) {
        continue;
      }
      String name = f.name().substring(0, f.name().length() - ".json".length());
      out.add(parseTag(name, f.location(), read(f.location())));
    }
    out.sort(Comparator.comparing(TagFile::name));
    return out;
  }

  public Optional<TagFile> findTag(String name) {
    checkTagName(name);
    checkLayout();
    String location = tagFile(name);
    if (!io.exists(location)) {
      return Optional.empty();
    }
    return Optional.of(parseTag(name, location, read(location)));
  }

  /** The tag {@code name}; a missing one is an error naming the tags there are. */
  public TagFile tag(String name) {
    return findTag(name)
        .orElseThrow(
            () ->
                new InvalidInputException(
                    "Cannot find tag \""
                        + name
                        + "\" of "
                        + root
                        + ": "
                        + describeTags()
                        + ". Create it first, or check the name."));
  }

  private String describeTags() {
    List<String> names = tags().stream().map(TagFile::name).toList();
    return names.isEmpty() ? "the dataset has no tags" : "its tags are " + names;
  }

  /**
   * Writes a new tag; fails if one of that name exists (another writer's included: the file is
   * created with put-if-absent).
   */
  public void createTag(TagFile tag) {
    checkTagName(tag.name());
    checkLayout();
    if (!io.putIfAbsent(tagFile(tag.name()), serialize(tag))) {
      throw new InvalidInputException(
          "Cannot create tag \""
              + tag.name()
              + "\" of "
              + root
              + ": it already exists (on version "
              + tag(tag.name()).version()
              + "). Delete it first, or update it to move it.");
    }
  }

  /** Replaces an existing tag's content. */
  public void replaceTag(TagFile tag) {
    tag(tag.name()); // exists
    io.overwrite(tagFile(tag.name()), serialize(tag));
  }

  public void deleteTag(String name) {
    tag(name); // exists, with the error naming the tags otherwise
    io.delete(tagFile(name));
  }

  private TagFile parseTag(String name, String location, JsonNode n) {
    if (n == null || !n.isObject() || !n.path("version").canConvertToLong()) {
      throw new LancelotException(
          "Cannot read tag \""
              + name
              + "\" of "
              + root
              + ": "
              + location
              + " has no numeric \"version\". The tag file is damaged; delete it or rewrite it "
              + "with Lance.");
    }
    Optional<String> branch = text(n, "branch");
    return new TagFile(
        name,
        branch,
        n.path("version").asLong(),
        n.path("manifestSize").asLong(0),
        instant(n, "createdAt", location),
        instant(n, "updatedAt", location),
        stringMap(n.path("metadata")));
  }

  private static byte[] serialize(TagFile tag) {
    ObjectNode n = JSON.createObjectNode();
    if (tag.branch().isPresent()) {
      n.put("branch", tag.branch().get());
    } else {
      n.putNull("branch");
    }
    n.put("version", tag.version());
    tag.createdAt().ifPresent(t -> n.put("createdAt", t.toString()));
    tag.updatedAt().ifPresent(t -> n.put("updatedAt", t.toString()));
    n.put("manifestSize", tag.manifestSize());
    ObjectNode metadata = n.putObject("metadata");
    tag.metadata().forEach(metadata::put);
    return pretty(n);
  }

  private static byte[] pretty(ObjectNode n) {
    try {
      return JSON.writerWithDefaultPrettyPrinter()
          .writeValueAsString(n)
          .getBytes(StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  // ---------------------------------------------------------------- branches

  /** Every branch, by name. */
  public List<BranchFile> branches() {
    checkLayout();
    List<BranchFile> out = new ArrayList<>();
    for (FileEntry f : io.list(root + "/" + BRANCHES)) {
      if (f.isDirectory() || !f.name().endsWith(".json")) {
        continue;
      }
      String name = f.name().substring(0, f.name().length() - ".json".length()).replace("%2F", "/");
      out.add(parseBranch(name, f.location(), read(f.location())));
    }
    out.sort(Comparator.comparing(BranchFile::name));
    return out;
  }

  /** The branch {@code name}; a missing one is an error naming the branches there are. */
  public BranchFile branch(String name) {
    checkBranchName(name);
    checkLayout();
    String location = branchFile(name);
    if (!io.exists(location)) {
      List<String> names = branches().stream().map(BranchFile::name).toList();
      throw new InvalidInputException(
          "Cannot find branch \""
              + name
              + "\" of "
              + root
              + ": "
              + (names.isEmpty() ? "the dataset has no branches" : "its branches are " + names)
              + ".");
    }
    return parseBranch(name, location, read(location));
  }

  /**
   * Writes the ref of a new branch {@code name} created from {@code parentVersion} of {@code
   * parentBranch} (empty: main), whose manifest is {@code manifestSize} bytes: its identifier is
   * the parent's followed by {@code [parentVersion, <new uuid>]}, as Lance records a branch's
   * lineage. Fails if a branch of that name exists (another writer's included: put-if-absent).
   */
  public BranchFile createBranch(
      String name, Optional<String> parentBranch, long parentVersion, long manifestSize) {
    checkBranchName(name);
    checkLayout();
    ArrayNode lineage = JSON.createArrayNode();
    if (parentBranch.isPresent()) {
      JsonNode parent = read(branchFile(branch(parentBranch.get()).name()));
      JsonNode mapping = parent.path("identifier").path("version_mapping");
      if (mapping.isArray()) {
        mapping.forEach(lineage::add);
      }
    }
    ArrayNode own = lineage.addArray();
    own.add(parentVersion);
    own.add(UUID.randomUUID().toString().replace("-", ""));
    long createdAt = Instant.now().getEpochSecond();
    ObjectNode n = JSON.createObjectNode();
    if (parentBranch.isPresent()) {
      n.put("parentBranch", parentBranch.get());
    } else {
      n.putNull("parentBranch");
    }
    n.putObject("identifier").set("version_mapping", lineage);
    n.put("parentVersion", parentVersion);
    n.put("createAt", createdAt);
    n.put("manifestSize", manifestSize);
    n.putObject("metadata");
    if (!io.putIfAbsent(branchFile(name), pretty(n))) {
      throw branchExists(name);
    }
    return new BranchFile(name, parentBranch, parentVersion, createdAt, Map.of());
  }

  /** Deletes the ref of branch {@code name} (which must exist); its versions stay. */
  public void deleteBranchRef(String name) {
    branch(name); // exists, with the error naming the branches otherwise
    io.delete(branchFile(name));
  }

  private BranchFile parseBranch(String name, String location, JsonNode n) {
    if (n == null || !n.isObject() || !n.path("parentVersion").canConvertToLong()) {
      throw new LancelotException(
          "Cannot read branch \""
              + name
              + "\" of "
              + root
              + ": "
              + location
              + " has no numeric \"parentVersion\". The branch file is damaged.");
    }
    return new BranchFile(
        name,
        text(n, "parentBranch"),
        n.path("parentVersion").asLong(),
        n.path("createAt").asLong(0),
        stringMap(n.path("metadata")));
  }

  // ---------------------------------------------------------------- JSON

  private JsonNode read(String location) {
    try (InputFile in = io.newInputFile(location)) {
      ByteBuffer buf = in.read(0, Math.toIntExact(in.length()));
      byte[] b = new byte[buf.remaining()];
      buf.get(b);
      return JSON.readTree(b);
    } catch (IOException e) {
      throw new LancelotException(
          "Cannot read " + location + ": it is not JSON (" + e.getMessage() + ").", e);
    }
  }

  private static Optional<String> text(JsonNode n, String field) {
    JsonNode v = n.get(field);
    if (v == null || v.isNull() || v.asText().isEmpty() || v.asText().equals(MAIN)) {
      return Optional.empty();
    }
    return Optional.of(v.asText());
  }

  private static Optional<Instant> instant(JsonNode n, String field, String location) {
    JsonNode v = n.get(field);
    if (v == null || v.isNull()) {
      return Optional.empty();
    }
    try {
      return Optional.of(java.time.OffsetDateTime.parse(v.asText()).toInstant());
    } catch (DateTimeParseException e) {
      throw new LancelotException(
          "Cannot read " + location + ": \"" + field + "\" is not an RFC 3339 timestamp.", e);
    }
  }

  private static Map<String, String> stringMap(JsonNode n) {
    Map<String, String> out = new LinkedHashMap<>();
    if (n != null && n.isObject()) {
      for (Map.Entry<String, JsonNode> e : n.properties()) {
        out.put(e.getKey(), e.getValue().asText());
      }
    }
    return out;
  }
}
