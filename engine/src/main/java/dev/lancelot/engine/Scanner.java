package dev.lancelot.engine;

import dev.lancelot.engine.expr.BoundPredicate;
import dev.lancelot.engine.internal.format.proto.TableProtos.DataFragment;
import dev.lancelot.engine.internal.scan.FragmentScan;
import dev.lancelot.engine.internal.scan.ScanSpec;
import dev.lancelot.engine.internal.table.Snapshot;
import dev.lancelot.engine.schema.LanceField;
import dev.lancelot.engine.schema.LanceSchema;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.roaringbitmap.RoaringBitmap;

/**
 * A scan of one dataset version: projection, filter, batch size, virtual columns, and a subset of
 * fragments. Immutable: each setter returns a new scanner. Plan it into {@link ScanTask}s to
 * distribute it, or run it locally with {@link #batches()}.
 */
public final class Scanner {
  /** The virtual column of stable row ids (uint64), added by {@link #withRowId}. */
  public static final String ROW_ID = ScanSpec.ROW_ID;

  /**
   * The virtual column of row addresses (uint64, {@code (fragment << 32) | offset}), added by
   * {@link #withRowAddress}.
   */
  public static final String ROW_ADDRESS = ScanSpec.ROW_ADDRESS;

  private final Dataset dataset;
  private final List<String> columns;
  private final BoundPredicate filter;
  private final int batchSize;
  private final boolean withRowId;
  private final boolean withRowAddress;
  private final List<Long> fragmentIds;
  private final BufferAllocator allocator;
  private final boolean useScalarIndex;

  /** The index plan, made on first use (planning evaluates the indexes). */
  private volatile ScanIndexPlanner.Plan indexPlan;

  Scanner(
      Dataset dataset,
      List<String> columns,
      BoundPredicate filter,
      int batchSize,
      boolean withRowId,
      boolean withRowAddress,
      List<Long> fragmentIds,
      BufferAllocator allocator,
      boolean useScalarIndex) {
    this.dataset = dataset;
    this.useScalarIndex = useScalarIndex;
    this.allocator = allocator;
    this.columns = columns;
    this.filter = filter;
    this.batchSize = batchSize;
    this.withRowId = withRowId;
    this.withRowAddress = withRowAddress;
    this.fragmentIds = fragmentIds;
  }

  static Scanner of(Dataset dataset) {
    return new Scanner(
        dataset, null, null, ScanSpec.DEFAULT_BATCH_SIZE, false, false, null, null, true);
  }

  /** Top-level columns to return, in this order; all columns when never called. */
  public Scanner columns(Collection<String> names) {
    return new Scanner(
        dataset,
        List.copyOf(names),
        filter,
        batchSize,
        withRowId,
        withRowAddress,
        fragmentIds,
        allocator,
        useScalarIndex);
  }

  public Scanner columns(String... names) {
    return columns(List.of(names));
  }

  /**
   * A SQL filter, e.g. {@code "tenant_id = 42 AND name IS NOT NULL"}; null or blank for none. It is
   * parsed and bound to this version's schema here, once.
   *
   * @throws dev.lancelot.engine.expr.FilterParseException if it is not filter SQL
   * @throws dev.lancelot.engine.expr.FilterBindException if it does not fit the schema
   */
  public Scanner filter(String sql) {
    return filter(sql == null || sql.isBlank() ? null : dataset.bindFilter(sql));
  }

  /**
   * A filter already bound to this version's schema (or to one with the same fields under the
   * referenced names, e.g. by {@link Dataset#bindFilter} on the driver); null for none.
   *
   * @throws IllegalArgumentException if the predicate was bound to other fields than this version
   *     has: evaluating it here could select the wrong rows
   */
  public Scanner filter(BoundPredicate bound) {
    if (bound != null && !bound.fits(dataset.schema())) {
      throw new IllegalArgumentException(
          "Cannot scan "
              + dataset.location()
              + " version "
              + dataset.version()
              + " with filter \""
              + bound.sql()
              + "\": it was bound to the fields "
              + bound.referencedSchema()
              + ", which this version does not have. Bind it to this version (Dataset.bindFilter).");
    }
    return new Scanner(
        dataset,
        columns,
        bound,
        batchSize,
        withRowId,
        withRowAddress,
        fragmentIds,
        allocator,
        useScalarIndex);
  }

  public Scanner batchSize(int rows) {
    if (rows < 1) {
      throw new InvalidInputException("Cannot scan: batch size must be at least 1, got " + rows);
    }
    return new Scanner(
        dataset,
        columns,
        filter,
        rows,
        withRowId,
        withRowAddress,
        fragmentIds,
        allocator,
        useScalarIndex);
  }

