package dev.lancelot.spark;

import dev.lancelot.engine.ClosestName;
import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.OpenOptions;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * Options of the {@code lance} data source. Every option is documented in docs/user-guide.md.
 *
 * <ul>
 *   <li>{@code path} — dataset location (any Hadoop path).
 *   <li>{@code version} — read this version instead of the latest (also {@code versionAsOf}); a
 *       value that is not a whole number is a tag name, as with {@code tag}.
 *   <li>{@code tag} — read the version this tag names, on the tag's branch.
 *   <li>{@code branch} — read this branch (its latest version, or {@code version}'s); {@code main}
 *       is the dataset itself.
 *   <li>{@code timestampAsOf} — read the version that was the latest at this instant, e.g. {@code
 *       "2026-01-31 12:00:00"} (in the session time zone); Spark resolves it through {@link
 *       LancePathCatalog#loadTable(org.apache.spark.sql.connector.catalog.Identifier, long)}.
 *   <li>{@code batch_size} — rows per columnar batch (default 8192).
 *   <li>{@code max_rows_per_partition} — fragments larger than this are split into several input
 *       partitions by row range (default 1,048,576).
 *   <li>{@code max_rows_per_file} — rows per data file (fragment) a write task produces at most
 *       (default 1,048,576).
 *   <li>{@code vector.columns} — on write, array columns to store as Lance vectors ({@code
 *       fixed_size_list}), as {@code name:dim} pairs separated by commas, e.g. {@code
 *       "vector:128,img_emb:512"}.
 *   <li>{@code enable_stable_row_ids} — {@code true} on a write that creates the dataset gives it
 *       stable row ids (lance-spark's name; default {@code false}); on an existing dataset without
 *       them it is refused.
 *   <li>{@code data_storage_version} — on a write that creates or overwrites the dataset, the Lance
 *       file format of its data files: {@code 2.1} (the default; also {@code stable}) or {@code
 *       2.2} (lance-spark's name). Appends keep the dataset's version; naming another is refused.
 *   <li>{@code target_base} — on a write, the base path (by name or path) new data files go to: one
 *       the dataset already registers (Lance's {@code target_bases} with one base); an unknown one
 *       is refused, naming the bases there are.
 *   <li>{@code streamingQueryId} — on a streaming write, the key that makes each micro-batch commit
 *       exactly once (lance-spark's name); default: the query's id, which Spark keeps in the
 *       checkpoint. Two queries writing one table must not share it.
 *   <li>{@code startingVersion}, {@code maxRowsPerTrigger}, {@code maxFilesPerTrigger}, {@code
 *       skipChangeCommits} — on a streaming read, where the stream starts, its rate limits and
 *       whether versions that delete or rewrite rows are skipped ({@link
 *       dev.lancelot.spark.read.LanceStreamOptions}).
 *   <li>{@code optimizeIndexEveryBatches}, {@code optimizeIndexUnindexedRows} — on a streaming
 *       write, optimize the table's indexes after every that many batches, or once an index has
 *       that many unindexed rows (semantics S13); refused on batch writes.
 * </ul>
 *
 * lance-spark's {@code max_row_per_file} is accepted for {@code max_rows_per_file}; lance-spark
 * options lancelot does not offer are refused saying what to do instead. Any other option is
 * refused, naming the closest valid one: a misspelt option must not silently read the latest
 * version or write with defaults.
 */
public record LanceOptions(
    String path,
    OptionalLong version,
    int batchSize,
    long maxRowsPerPartition,
    int maxRowsPerFile,
    Map<String, Integer> vectorColumns,
    Optional<String> tag,
    Optional<String> branch,
    boolean enableStableRowIds,
    Optional<String> dataStorageVersion,
    Set<String> blobColumns,
    Optional<String> targetBase,
    Optional<String> streamingQueryId) {
  public static final String PATH = "path";
  public static final String VERSION = "version";
  public static final String VERSION_AS_OF = "versionAsOf";
  public static final String BATCH_SIZE = "batch_size";
  public static final String MAX_ROWS_PER_PARTITION = "max_rows_per_partition";
  public static final String MAX_ROWS_PER_FILE = "max_rows_per_file";
  public static final String VECTOR_COLUMNS = "vector.columns";
  public static final String TIMESTAMP_AS_OF = "timestampAsOf";
  public static final String TAG = "tag";
  public static final String BRANCH = "branch";
  public static final String ENABLE_STABLE_ROW_IDS = "enable_stable_row_ids";
  public static final String DATA_STORAGE_VERSION = "data_storage_version";
  public static final String TARGET_BASE = "target_base";
  public static final String STREAMING_QUERY_ID = "streamingQueryId";
  public static final String STARTING_VERSION = "startingVersion";
  public static final String MAX_ROWS_PER_TRIGGER = "maxRowsPerTrigger";
  public static final String MAX_FILES_PER_TRIGGER = "maxFilesPerTrigger";
  public static final String SKIP_CHANGE_COMMITS = "skipChangeCommits";
  public static final String OPTIMIZE_INDEX_EVERY_BATCHES = "optimizeIndexEveryBatches";
  public static final String OPTIMIZE_INDEX_UNINDEXED_ROWS = "optimizeIndexUnindexedRows";

  /** Spark's own option of a streaming query, passed to the sink with the others; not used here. */
  public static final String CHECKPOINT_LOCATION = "checkpointLocation";

  /**
   * Every option the data source understands (compared case-insensitively, as Spark passes them).
   */
  public static final List<String> VALID =
      List.of(
          PATH,
          VERSION,
          VERSION_AS_OF,
          TIMESTAMP_AS_OF,
          TAG,
          BRANCH,
          BATCH_SIZE,
          MAX_ROWS_PER_PARTITION,
          MAX_ROWS_PER_FILE,
          VECTOR_COLUMNS,
          ENABLE_STABLE_ROW_IDS,
          DATA_STORAGE_VERSION,
          TARGET_BASE,
          STREAMING_QUERY_ID,
          STARTING_VERSION,
          MAX_ROWS_PER_TRIGGER,
          MAX_FILES_PER_TRIGGER,
          SKIP_CHANGE_COMMITS,
          OPTIMIZE_INDEX_EVERY_BATCHES,
          OPTIMIZE_INDEX_UNINDEXED_ROWS,
          CHECKPOINT_LOCATION);

  /** lance-spark's names of lancelot's options, accepted as the same option (docs/sql.md). */
  public static final Map<String, String> ALIASES = Map.of("max_row_per_file", MAX_ROWS_PER_FILE);

  /** Options of lance-spark that lancelot does not offer, with what to do instead. */
  static final Map<String, String> NOT_OFFERED =
      Map.of(
          "write_mode",
              "use Spark's save mode instead: .mode(\"append\") or .mode(\"overwrite\"), or INSERT INTO / "
                  + "INSERT OVERWRITE",
          "max_rows_per_group", "lancelot writes Lance 2.x files, which have pages, not row groups",
          "max_bytes_per_file", "bound files by rows with max_rows_per_file",
          "block_size", "reads are sized by the engine",
          "index_cache_size",
              "size the index cache in bytes with the Spark conf spark.lancelot.cache.maxBytes",
          "metadata_cache_size",
              "size the cache in bytes with the Spark conf spark.lancelot.cache.maxBytes",
          "pushdownfilters", "filters are always pushed down when the engine can evaluate them",
          "topn_push_down", "ORDER BY ... LIMIT runs in Spark over the pushed-down scan");

  public static LanceOptions parse(CaseInsensitiveStringMap options) {
    options = withAliasesResolved(options);
    checkKnown(options.keySet());
    String path = options.get(PATH);
    if (path == null || path.isBlank()) {
      throw new InvalidInputException(
          "Cannot use the lance data source without a path: pass it to load(path) / "
              + "save(path) or set option \"path\".");
    }
    OptionalLong version = OptionalLong.empty();
    Optional<String> tag = Optional.ofNullable(options.get(TAG));
    String v = options.containsKey(VERSION) ? options.get(VERSION) : options.get(VERSION_AS_OF);
    if (v != null) {
      if (isVersionNumber(v)) {
        version = OptionalLong.of(positiveLong(VERSION, v));
      } else if (tag.isPresent()) {
        throw new InvalidInputException(
            "Cannot use both option tag=\""
                + tag.get()
                + "\" and version=\""
                + v
                + "\" with the lance data source: give one of them.");
      } else {
        tag = Optional.of(v.trim());
      }
    }
    Optional<String> branch =
        Optional.ofNullable(options.get(BRANCH)).map(String::trim).filter(b -> !b.equals("main"));
    if (tag.isPresent()) {
      if (version.isPresent() || branch.isPresent()) {
        throw new InvalidInputException(
            "Cannot read tag \""
                + tag.get()
                + "\" together with "
                + (version.isPresent()
                    ? "version " + version.getAsLong()
                    : "branch " + branch.get())
                + ": the tag names the version and its branch. Give one of them.");
      }
      OpenOptions.defaults().withTag(tag.get()); // checks the name
    }
    branch.ifPresent(b -> OpenOptions.defaults().withBranch(b)); // checks the name
    int batchSize = (int) positiveLong(BATCH_SIZE, options.getOrDefault(BATCH_SIZE, "8192"));
    long maxRows =
        positiveLong(
            MAX_ROWS_PER_PARTITION, options.getOrDefault(MAX_ROWS_PER_PARTITION, "1048576"));
    int maxRowsPerFile =
        (int) positiveLong(MAX_ROWS_PER_FILE, options.getOrDefault(MAX_ROWS_PER_FILE, "1048576"));
    return new LanceOptions(
        path,
        version,
        batchSize,
        maxRows,
        maxRowsPerFile,
        vectorColumns(options.get(VECTOR_COLUMNS)),
        tag,
        branch,
        bool(ENABLE_STABLE_ROW_IDS, options.get(ENABLE_STABLE_ROW_IDS)),
        dataStorageVersion(options.get(DATA_STORAGE_VERSION)),
        blobColumns(options),
        Optional.ofNullable(options.get(TARGET_BASE)).filter(b -> !b.isBlank()),
        Optional.ofNullable(options.get(STREAMING_QUERY_ID))
            .map(String::trim)
            .filter(s -> !s.isEmpty()));
  }

  /**
   * The option or table property {@code data_storage_version}: empty when absent, else a version
   * lancelot writes ({@code 2.1}, {@code 2.2}, {@code stable}); anything else is refused.
   */
  public static Optional<String> dataStorageVersion(String value) {
    if (value == null) {
      return Optional.empty();
    }
    return Optional.of(
        dev.lancelot.engine.WriteOptions.of(dev.lancelot.engine.WriteMode.CREATE)
            .withDataStorageVersion(value)
            .dataStorageVersion());
  }

  /**
   * {@code true} or {@code false} (any case) for option or table property {@code name}; absent is
   * {@code false}; anything else is refused.
   */
  public static boolean bool(String name, String value) {
    if (value == null || value.trim().equalsIgnoreCase("false")) {
      return false;
    }
    if (value.trim().equalsIgnoreCase("true")) {
      return true;
    }
    throw new InvalidInputException(
        "Cannot use " + name + "=\"" + value + "\": give true or false.");
  }

  /** True for a version number, false for anything else (a tag name). */
  static boolean isVersionNumber(String v) {
    String t = v.trim();
    return !t.isEmpty() && t.chars().allMatch(c -> c == '-' || c == '+' || Character.isDigit(c));
  }

  /**
   * Where to read: the dataset at {@code path}, or its branch's directory ({@code tree/<branch>})
   * when option {@code branch} names one that exists (an error naming the branches otherwise).
   */
  public String readLocation(org.apache.hadoop.conf.Configuration conf) {
    String root = dev.lancelot.engine.io.HadoopFileIO.qualify(path, conf);
    if (branch.isEmpty()) {
      return root;
    }
    try (dev.lancelot.engine.Dataset ds =
        dev.lancelot.engine.Dataset.open(
            root, OpenOptions.defaults().withHadoopConf(conf).withBranch(branch.get()))) {
      return ds.location();
    }
  }

  /**
   * The options with lance-spark's names ({@link #ALIASES}) renamed to lancelot's; giving both
   * names of one option is an error.
   */
  static CaseInsensitiveStringMap withAliasesResolved(CaseInsensitiveStringMap options) {
    Map<String, String> out = null;
    for (Map.Entry<String, String> alias : ALIASES.entrySet()) {
      if (!options.containsKey(alias.getKey())) {
        continue;
      }
      if (options.containsKey(alias.getValue())) {
        throw new InvalidInputException(
            "Cannot use both options \""
                + alias.getKey()
                + "\" and \""
                + alias.getValue()
                + "\" with the lance data source: they are the same option. Keep one.");
      }
      if (out == null) {
        out = new HashMap<>(options.asCaseSensitiveMap());
      }
      for (String key : options.asCaseSensitiveMap().keySet()) {
        if (key.equalsIgnoreCase(alias.getKey())) {
          out.put(alias.getValue(), out.remove(key));
        }
      }
    }
    return out == null ? options : new CaseInsensitiveStringMap(out);
  }

  /** Refuses an option no reader or writer of this data source understands. */
  static void checkKnown(Set<String> keys) {
    for (String key : keys) {
      String instead = NOT_OFFERED.get(key.toLowerCase(java.util.Locale.ROOT));
      if (instead != null) {
        throw new InvalidInputException(
            "Cannot use option \""
                + key
                + "\" with the lance data source: lancelot does "
                + "not offer this lance-spark option; "
                + instead
                + ".");
      }
      if (VALID.stream().noneMatch(key::equalsIgnoreCase) && blobColumn(key) == null) {
        throw new InvalidInputException(
            "Cannot use option \""
                + key
                + "\" with the lance data source: it is not an "
                + "option of lance. Did you mean \""
                + closest(key)
                + "\"? Valid options: "
                + String.join(", ", VALID)
                + ".");
      }
    }
  }

  /** The valid option nearest to {@code key} by edit distance, ignoring case. */
  static String closest(String key) {
    return ClosestName.closest(key, VALID);
  }

  static long positiveLong(String name, String value) {
    try {
      long n = Long.parseLong(value.trim());
      if (n >= 1 && n <= Integer.MAX_VALUE) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new InvalidInputException(
        "Cannot use option "
            + name
            + "=\""
            + value
            + "\": expected a whole number between 1 "
            + "and "
            + Integer.MAX_VALUE
            + ".");
  }

  /**
   * The column a key {@code '<column>.lance.encoding'} names (lance-spark's option and table
   * property for blob columns), or null for other keys.
   */
  static String blobColumn(String key) {
    String suffix = "." + SparkTypes.BLOB_ENCODING;
    if (key.length() > suffix.length()
        && key.regionMatches(true, key.length() - suffix.length(), suffix, 0, suffix.length())) {
      return key.substring(0, key.length() - suffix.length());
    }
    return null;
  }

  /**
   * The columns that options or table properties {@code '<column>.lance.encoding' = 'blob'} make
   * blob columns; any other encoding is refused.
   */
  public static Set<String> blobColumns(Map<String, String> options) {
    Set<String> out = new java.util.TreeSet<>();
    if (options == null) {
      return out;
    }
    options.forEach(
        (key, value) -> {
          String column = blobColumn(key);
          if (column == null) {
            return;
          }
          if (value == null || !value.trim().equalsIgnoreCase("blob")) {
            throw new InvalidInputException(
                "Cannot use \""
                    + key
                    + "\" = \""
                    + value
                    + "\": the only Lance column encoding lancelot sets is 'blob' (a binary column"
                    + " stored as a Lance blob column).");
          }
          out.add(column);
        });
    return out;
  }

  static Map<String, Integer> vectorColumns(String spec) {
    Map<String, Integer> out = new HashMap<>();
    if (spec == null || spec.isBlank()) {
      return out;
    }
    for (String part : spec.split(",", -1)) {
      String[] kv = part.trim().split(":", -1);
      if (kv.length != 2 || kv[0].isBlank()) {
        throw new InvalidInputException(
            "Cannot use option "
                + VECTOR_COLUMNS
                + "=\""
                + spec
                + "\": expected name:dim "
                + "pairs separated by commas, e.g. \"vector:128\".");
      }
      out.put(kv[0].trim(), (int) positiveLong(VECTOR_COLUMNS, kv[1]));
    }
    return out;
  }
}