  /** Adds {@code _rowid} (uint64) to the output. */
  public Scanner withRowId(boolean on) {
    return new Scanner(
        dataset,
        columns,
        filter,
        batchSize,
        on,
        withRowAddress,
        fragmentIds,
        allocator,
        useScalarIndex);
  }

  /** Adds {@code _rowaddr} (uint64, {@code (fragment << 32) | offset}) to the output. */
  public Scanner withRowAddress(boolean on) {
    return new Scanner(
        dataset, columns, filter, batchSize, withRowId, on, fragmentIds, allocator, useScalarIndex);
  }

  /**
   * Allocates the batches of {@link #execute} and {@link #batches} from {@code allocator} (e.g. one
   * per task, closed when the task ends) instead of the dataset's own; null restores the default.
   * The caller keeps the allocator open while it reads the batches.
   */
  public Scanner allocator(BufferAllocator allocator) {
    return new Scanner(
        dataset,
        columns,
        filter,
        batchSize,
        withRowId,
        withRowAddress,
        fragmentIds,
        allocator,
        useScalarIndex);
  }

  /** Scans only these fragments, in this order. */
  public Scanner fragments(Collection<Long> ids) {
    return new Scanner(
        dataset,
        columns,
        filter,
        batchSize,
        withRowId,
        withRowAddress,
        List.copyOf(ids),
        allocator,
        useScalarIndex);
  }

  /** The dataset version this scan reads. */
  public Dataset dataset() {
    return dataset;
  }

  /**
   * Whether the filter may be answered from scalar (BTree, bitmap) indexes (the default): the parts
   * of the filter they answer select the rows read from the fragments they cover, and the filter is
   * applied again to those rows, so the result is the same either way. Off, every row of every
   * fragment is read and filtered.
   */
  public Scanner useScalarIndex(boolean on) {
    return new Scanner(
        dataset, columns, filter, batchSize, withRowId, withRowAddress, fragmentIds, allocator, on);
  }

  /**
   * How this scan uses scalar indexes. The first call (or the first plan or run of the scan)
   * evaluates the indexes; the answer is kept for this scanner.
   *
   * @throws dev.lancelot.engine.index.scalar.ScalarIndexException naming the file, when an index
   *     file is corrupt
   */
  public ScanIndexUse indexUse() {
    return indexPlan().use();
  }

  /**
   * One line per step of the scan: what it reads (version, fragments, columns, filter), then how it
   * uses scalar indexes ({@link #indexUse()}).
   */
  public String explain() {
    return "Scan: "
        + dataset.location()
        + " version "
        + dataset.version()
        + ", fragments="
        + selectedFragments().size()
        + ", columns="
        + (columns == null ? dataset.lanceSchema().names() : columns)
        + (filter == null ? "" : ", filter=" + filter.sql())
        + "\n  Index: "
        + indexUse().explain();
  }

  private ScanIndexPlanner.Plan indexPlan() {
    ScanIndexPlanner.Plan p = indexPlan;
    if (p == null) {
      p =
          useScalarIndex || filter == null
              ? ScanIndexPlanner.plan(dataset, filter, selectedFragments())
              : new ScanIndexPlanner.Plan(
                  ScanIndexUse.none("scalar indexes turned off for this scan"), Map.of());
      indexPlan = p;
    }
    return p;
  }

  /** This scan's settings (columns, filter, batch size, virtual columns, index use). */
  public ScanSettings settings() {
    return new ScanSettings(columns, filter, batchSize, withRowId, withRowAddress, useScalarIndex);
  }

  /**
   * This scan with {@code settings} (e.g. a coordinator's, received by a task); the fragments and
   * the allocator are kept.
   *
   * @throws IllegalArgumentException if the settings' filter was bound to other fields than this
   *     version has
   */
  public Scanner with(ScanSettings settings) {
    Scanner s =
        new Scanner(
                dataset,
                settings.columns(),
                null,
                settings.batchSize(),
                settings.withRowId(),
                settings.withRowAddress(),
                fragmentIds,
                allocator,
                settings.useScalarIndex())
            .filter(settings.filter());
    return s;
  }

  /** The Arrow schema of the batches this scan returns. */
  public Schema outputSchema() {
    ScanSpec spec = spec();
    List<Field> fields = new ArrayList<>();
    spec.projection().forEach(f -> fields.add(f.toArrow()));
    if (withRowId) {
      fields.add(FragmentScan.ROW_ID_FIELD);
    }
    if (withRowAddress) {
      fields.add(FragmentScan.ROW_ADDRESS_FIELD);
    }
    return new Schema(fields);
  }

  /** The filter's SQL as written, if any. */
  public String filterSql() {
    return filter == null ? null : filter.sql();
  }

  /** The bound filter, if any. */
  public BoundPredicate filter() {
    return filter;
  }

  /**
   * Splits the scan into tasks: one per fragment, large fragments cut into row ranges of at most
   * {@code maxRowsPerTask} physical rows. When scalar indexes answer the filter ({@link
   * #indexUse()}), tasks of the fragments they cover carry the selected rows of their range, and
   * ranges with no selected row get no task.
   */
  public List<ScanTask> planTasks(long maxRowsPerTask) {
    if (maxRowsPerTask < 1) {
      throw new InvalidInputException("maxRowsPerTask must be at least 1, got " + maxRowsPerTask);
    }
    ScanIndexPlanner.Plan index = indexPlan();
    List<ScanTask> tasks = new ArrayList<>();
    for (DataFragment f : selectedFragments()) {
      long rows = f.getPhysicalRows();
      RoaringBitmap selection = index.selectionOf(f.getId());
      for (long start = 0; start < rows; start += maxRowsPerTask) {
        long end = Math.min(rows, start + maxRowsPerTask);
        if (selection == null) {
          tasks.add(new ScanTask(f.getId(), start, end));
        } else {
          RoaringBitmap part =
              RoaringBitmap.and(selection, RoaringBitmap.bitmapOfRange(start, end));
          if (!part.isEmpty()) {
            tasks.add(new ScanTask(f.getId(), start, end, part));
          }
        }
      }
    }
    return tasks;
  }

  /** Runs one task; batches are valid until the next call on the iterator. */
  public CloseableIterator<VectorSchemaRoot> execute(ScanTask task) {
    return dataset.executeScan(task, spec(), allocator);
  }

  /** Runs the whole scan locally, fragment after fragment. */
  public CloseableIterator<VectorSchemaRoot> batches() {
    List<ScanTask> tasks = planTasks(Long.MAX_VALUE);
    ScanSpec spec = spec();
    return new CloseableIterator<>() {
      private int next;
      private CloseableIterator<VectorSchemaRoot> current;

      @Override
      public boolean hasNext() {
        while (current == null || !current.hasNext()) {
          if (current != null) {
            current.close();
            current = null;
          }
          if (next >= tasks.size()) {
            return false;
          }
          current = dataset.executeScan(tasks.get(next++), spec, allocator);
        }
        return true;
      }

      @Override
      public VectorSchemaRoot next() {
        if (!hasNext()) {
          throw new NoSuchElementException();
        }
        return current.next();
      }

      @Override
      public void close() {
        if (current != null) {
          current.close();
        }
      }
    };
  }

  /** Rows the scan returns (deleted rows excluded, filter applied). */
  public long countRows() {
    if (filter == null) {
      long n = 0;
      for (DataFragment f : selectedFragments()) {
        n += Snapshot.liveRows(f);
      }
      return n;
    }
    long n = 0;
    try (CloseableIterator<VectorSchemaRoot> it = columns(List.of()).batches()) {
      while (it.hasNext()) {
        n += it.next().getRowCount();
      }
    }
    return n;
  }

  List<DataFragment> selectedFragments() {
    if (fragmentIds == null) {
      return dataset.snapshot().fragments();
    }
    List<DataFragment> out = new ArrayList<>();
    for (long id : fragmentIds) {
      out.add(
          dataset
              .snapshot()
              .fragment(id)
              .orElseThrow(
                  () ->
                      new InvalidInputException(
                          "Cannot scan fragment "
                              + id
                              + " of "
                              + dataset.location()
                              + " version "
                              + dataset.version()
                              + ": no such fragment. Fragments: "
                              + dataset.fragments().stream().map(FragmentInfo::id).toList())));
    }
    return out;
  }

  ScanSpec spec() {
    LanceSchema schema = dataset.lanceSchema();
    List<LanceField> projection = new ArrayList<>();
    if (columns == null) {
      projection.addAll(schema.fields());
    } else {
      Set<String> seen = new LinkedHashSet<>();
      for (String name : columns) {
        if (!seen.add(name)) {
          throw new InvalidInputException(
              "Cannot scan "
                  + dataset.location()
                  + ": column \""
                  + name
                  + "\" is listed twice in the projection.");
        }
        projection.add(dataset.field(name));
      }
    }
    return new ScanSpec(projection, filter, batchSize, withRowId, withRowAddress);
  }
}
